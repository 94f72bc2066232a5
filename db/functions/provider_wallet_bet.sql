-- bet {token, transaction_id, round_id, game, amount, currency}: takes the stake from the
-- balance with one `bet` line (key provider:<provider>:bet:<transaction id>), which also counts
-- it into the withdrawal turnover, and adds it to the round. Refused, and recorded as refused:
-- a token that is not a live money session, a disabled player (or, under REGULATION=br, one
-- whose identity is not verified: p_identity_verified), a game that is not the
-- session's or is disabled, another currency, a stake above the balance (answered with the
-- balance), a round of another player or game or one already closed, a bet id a refund came
-- before. Each accepted bet moves the session's end to p_session_life_s from now (at most once a
-- minute, so spins do not rewrite the session row each time).
--
-- What is declared in TypeScript is passed in, never written here again: the session's life
-- (SESSION_LIFE_S, src/modules/games/launch/service.ts, which a launch starts the session with),
-- the code of an enabled provider and game (CATALOGUE_STATUS) and of an open round
-- (PROVIDER_BET_STATUS), and under REGULATION=br the identity status a player must have
-- ('verified', IDENTITY_STATUSES; null: no identity is required);
-- src/modules/games/seamless-wallet/repository.ts binds them. The identity is looked up in the
-- statement that reads the session (one index probe on user_identities.user_id), so the check
-- costs no round trip (docs/regulation.md).
--
-- The hot path of the wallet: the session, its player, game and provider are read in one
-- statement, and the player's balance row is locked before anything is decided, so the funds
-- check and the round cannot interleave with the player's other calls. Two deliveries of one
-- call both get past the first look only when they run at once; the later one then fails at
-- the unique key and aborts with 40001 (provider_wallet_abort), undoing all it did, and its retry is a
-- replay.
--
-- A protocol whose bets may end their round (Hub88: `round_closed` on a bet, a round lost at once)
-- passes p_round_closed: the accepted bet settles its round (p_round_settled, the settled code),
-- and a later win for it is still paid (provider_wallet_win pays wins of settled rounds). One
-- whose calls name the player besides the token (Hub88's `user`) passes p_user_id: a token of
-- another player is then INVALID_TOKEN, and a replay must name the recorded bet's player too.
--
-- Responsible gambling (REGULATION=br, the same flag p_identity_verified: not null only under
-- br): with the balance row locked, responsible_gambling_refusal decides before the funds check;
-- a self-excluded or listed player, or one without limits, is PLAYER_DISABLED, a stake over a
-- loss limit LIMIT_REACHED (docs/regulation.md). Under the lock, parallel bets cannot take the
-- net loss over the limit. A game session opened from a signed-in session that has ended
-- (`ends_at`, session_minutes) is TOKEN_EXPIRED.
--
-- Replays and stored bodies: a replay must carry a token of a money session of the recorded
-- bet's player (live or ended, so a delivery retried after the session ended is still a replay;
-- once housekeeping pruned the session, 90 days on, nothing shows the player any more and the
-- id is refused), and the payload is stored redacted.
create or replace function provider_wallet_bet(
  p_provider_id bigint,
  p_token_hash text,
  p_transaction_id text,
  p_round_id text,
  p_game text,
  p_amount bigint,
  p_currency text,
  p_payload text,
  p_enabled smallint,
  p_round_open smallint,
  p_session_life_s integer,
  p_round_closed boolean default false,
  p_round_settled smallint default null,
  p_user_id bigint default null,
  p_identity_verified text default null
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_row provider_transactions;
  v_session record;
  v_caller record;
  v_round provider_bets;
  v_balance balances;
  v_bet_id bigint;
  v_refusal text;
begin
  -- A tombstone (no amount) is answered below, with the balance of the token's player.
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found and v_row.amount is not null then
    select s.user_id, s.currency into v_caller from game_sessions s
      where s.session_token_hash = p_token_hash and s.provider_id = p_provider_id and not s.demo
        and (p_user_id is null or s.user_id = p_user_id);
    return provider_wallet_replay(v_row, v_row.kind = 'bet' and v_row.amount = p_amount and v_row.currency = p_currency
      and v_row.round_id = p_round_id and v_row.user_id is not distinct from v_caller.user_id, v_caller.user_id,
      v_caller.currency);
  end if;
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if p_round_closed and p_round_settled is null then
    raise exception 'provider_wallet_bet: a bet that closes its round needs the settled code';
  end if;

  select s.id, s.user_id, s.currency, s.demo, s.provider_game_id, s.expires_at, s.ends_at, p.status as provider_status,
      u.status as user_status, g.code = p_game and g.status = p_enabled as game_open,
      p_identity_verified is null or exists (select 1 from user_identities i
        where i.user_id = s.user_id and i.status = p_identity_verified) as identity_ok
    into v_session
    from game_sessions s
    join providers p on p.id = s.provider_id
    join users u on u.id = s.user_id
    join provider_games g on g.id = s.provider_game_id
    where s.session_token_hash = p_token_hash and s.provider_id = p_provider_id and (p_user_id is null or s.user_id = p_user_id);
  if v_session.id is null and not provider_wallet_enabled(p_provider_id, p_enabled) or v_session.provider_status <> p_enabled then
    v_answer.outcome := 'PROVIDER_DISABLED';
    return v_answer;
  end if;
  if v_session.id is null or v_session.demo then
    if v_row.id is not null then
      return provider_wallet_replay(v_row, v_row.kind = 'bet', null, null);
    end if;
    v_answer.outcome := 'INVALID_TOKEN';
  else
    v_answer.user_id := v_session.user_id;
    v_answer.currency := v_session.currency;
    select * into v_balance from balances b
      where b.user_id = v_session.user_id and b.currency = v_session.currency for update;
    v_answer.balance := coalesce(v_balance.amount, 0);
    if v_row.id is not null then
      v_answer.outcome := v_row.outcome;
      v_answer.replayed := true;
      v_answer.transaction_ref := v_row.id;
      return v_answer;
    end if;
    if p_identity_verified is not null and v_session.identity_ok and v_session.user_status = 1 then
      select r.reason into v_refusal from responsible_gambling_refusal(v_session.user_id, p_amount, now(), v_balance) r;
    end if;
    if v_session.expires_at <= now() or v_session.ends_at <= now() then
      v_answer.outcome := 'TOKEN_EXPIRED';
    elsif v_session.user_status <> 1 or not v_session.identity_ok or v_refusal in ('self_excluded', 'listed', 'limits_unset') then
      v_answer.outcome := 'PLAYER_DISABLED';
    elsif not v_session.game_open then
      v_answer.outcome := 'GAME_NOT_FOUND';
    elsif p_currency <> v_session.currency then
      v_answer.outcome := 'CURRENCY_MISMATCH';
    elsif v_answer.balance < p_amount then
      v_answer.outcome := 'INSUFFICIENT_FUNDS';
    elsif v_refusal = 'loss_limit' then
      v_answer.outcome := 'LIMIT_REACHED';
    else
      -- A new round, or more stake in an open round of the same player and game; a bet that closes
      -- its round settles it in the same statement.
      insert into provider_bets as r (user_id, provider_id, provider_game_id, round_id, bet_amount, currency, status, settled_at)
        values (v_session.user_id, p_provider_id, v_session.provider_game_id, p_round_id, p_amount, v_session.currency,
          case when p_round_closed then p_round_settled else p_round_open end, case when p_round_closed then now() end)
        on conflict (provider_id, round_id) do update set bet_amount = r.bet_amount + excluded.bet_amount, updated_at = now(),
            status = excluded.status, settled_at = excluded.settled_at
          where r.user_id = excluded.user_id and r.provider_game_id = excluded.provider_game_id and r.status = p_round_open
        returning r.id into v_bet_id;
      if v_bet_id is null then
        select r.* into v_round from provider_bets r where r.provider_id = p_provider_id and r.round_id = p_round_id;
        v_answer.outcome := case when v_round.user_id = v_session.user_id and v_round.provider_game_id = v_session.provider_game_id
          then 'ROUND_CLOSED' else 'ROUND_MISMATCH' end;
      end if;
    end if;
  end if;

  if v_answer.outcome is null then
    if v_session.expires_at < now() + make_interval(secs => p_session_life_s - 60) then
      update game_sessions s set expires_at = now() + make_interval(secs => p_session_life_s) where s.id = v_session.id;
    end if;
    select a.balance_after into v_answer.balance from ledger_apply(v_session.user_id, v_session.currency, 'bet', -p_amount,
      'provider_bet', v_bet_id, 'Bet #' || v_bet_id, 'provider:' || p_provider_id || ':bet:' || p_transaction_id) a;
    v_answer.outcome := 'OK';
  end if;

  insert into provider_transactions as t (provider_id, transaction_id, kind, user_id, provider_bet_id, round_id, amount, currency,
      outcome, payload)
    values (p_provider_id, p_transaction_id, 'bet', v_answer.user_id, v_bet_id, p_round_id, p_amount, p_currency,
      v_answer.outcome, provider_payload_redacted(p_payload::jsonb))
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('bet ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  return v_answer;
end;
$$;
