-- THE one way a withdrawal changes status (admin actions in their logged transaction, payout
-- notifications in one round trip). The caller passes the action with its transition of
-- docs/api.md section 8 (approve 0 → 1, reject 0|1 → 3, complete 1 → 2, fail 1 → 4): the statuses
-- it leaves, p_from, and the one it reaches, p_to, as WITHDRAWAL_TRANSITIONS
-- (src/modules/withdrawals/repository.ts) declares them, so the codes are spelt in one place.
-- reject and fail return the whole amount with one `withdrawal_refund` line under the key
-- `withdrawal:<id>:refund`. The conditional update is the exactly-once gate: of two concurrent
-- transitions one wins, the other finds the new status.
--
-- outcome 'done' (status is the new one), 'conflict' (nothing changed; status is the current
-- one), 'unknown' (no such withdrawal, or not one of that payout gateway).
-- p_actor is the admin (null for a gateway); approve records p_gateway as the payout gateway.
create or replace function withdrawal_transition(
  p_withdrawal_id bigint,
  p_action text,
  p_from smallint[],
  p_to smallint,
  p_actor_id bigint,
  p_reason text,
  p_gateway text,
  out outcome text,
  out status integer
) language plpgsql as $$
#variable_conflict use_column
declare
  v_refund boolean := p_action in ('reject', 'fail');
  v_user bigint;
  v_currency text;
  v_amount bigint;
begin
  if p_action not in ('approve', 'reject', 'complete', 'fail') then
    raise exception 'unknown withdrawal action %', p_action;
  end if;

  update withdrawals w set status = p_to, updated_at = now(),
      reason = case when v_refund then p_reason else w.reason end,
      reviewed_by = case when p_actor_id is null then w.reviewed_by else p_actor_id end,
      reviewed_at = case when p_actor_id is null then w.reviewed_at else now() end,
      paid_at = case when p_action = 'complete' then now() else w.paid_at end,
      payout_gateway = case when p_action = 'approve' then p_gateway else w.payout_gateway end
    where w.id = p_withdrawal_id and w.status = any (p_from)
      and (p_actor_id is not null or w.payout_gateway = p_gateway)
    returning w.user_id, w.currency, w.amount into v_user, v_currency, v_amount;
  if not found then
    select w.status into status from withdrawals w
      where w.id = p_withdrawal_id and (p_actor_id is not null or w.payout_gateway = p_gateway);
    outcome := case when found then 'conflict' else 'unknown' end;
    return;
  end if;

  if v_refund then
    perform ledger_apply(v_user, v_currency, 'withdrawal_refund', v_amount, 'withdrawal', p_withdrawal_id,
      'Withdrawal #' || p_withdrawal_id || case when p_action = 'reject' then ' rejected' else ' failed' end,
      'withdrawal:' || p_withdrawal_id || ':refund');
  end if;
  outcome := 'done';
  status := p_to;
end;
$$;
