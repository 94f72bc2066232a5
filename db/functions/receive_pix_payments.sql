-- PIX payments taken together (PixReceiver, src/modules/pix/receive.ts: payments that arrived
-- while others were being written), in one transaction: each one is still its own call of
-- receive_pix_payment, with its own gates and keys, in the list's order, and answers that
-- function's row with its place in the list (`ordinal`, from 1). An error in any payment rolls
-- back the whole list; the caller then applies each payment on its own.
--
-- `p_payments` is a JSON array of objects with receive_pix_payment's per-payment arguments:
-- methodId, gateway, endToEndId, txid, amount, paidAt, payerCpf, payerCnpj, payerName, refusal,
-- refusalText, returnId, giftFirst, giftLater, referralReward. The settings versions and the
-- status codes are the list's.
--
-- The balances the payments may credit (each top-up's player and the player's referrer) are
-- locked first, in id order, as settle_draw and cancel_draw do: two lists written at once (two
-- processes) or a list and a draw's settlement never wait for each other in a cycle. A balance
-- that does not exist yet cannot be locked ahead; PostgreSQL breaks a cycle through one, and the
-- caller applies that list's payments again on their own.
create or replace function receive_pix_payments(
  p_payments jsonb,
  p_topup_settings_id bigint,
  p_referral_settings_id bigint,
  -- The status codes, from their one declaration (TOPUP_STATUSES, src/modules/topups/repository.ts).
  p_pending smallint,
  p_paid smallint,
  p_expired smallint,
  p_returned smallint
) returns table (
  ordinal bigint,
  outcome text,
  payment_id bigint,
  topup_id bigint,
  status integer,
  gift bigint,
  referral_reward bigint,
  return_status text
) language plpgsql as $$
#variable_conflict use_column
begin
  perform 1 from balances bal where bal.user_id in (
      select who.id
        from jsonb_to_recordset(p_payments) as i("methodId" bigint, gateway text, txid text)
        join topups t on t.gateway = i.gateway and t.gateway_payment_id = i.txid and t.payment_method_id = i."methodId"
        join users u on u.id = t.user_id
        cross join lateral (values (u.id), (u.ref)) as who(id))
    order by bal.id for update;

  return query
    select i.ordinal, r.outcome, r.payment_id, r.topup_id, r.status, r.gift, r.referral_reward, r.return_status
      from rows from (jsonb_to_recordset(p_payments) as ("methodId" bigint, gateway text, "endToEndId" text, txid text,
          amount bigint, "paidAt" timestamptz, "payerCpf" text, "payerCnpj" text, "payerName" text, refusal text,
          "refusalText" text, "returnId" text, "giftFirst" bigint, "giftLater" bigint, "referralReward" bigint))
        with ordinality as i(method_id, gateway, end_to_end_id, txid, amount, paid_at, payer_cpf, payer_cnpj, payer_name,
          refusal, refusal_text, return_id, gift_first, gift_later, reward, ordinal)
      -- A lateral call runs once per row of the list, in the list's order.
      cross join lateral receive_pix_payment(i.method_id, i.gateway, i.end_to_end_id, i.txid, i.amount, i.paid_at,
        i.payer_cpf, i.payer_cnpj, i.payer_name, i.refusal, i.refusal_text, i.return_id, p_topup_settings_id,
        p_referral_settings_id, i.gift_first, i.gift_later, i.reward, p_pending, p_paid, p_expired, p_returned) as r
      order by i.ordinal;
end;
$$;
