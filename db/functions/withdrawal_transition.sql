-- THE one way a withdrawal changes status (admin actions in their logged transaction, payout
-- notifications in one round trip). The caller passes the action with its transition of
-- docs/api.md section 8 (approve 0 → 1, reject 0|1 → 3, complete 1 → 2, fail 1 → 4): the statuses
-- it leaves, p_from, and the one it reaches, p_to, as WITHDRAWAL_TRANSITIONS
-- (src/modules/withdrawals/repository.ts) declares them, so the codes are spelt in one place.
-- reject and fail return the whole amount with one `withdrawal_refund` line under the key
-- `withdrawal:<id>:refund`. The conditional update is the exactly-once gate: of two concurrent
-- transitions one wins, the other finds the new status.
--
-- Once a payout has been handed to a PSP, only the PSP's outcome settles it: an admin (p_actor_id
-- not null) cannot move a withdrawal approved through one of p_psp_gateways (the payout gateways
-- whose PSP is asked for the outcome: PayoutService's pspSettledGateways) away from approved. The
-- approval hands it over (its send follows the commit; reconciliation sends it again if it never
-- arrived), so this holds whatever payout_state says, null included. It is part of the update's
-- condition, so an operator's reject racing the PSP's settlement cannot slip between a read and
-- a write: of the two, the settlement is the only one that can move it.
--
-- outcome 'done' (status is the new one), 'conflict' (nothing changed; status is the current
-- one), 'psp_settles' (nothing changed: the status allows the action, but the payout is at the
-- PSP; status is the current one), 'unknown' (no such withdrawal, or not one of that payout
-- gateway).
-- p_actor is the admin (null for a gateway); approve records p_gateway as the payout gateway.
--
-- A payout's state agrees with the status it ends in, in the same update: complete makes it
-- `paid`; fail, and a reject of an approved withdrawal (the operator says the payout was not
-- made), make it `failed`, or keep `refused` (the PSP refused the request: the more precise
-- word). Before, a paid withdrawal kept `sent` (docs/withdrawals.md, "What the request came to").
create or replace function withdrawal_transition(
  p_withdrawal_id bigint,
  p_action text,
  p_from smallint[],
  p_to smallint,
  p_actor_id bigint,
  p_reason text,
  p_gateway text,
  -- A default, so a release that does not pass it yet (a rolling deploy) still calls this one.
  p_psp_gateways text[] default '{}',
  out outcome text,
  out status integer
) language plpgsql as $$
#variable_conflict use_column
declare
  v_refund boolean := p_action in ('reject', 'fail');
  v_user bigint;
  v_currency text;
  v_amount bigint;
  -- Not moved although the status allowed it: only the PSP-held payout can have stopped it.
  v_at_psp boolean;
begin
  if p_action not in ('approve', 'reject', 'complete', 'fail') then
    raise exception 'unknown withdrawal action %', p_action;
  end if;

  update withdrawals w set status = p_to, updated_at = now(),
      reason = case when v_refund then p_reason else w.reason end,
      reviewed_by = case when p_actor_id is null then w.reviewed_by else p_actor_id end,
      reviewed_at = case when p_actor_id is null then w.reviewed_at else now() end,
      paid_at = case when p_action = 'complete' then now() else w.paid_at end,
      payout_gateway = case when p_action = 'approve' then p_gateway else w.payout_gateway end,
      -- In SET, w.status is the status the withdrawal leaves.
      payout_state = case
        when p_action = 'complete' then 'paid'
        when w.payout_state = 'refused' then w.payout_state
        when p_action = 'fail' or (p_action = 'reject' and w.status = 1) then 'failed'
        else w.payout_state end
    where w.id = p_withdrawal_id and w.status = any (p_from)
      and (p_actor_id is not null or w.payout_gateway = p_gateway)
      and (p_actor_id is null or w.payout_gateway is null or w.payout_gateway <> all (p_psp_gateways))
    returning w.user_id, w.currency, w.amount into v_user, v_currency, v_amount;
  if not found then
    select w.status, p_actor_id is not null and w.status = any (p_from) into status, v_at_psp from withdrawals w
      where w.id = p_withdrawal_id and (p_actor_id is not null or w.payout_gateway = p_gateway);
    outcome := case when not found then 'unknown' when v_at_psp then 'psp_settles' else 'conflict' end;
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
