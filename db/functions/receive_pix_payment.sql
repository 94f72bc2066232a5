-- A PIX payment the PSP confirmed for one of our charges (docs/api.md section 13), acted on once
-- per endToEndId whoever brings it (a notification, its replays, reconciliation): the unique
-- row in pix_payments is the gate. The caller read the top-up and decided, through one rule
-- (src/modules/pix/disposition.ts), whether the payment may be credited (`p_refusal` null) or
-- must go back to the payer (`p_refusal`, the reason's code; `p_refusal_text`, the sentence a
-- still pending top-up keeps as its reason).
--
-- outcome 'credited': recorded, and the top-up paid through the paid path (pay_topup: its
--   status gate, the amount check, the gift and referral lines); `gift` and `referral_reward`
--   say what pay_topup wrote.
-- 'returned': recorded as to be returned (`return_status` pending; the caller asks the PSP after
--   this committed, with the return id `p_return_id`); a top-up still pending became returned
--   with its reason, any other stays as it is (a paid one stays paid).
-- 'replayed': this endToEndId was recorded before: nothing moved; `payment_id`, `topup_id`,
--   `status` and `return_status` say where it stands.
-- 'not_payable': the caller said credit, but pay_topup refused (the top-up changed since it was
--   read): nothing recorded; read it again, decide again, call again.
-- 'stale': the settings versions passed are no longer in force: nothing recorded; call again.
-- 'unknown': no charge of this method has that txid: nothing recorded.
create or replace function receive_pix_payment(
  p_method_id bigint,
  p_gateway text,
  p_end_to_end_id text,
  p_txid text,
  p_amount bigint,
  p_paid_at timestamptz,
  p_payer_cpf text,
  p_payer_cnpj text,
  p_payer_name text,
  p_refusal text,
  p_refusal_text text,
  p_return_id text,
  p_topup_settings_id bigint,
  p_referral_settings_id bigint,
  p_gift_first bigint,
  p_gift_later bigint,
  p_referral_reward bigint,
  -- The status codes, from their one declaration (TOPUP_STATUSES, src/modules/topups/repository.ts).
  p_pending smallint,
  p_paid smallint,
  p_expired smallint,
  p_returned smallint,
  out outcome text,
  out payment_id bigint,
  out topup_id bigint,
  out status integer,
  out gift bigint,
  out referral_reward bigint,
  out return_status text
) language plpgsql as $$
#variable_conflict use_column
declare
  v_paid record;
begin
  -- A charge of another method is none of this method's (the payment's key to its top-up names both).
  select t.id into topup_id from topups t
    where t.gateway = p_gateway and t.gateway_payment_id = p_txid and t.payment_method_id = p_method_id;
  if not found then
    outcome := 'unknown';
    return;
  end if;

  insert into pix_payments (end_to_end_id, payment_method_id, txid, topup_id, amount, paid_at, payer_cpf, payer_cnpj, payer_name,
      outcome, reason, return_id, return_status)
    values (p_end_to_end_id, p_method_id, p_txid, topup_id, p_amount, p_paid_at, p_payer_cpf, p_payer_cnpj, p_payer_name,
      case when p_refusal is null then 'credited' else 'returned' end, p_refusal,
      case when p_refusal is null then null else p_return_id end, case when p_refusal is null then null else 'pending' end)
    on conflict (end_to_end_id) do nothing
    returning id into payment_id;
  if payment_id is null then
    select p.id, p.topup_id, p.return_status into payment_id, topup_id, return_status
      from pix_payments p where p.end_to_end_id = p_end_to_end_id;
    select topup_status(t.status, t.created_at, p_pending, p_expired) into status from topups t where t.id = topup_id;
    outcome := 'replayed';
    return;
  end if;

  if p_refusal is null then
    select * into v_paid from pay_topup(topup_id, null, null, p_amount, 'webhook', null, true, p_topup_settings_id,
      p_referral_settings_id, p_gift_first, p_gift_later, p_referral_reward, p_pending, p_paid, p_expired);
    if v_paid.outcome = 'paid' then
      outcome := 'credited';
      status := p_paid;
      gift := v_paid.gift;
      referral_reward := v_paid.referral_reward;
      return;
    end if;
    -- Nothing was paid: the payment is forgotten, so the caller decides again from what it reads now.
    delete from pix_payments p where p.id = payment_id;
    payment_id := null;
    status := v_paid.status;
    if v_paid.outcome = 'stale' then
      outcome := 'stale';
    else
      outcome := 'not_payable';
    end if;
    return;
  end if;

  update topups t set status = p_returned, reason = p_refusal_text, updated_at = now()
    where t.id = topup_id and t.status = p_pending;
  select topup_status(t.status, t.created_at, p_pending, p_expired) into status from topups t where t.id = topup_id;
  return_status := 'pending';
  outcome := 'returned';
end;
$$;
