-- THE one way a top-up becomes paid: the webhook (one round trip), admin confirm and admin
-- PUT status=1 (inside their logged transaction). The caller names the top-up (by id, or by
-- gateway and payment id) with the amount it expects, and brings what the rules of
-- topups/rewards.ts computed from the settings versions it read: the gift if this is the
-- user's first paid top-up, the gift otherwise, and the referrer's reward.
--
-- outcome 'paid': the status went 0 → 1 here (the exactly-once gate), the paid counter moved
--   (its upsert waits for any concurrent payment of the user, so exactly one is the first),
--   and the amount, gift and referral lines were written with their keys.
-- 'not_payable': nothing moved; status (expiry applied) and amount say why (already paid,
--   cancelled, expired for an admin, another amount).
-- 'stale': nothing moved; the settings versions passed are no longer in force: read them again,
--   compute again, call again.
-- 'unknown': no such top-up.
--
-- With 'paid' it also says what it wrote: `gift`, the gift line's cents (0: no gift line), and
-- `referral_reward`, the referrer's line's cents (0: no referral line). Only the function knows
-- whether this was the user's first paid top-up and whether the user has a referrer; the
-- metrics count ledger lines from these after the statement committed (docs/production.md).
create or replace function pay_topup(
  p_topup_id bigint,
  p_gateway text,
  p_payment_id text,
  p_amount bigint,
  p_via text,
  p_actor_id bigint,
  p_allow_expired boolean,
  p_topup_settings_id bigint,
  p_referral_settings_id bigint,
  p_gift_first bigint,
  p_gift_later bigint,
  p_referral_reward bigint,
  -- The status codes, from their one declaration (TOPUP_STATUSES, src/modules/topups/repository.ts).
  p_pending smallint,
  p_paid smallint,
  p_expired smallint,
  out outcome text,
  out topup_id bigint,
  out status integer,
  out amount bigint,
  out gift bigint,
  out referral_reward bigint
) language plpgsql as $$
#variable_conflict use_column
declare
  v_user bigint;
  v_currency text;
  v_ref bigint;
  v_paid_count bigint;
  v_gift bigint;
  v_payable boolean;
begin
  topup_id := p_topup_id;
  if topup_id is null then
    select t.id into topup_id from topups t where t.gateway = p_gateway and t.gateway_payment_id = p_payment_id;
  end if;

  update topups t set status = p_paid, paid_at = now(), updated_at = now(), paid_via = p_via, paid_by = p_actor_id,
      topup_settings_id = p_topup_settings_id, referral_settings_id = p_referral_settings_id
    from users u
    where t.id = topup_id and u.id = t.user_id and t.amount = p_amount and t.status = p_pending
      and (p_allow_expired or topup_status(t.status, t.created_at, p_pending, p_expired) = p_pending)
      and p_topup_settings_id = (select s.id from settings s where s.name = 'topup' order by s.version desc limit 1)
      and p_referral_settings_id = (select s.id from settings s where s.name = 'referral' order by s.version desc limit 1)
    returning t.user_id, t.currency, u.ref into v_user, v_currency, v_ref;
  if not found then
    select topup_status(t.status, t.created_at, p_pending, p_expired), t.amount,
        t.status = p_pending and t.amount = p_amount and (p_allow_expired or topup_status(t.status, t.created_at, p_pending, p_expired) = p_pending)
      into status, amount, v_payable
      from topups t where t.id = topup_id;
    outcome := case when not found then 'unknown' when v_payable then 'stale' else 'not_payable' end;
    return;
  end if;

  insert into topup_counters as c (user_id, paid_count, paid_total) values (v_user, 1, p_amount)
    on conflict (user_id) do update
      set paid_count = c.paid_count + 1, paid_total = c.paid_total + excluded.paid_total, updated_at = now()
    returning c.paid_count into v_paid_count;
  v_gift := case when v_paid_count = 1 then p_gift_first else p_gift_later end;

  perform ledger_apply(v_user, v_currency, 'topup', p_amount, 'topup', topup_id, 'Top-up #' || topup_id, 'topup:' || topup_id);
  if v_gift > 0 then
    perform ledger_apply(v_user, v_currency, 'topup_gift', v_gift, 'topup', topup_id, 'Gift on top-up #' || topup_id,
      topup_gift_key(topup_id));
  end if;
  if v_ref is not null and p_referral_reward > 0 then
    perform ledger_apply(v_ref, v_currency, 'referral_bonus', p_referral_reward, 'topup', topup_id,
      'Referral reward: top-up #' || topup_id || ' of user #' || v_user, 'topup:' || topup_id || ':referral');
  end if;
  outcome := 'paid';
  status := p_paid;
  amount := p_amount;
  gift := greatest(v_gift, 0);
  referral_reward := case when v_ref is not null and p_referral_reward > 0 then p_referral_reward else 0 end;
end;
$$;
