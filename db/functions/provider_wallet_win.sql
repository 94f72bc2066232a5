-- win {transaction_id, bet_transaction_id, round_id, amount, currency, round_closed}: credits
-- the amount with one `win` line (key provider:<provider>:win:<transaction id>; none for 0)
-- and adds it to the bet's round; round_closed settles the round. No session is needed: wins
-- arrive after the session ended, and for a player disabled since. Refused (not recorded): an
-- unknown or refused bet, a refunded bet, another round or currency than the bet's.
--
-- Replays and stored bodies: a replay is answered for the player of the bet it names (the
-- same bet id, hence the same player, or DUPLICATE_MISMATCH), and the payload is stored
-- redacted. A replay is answered for the named bet's player, so that bet is read (and its player
-- locked) first, and the call's id is looked up once, under the lock: a delivery of this call
-- that was running meanwhile has committed by then. (The first version looked before the lock,
-- to answer a replay without it, and again after.)
--
-- A win for a settled round is paid like any other (the round stays settled and adds the win):
-- Hub88 may close a round on its bet and send a win for it later. p_user_id: the player the call
-- names besides its bet (Hub88's `user`), for protocols that name one; a bet of another player is
-- then BET_NOT_FOUND (this player has no bet of that id), and a replay must name the same player.
--
-- The ceiling (docs/games.md, "Held wins"): a win above the operator's `games.max_win` (cents;
-- 0 is none), read here from the settings version in force, in the statement that applies it, is
-- recorded with outcome WIN_HELD and not credited: no ledger line, the round left as it is. A
-- hold row keeps it for staff (provider_wallet_win_review releases or refuses it) and an alert
-- goes into the operation log in the same statement (operation_log_alert, with the call's path
-- and address, p_request_path and p_request_ip). Its replays answer the record's
-- outcome as it is now: WIN_HELD while held, OK once released, WIN_REFUSED once refused.
--
-- The codes of an enabled provider (CATALOGUE_STATUS) and of an open and a settled round
-- (PROVIDER_BET_STATUS) are passed in from their TypeScript declarations
-- (src/modules/games/seamless-wallet/repository.ts).
create or replace function provider_wallet_win(
  p_provider_id bigint,
  p_transaction_id text,
  p_bet_transaction_id text,
  p_round_id text,
  p_amount bigint,
  p_currency text,
  p_round_closed boolean,
  p_payload text,
  p_enabled smallint,
  p_round_open smallint,
  p_round_settled smallint,
  p_user_id bigint default null,
  p_request_path text default null,
  p_request_ip text default null
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_row provider_transactions;
  v_bet provider_transactions;
  v_foreign boolean;
  v_settings_id bigint;
  v_max_win bigint;
  v_hold_id bigint;
  -- Above the operator's ceiling (settings games.max_win): recorded and held, nothing credited.
  v_held boolean := false;
begin
  v_bet := provider_wallet_named_bet(p_provider_id, p_bet_transaction_id);
  v_foreign := coalesce(v_bet.user_id <> p_user_id, false);
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found then
    if v_foreign then
      return provider_wallet_replay(v_row, false, null, null);
    end if;
    return provider_wallet_replay(v_row, v_row.kind = 'win' and v_row.amount = p_amount and v_row.currency = p_currency
      and v_row.bet_transaction_id = p_bet_transaction_id and v_row.round_id = p_round_id
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
  end if;
  if v_bet.kind is distinct from 'bet' or v_bet.outcome not in ('OK', 'BET_REFUNDED') then
    v_answer.outcome := 'BET_NOT_FOUND';
  elsif v_bet.outcome = 'BET_REFUNDED' or exists (select 1 from ledger_entries e
      where e.idempotency_key = 'provider:' || p_provider_id || ':bet_refund:' || v_bet.transaction_id) then
    v_answer.outcome := 'BET_REFUNDED';
  elsif v_bet.round_id <> p_round_id then
    v_answer.outcome := 'ROUND_MISMATCH';
  elsif v_bet.currency <> p_currency then
    v_answer.outcome := 'CURRENCY_MISMATCH';
  end if;
  if v_answer.outcome is not null then
    return v_answer;
  end if;

  if p_amount > 0 then
    select s.id, (s.value ->> 'max_win')::bigint into v_settings_id, v_max_win
      from settings s where s.name = 'games' order by s.version desc limit 1;
    v_held := coalesce(v_max_win, 0) > 0 and p_amount > v_max_win;
    if not v_held then
      select a.balance_after into v_answer.balance from ledger_apply(v_bet.user_id, v_bet.currency, 'win', p_amount, 'provider_bet',
        v_bet.provider_bet_id, 'Win #' || v_bet.provider_bet_id, 'provider:' || p_provider_id || ':win:' || p_transaction_id) a;
    end if;
  end if;
  -- A held win leaves its round as it is: staff's release settles it (provider_wallet_win_review.sql).
  if not v_held then
    update provider_bets r set win_amount = r.win_amount + p_amount, updated_at = now(),
        status = case when p_round_closed and r.status = p_round_open then p_round_settled else r.status end,
        settled_at = case when p_round_closed and r.status = p_round_open then now() else r.settled_at end
      where r.id = v_bet.provider_bet_id;
  end if;
  v_answer.outcome := case when v_held then 'WIN_HELD' else 'OK' end;
  insert into provider_transactions as t (provider_id, transaction_id, kind, user_id, provider_bet_id, round_id, bet_transaction_id,
      amount, currency, outcome, payload)
    values (p_provider_id, p_transaction_id, 'win', v_bet.user_id, v_bet.provider_bet_id, p_round_id, p_bet_transaction_id, p_amount,
      p_currency, v_answer.outcome, provider_payload_redacted(p_payload::jsonb))
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('win ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  if v_held then
    insert into provider_win_holds (provider_id, provider_transaction_id, transaction_id, bet_transaction_id, round_id, provider_bet_id,
        user_id, amount, currency, round_closed, max_win, settings_id)
      values (p_provider_id, v_answer.transaction_ref, p_transaction_id, p_bet_transaction_id, p_round_id, v_bet.provider_bet_id,
        v_bet.user_id, p_amount, p_currency, p_round_closed, v_max_win, v_settings_id)
      returning id into v_hold_id;
    perform operation_log_alert(p_request_path, p_request_ip, jsonb_build_object('alert', 'provider_win_held',
      'held_win_id', v_hold_id, 'provider_id', p_provider_id, 'transaction_id', p_transaction_id, 'user_id', v_bet.user_id,
      'amount', (p_amount::numeric / 100)::numeric(20, 2), 'max_win', (v_max_win::numeric / 100)::numeric(20, 2),
      'currency', p_currency));
  end if;
  return v_answer;
end;
$$;
