-- Staff's decision on a win the ceiling held (provider_wallet_win; docs/games.md, "Held wins"),
-- in the operator's logged transaction (src/modules/games/held-wins/service.ts).
--
-- p_release true: the win is credited as the call would have credited it: one `win` line under
-- the win's own key (provider:<provider>:win:<transaction id>, so it is credited once whatever
-- else happens), added to its round, which it settles when the call said round_closed. Its
-- record's outcome becomes OK, which is what the provider's retries are answered from then on.
-- Refused ('bet_refunded', nothing changes) when the bet's stake was given back since: paying
-- the win too would pay twice; it can still be refused.
-- p_release false: nothing is credited; the record's outcome becomes WIN_REFUSED and a round the
-- call closed is settled without the win.
--
-- Outcomes: 'released', 'refused', 'decided' (it was released or refused already: nothing
-- changes; review_status is what it is), 'bet_refunded', 'unknown' (no such hold). The hold row is
-- locked first, so of two reviews at once the second finds the first's decision ('decided').
-- Then ledger_apply locks the player's balance, and the round is updated after it, in the order
-- every wallet call takes them (balance, then round).
--
-- The codes of a hold's states (PROVIDER_WIN_HOLD_STATUS) and of an open and a settled round
-- (PROVIDER_BET_STATUS) are passed in from their TypeScript declarations
-- (src/modules/games/held-wins/repository.ts).
create or replace function provider_wallet_win_review(
  p_hold_id bigint,
  p_release boolean,
  p_reviewer bigint,
  p_reason text,
  p_held smallint,
  p_released smallint,
  p_refused smallint,
  p_round_open smallint,
  p_round_settled smallint,
  out outcome text,
  out review_status smallint,
  out player_balance bigint
) language plpgsql as $$
declare
  v_hold provider_win_holds;
  v_applied record;
  v_closes boolean;
begin
  select h.* into v_hold from provider_win_holds h where h.id = p_hold_id for update;
  if not found then
    outcome := 'unknown';
    return;
  end if;
  review_status := v_hold.status;
  if v_hold.status <> p_held then
    outcome := 'decided';
    player_balance := provider_wallet_balance_of(v_hold.user_id, v_hold.currency);
    return;
  end if;
  v_closes := v_hold.round_closed;

  if p_release then
    if exists (select 1 from ledger_entries e
        where e.idempotency_key = 'provider:' || v_hold.provider_id || ':bet_refund:' || v_hold.bet_transaction_id) then
      outcome := 'bet_refunded';
      player_balance := provider_wallet_balance_of(v_hold.user_id, v_hold.currency);
      return;
    end if;
    select a.balance_after, a.replayed into v_applied from ledger_apply(v_hold.user_id, v_hold.currency, 'win', v_hold.amount,
      'provider_bet', v_hold.provider_bet_id, 'Win #' || v_hold.provider_bet_id,
      'provider:' || v_hold.provider_id || ':win:' || v_hold.transaction_id) a;
    player_balance := v_applied.balance_after;
    if not v_applied.replayed then
      update provider_bets r set win_amount = r.win_amount + v_hold.amount, updated_at = now(),
          status = case when v_closes and r.status = p_round_open then p_round_settled else r.status end,
          settled_at = case when v_closes and r.status = p_round_open then now() else r.settled_at end
        where r.id = v_hold.provider_bet_id;
    end if;
    update provider_transactions t set outcome = 'OK' where t.id = v_hold.provider_transaction_id;
    review_status := p_released;
    outcome := 'released';
  else
    update provider_bets r set updated_at = now(),
        status = case when v_closes and r.status = p_round_open then p_round_settled else r.status end,
        settled_at = case when v_closes and r.status = p_round_open then now() else r.settled_at end
      where r.id = v_hold.provider_bet_id and v_closes;
    update provider_transactions t set outcome = 'WIN_REFUSED' where t.id = v_hold.provider_transaction_id;
    player_balance := provider_wallet_balance_of(v_hold.user_id, v_hold.currency);
    review_status := p_refused;
    outcome := 'refused';
  end if;
  update provider_win_holds h set status = review_status, reason = p_reason, reviewed_by = p_reviewer, reviewed_at = now(),
      updated_at = now()
    where h.id = p_hold_id;
end;
$$;
