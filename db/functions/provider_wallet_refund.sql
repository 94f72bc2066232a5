-- refund {transaction_id, bet_transaction_id}: gives the named bet's stake back with one
-- `bet_refund` line (key provider:<provider>:bet_refund:<bet transaction id>, so a bet is
-- refunded once whichever refund ids name it). A bet that moved nothing (refused) needs
-- nothing back: OK. A bet never seen: a tombstone is written for its id and the refund is OK.
-- Refused (not recorded): a round that has paid a win, a transaction that is not a bet.
--
-- Replays and stored bodies: a replay is answered for the player of the bet it names, looked
-- up under that player's lock (as a win's), and the payload is stored redacted.
--
-- A transaction rollback (p_this_bet_only, Hub88's /transaction/rollback): the named bet is one
-- transaction of a round that may hold others, and undoing it is refused only when a win named
-- that very bet (giving its stake back while keeping what it won would pay twice); a win for
-- another bet of the round does not stand in the way. The generic refund gives a round's stake
-- back and is refused once the round paid any win (BET_SETTLED), as above.
--
-- p_user_id: the player the call names besides its bet (Hub88's `user`), for protocols that name
-- one: a bet of another player is BET_NOT_FOUND and nothing is recorded (no tombstone: the id is
-- taken), a replay must name the same player, and the rollback of a bet never seen is answered
-- with that player's balance (in the currency of their latest session at this provider).
--
-- The codes of an enabled provider (CATALOGUE_STATUS) and of a refunded round
-- (PROVIDER_BET_STATUS) are passed in from their TypeScript declarations
-- (src/modules/games/seamless-wallet/repository.ts).
create or replace function provider_wallet_refund(
  p_provider_id bigint,
  p_transaction_id text,
  p_bet_transaction_id text,
  p_payload text,
  p_enabled smallint,
  p_round_refunded smallint,
  p_user_id bigint default null,
  p_this_bet_only boolean default false
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_row provider_transactions;
  v_bet provider_transactions;
  v_refunded bigint := 0;
  v_applied record;
  v_foreign boolean;
  v_settled boolean;
begin
  v_bet := provider_wallet_named_bet(p_provider_id, p_bet_transaction_id);
  v_foreign := coalesce(v_bet.user_id <> p_user_id, false);
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found then
    if v_foreign then
      return provider_wallet_replay(v_row, false, null, null);
    end if;
    return provider_wallet_replay(v_row, v_row.kind = 'refund' and v_row.bet_transaction_id = p_bet_transaction_id
      and v_row.user_id is not distinct from v_bet.user_id, v_bet.user_id, v_bet.currency);
  end if;
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if not provider_wallet_enabled(p_provider_id, p_enabled) then
    v_answer.outcome := 'PROVIDER_DISABLED';
    return v_answer;
  end if;
  if v_foreign then
    v_answer.outcome := 'BET_NOT_FOUND';
    return v_answer;
  end if;

  if v_bet.user_id is not null then
    v_answer.user_id := v_bet.user_id;
    v_answer.currency := v_bet.currency;
    v_answer.balance := provider_wallet_balance_of(v_bet.user_id, v_bet.currency);
  elsif p_user_id is not null then
    select p_user_id, s.currency into v_answer.user_id, v_answer.currency from game_sessions s
      where s.user_id = p_user_id and s.provider_id = p_provider_id and not s.demo order by s.id desc limit 1;
    if v_answer.currency is not null then
      v_answer.balance := provider_wallet_balance_of(p_user_id, v_answer.currency);
    end if;
  end if;
  if v_bet.id is null then
    insert into provider_transactions (provider_id, transaction_id, kind, outcome)
      values (p_provider_id, p_bet_transaction_id, 'bet', 'BET_REFUNDED')
      on conflict (provider_id, transaction_id) do nothing;
    if not found then
      perform provider_wallet_abort('bet ' || p_bet_transaction_id || ' was recorded by a concurrent call');
    end if;
  elsif v_bet.kind <> 'bet' then
    v_answer.outcome := 'BET_NOT_FOUND';
    return v_answer;
  elsif v_bet.outcome = 'OK' then
    if p_this_bet_only then
      v_settled := exists (select 1 from provider_transactions w where w.provider_id = p_provider_id and w.kind = 'win'
        and w.bet_transaction_id = v_bet.transaction_id and w.amount > 0);
    else
      v_settled := (select r.win_amount from provider_bets r where r.id = v_bet.provider_bet_id) > 0;
    end if;
    if v_settled then
      v_answer.outcome := 'BET_SETTLED';
      return v_answer;
    end if;
    select a.balance_after, a.replayed into v_applied from ledger_apply(v_bet.user_id, v_bet.currency, 'bet_refund', v_bet.amount,
      'provider_bet', v_bet.provider_bet_id, 'Bet refund #' || v_bet.provider_bet_id,
      'provider:' || p_provider_id || ':bet_refund:' || v_bet.transaction_id) a;
    v_answer.balance := v_applied.balance_after;
    if not v_applied.replayed then
      v_refunded := v_bet.amount;
      update provider_bets r set refund_amount = r.refund_amount + v_bet.amount, updated_at = now(),
          status = case when r.refund_amount + v_bet.amount = r.bet_amount then p_round_refunded else r.status end,
          settled_at = case when r.refund_amount + v_bet.amount = r.bet_amount then coalesce(r.settled_at, now()) else r.settled_at end
        where r.id = v_bet.provider_bet_id;
    end if;
  end if;

  insert into provider_transactions as t (provider_id, transaction_id, kind, user_id, provider_bet_id, round_id, bet_transaction_id,
      amount, currency, outcome, payload)
    values (p_provider_id, p_transaction_id, 'refund', v_bet.user_id, v_bet.provider_bet_id, v_bet.round_id, p_bet_transaction_id,
      v_refunded, v_bet.currency, 'OK', provider_payload_redacted(p_payload::jsonb))
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('refund ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;
