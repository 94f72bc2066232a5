-- Two holes in the seamless wallet (issue 18, items 3 and 4), closed where its rules live.
--
-- 1. Credentials in stored bodies. provider_transactions.payload kept each call's body as
--    received, so a bet's live session token reached the operators' round detail
--    (GET /api/admin/provider-bets/:id), and that token alone stakes the player's money. Every
--    body is now stored through provider_payload_redacted: the value of any key that names a
--    credential is replaced by "[redacted]", at any depth, whatever the provider's protocol
--    calls the field. The wallet functions below apply it on the way in (so it holds for every
--    instance and every adapter), and the rows stored before are redacted at the end.
--
-- 2. A transaction id reused by another player. A replay was matched on the call's fields
--    alone: another player's bet with a recorded bet's id, round and amount was answered `OK`
--    as a replay with the first player's balance, took no stake, and showed that balance. A
--    replay now has to come from the recorded call's player (a bet: its token's money session;
--    a win or a refund: the bet it names, so the same bet id is the same player), or it is
--    DUPLICATE_MISMATCH. Every replay, matched or not, is answered with the balance of the
--    player the call itself names, never the recorded call's: for a match they are the same
--    player, for a mismatch the first call's player is never shown (nor its record's id).
--
-- The functions are written out in full; what is not mentioned above is as in
-- migrations/20261125100000_provider_wallet.sql.

-- The value of every key whose name says credential (token, secret, signature or sign, hmac,
-- hash, password, session, auth, credential, key: case-insensitive, anywhere in the name, so
-- `token`, `sessionId`, `X-Signature`, `PlatformKey` all match) replaced by "[redacted]", at any
-- depth. Broad on purpose: a field hidden for nothing costs a dispute a detail, a token kept
-- costs a player's money. A protocol whose credential field matches none of these must be added
-- here (the conformance kit checks that no token is stored).
create function provider_payload_redacted(p_value jsonb) returns jsonb language plpgsql immutable strict as $$
begin
  if jsonb_typeof(p_value) = 'object' then
    return coalesce((select jsonb_object_agg(e.key, case
        when e.key ~* '(token|secret|sign|hmac|hash|passw|session|auth|credential|key)' then '"[redacted]"'::jsonb
        when jsonb_typeof(e.value) in ('object', 'array') then provider_payload_redacted(e.value)
        else e.value end)
      from jsonb_each(p_value) e), '{}'::jsonb);
  elsif jsonb_typeof(p_value) = 'array' then
    return coalesce((select jsonb_agg(provider_payload_redacted(a.value) order by a.n)
      from jsonb_array_elements(p_value) with ordinality a(value, n)), '[]'::jsonb);
  end if;
  return p_value;
end;
$$;

-- A call whose transaction id is already recorded, answered for the player the call names
-- (p_user_id, p_currency; null when it names none): the first outcome when p_same (the same call
-- of the same player), else DUPLICATE_MISMATCH without the record's id. Nothing moves.
create function provider_wallet_replay(p_row provider_transactions, p_same boolean, p_user_id bigint, p_currency text)
returns provider_wallet_answer language sql stable as $$
  select case when p_same then p_row.outcome else 'DUPLICATE_MISMATCH' end, true, p_user_id, p_currency,
    case when p_user_id is null then null else provider_wallet_balance_of(p_user_id, p_currency) end,
    case when p_same then p_row.id end, false
$$;

-- bet: as before, except that a replay must carry a token of a money session of the recorded
-- bet's player (live or ended, so a delivery retried after the session ended is still a replay;
-- once housekeeping pruned the session, 90 days on, nothing shows the player any more and the
-- id is refused), and that the payload is stored redacted.
create or replace function provider_wallet_bet(
  p_provider_id bigint,
  p_token_hash text,
  p_transaction_id text,
  p_round_id text,
  p_game text,
  p_amount bigint,
  p_currency text,
  p_payload text
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_row provider_transactions;
  v_session record;
  v_caller record;
  v_round provider_bets;
  v_available bigint;
  v_bet_id bigint;
begin
  -- A tombstone (no amount) is answered below, with the balance of the token's player.
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found and v_row.amount is not null then
    select s.user_id, s.currency into v_caller from game_sessions s
      where s.session_token_hash = p_token_hash and s.provider_id = p_provider_id and not s.demo;
    return provider_wallet_replay(v_row, v_row.kind = 'bet' and v_row.amount = p_amount and v_row.currency = p_currency
      and v_row.round_id = p_round_id and v_row.user_id is not distinct from v_caller.user_id, v_caller.user_id,
      v_caller.currency);
  end if;
  v_answer.replayed := false;
  v_answer.session_issued := false;

  select s.id, s.user_id, s.currency, s.demo, s.provider_game_id, s.expires_at, p.status as provider_status,
      u.status as user_status, g.code = p_game and g.status = 1 as game_open
    into v_session
    from game_sessions s
    join providers p on p.id = s.provider_id
    join users u on u.id = s.user_id
    join provider_games g on g.id = s.provider_game_id
    where s.session_token_hash = p_token_hash and s.provider_id = p_provider_id;
  if v_session.id is null and not provider_wallet_enabled(p_provider_id) or v_session.provider_status = 0 then
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
    select b.amount into v_available from balances b
      where b.user_id = v_session.user_id and b.currency = v_session.currency for update;
    v_answer.balance := coalesce(v_available, 0);
    if v_row.id is not null then
      v_answer.outcome := v_row.outcome;
      v_answer.replayed := true;
      v_answer.transaction_ref := v_row.id;
      return v_answer;
    end if;
    if v_session.expires_at <= now() then
      v_answer.outcome := 'TOKEN_EXPIRED';
    elsif v_session.user_status <> 1 then
      v_answer.outcome := 'PLAYER_DISABLED';
    elsif not v_session.game_open then
      v_answer.outcome := 'GAME_NOT_FOUND';
    elsif p_currency <> v_session.currency then
      v_answer.outcome := 'CURRENCY_MISMATCH';
    elsif v_answer.balance < p_amount then
      v_answer.outcome := 'INSUFFICIENT_FUNDS';
    else
      -- A new round, or more stake in an open round of the same player and game.
      insert into provider_bets as r (user_id, provider_id, provider_game_id, round_id, bet_amount, currency)
        values (v_session.user_id, p_provider_id, v_session.provider_game_id, p_round_id, p_amount, v_session.currency)
        on conflict (provider_id, round_id) do update set bet_amount = r.bet_amount + excluded.bet_amount, updated_at = now()
          where r.user_id = excluded.user_id and r.provider_game_id = excluded.provider_game_id and r.status = 0
        returning r.id into v_bet_id;
      if v_bet_id is null then
        select r.* into v_round from provider_bets r where r.provider_id = p_provider_id and r.round_id = p_round_id;
        v_answer.outcome := case when v_round.user_id = v_session.user_id and v_round.provider_game_id = v_session.provider_game_id
          then 'ROUND_CLOSED' else 'ROUND_MISMATCH' end;
      end if;
    end if;
  end if;

  if v_answer.outcome is null then
    if v_session.expires_at < now() + interval '29 minutes' then
      update game_sessions s set expires_at = now() + interval '30 minutes' where s.id = v_session.id;
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

-- win: as before, except that a replay is answered for the player of the bet it names (the
-- same bet id, hence the same player, or DUPLICATE_MISMATCH), and that the payload is stored
-- redacted. A replay is answered for the named bet's player, so that bet is read (and its player
-- locked) first, and the call's id is looked up once, under the lock: a delivery of this call
-- that was running meanwhile has committed by then. (The first version looked before the lock,
-- to answer a replay without it, and again after.)
create or replace function provider_wallet_win(
  p_provider_id bigint,
  p_transaction_id text,
  p_bet_transaction_id text,
  p_round_id text,
  p_amount bigint,
  p_currency text,
  p_round_closed boolean,
  p_payload text
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_row provider_transactions;
  v_bet provider_transactions;
begin
  v_bet := provider_wallet_named_bet(p_provider_id, p_bet_transaction_id);
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found then
    return provider_wallet_replay(v_row, v_row.kind = 'win' and v_row.amount = p_amount and v_row.currency = p_currency
      and v_row.bet_transaction_id = p_bet_transaction_id and v_row.round_id = p_round_id
      and v_row.user_id is not distinct from v_bet.user_id, v_bet.user_id, v_bet.currency);
  end if;
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if not provider_wallet_enabled(p_provider_id) then
    v_answer.outcome := 'PROVIDER_DISABLED';
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
    select a.balance_after into v_answer.balance from ledger_apply(v_bet.user_id, v_bet.currency, 'win', p_amount, 'provider_bet',
      v_bet.provider_bet_id, 'Win #' || v_bet.provider_bet_id, 'provider:' || p_provider_id || ':win:' || p_transaction_id) a;
  end if;
  update provider_bets r set win_amount = r.win_amount + p_amount, updated_at = now(),
      status = case when p_round_closed and r.status = 0 then 1 else r.status end,
      settled_at = case when p_round_closed and r.status = 0 then now() else r.settled_at end
    where r.id = v_bet.provider_bet_id;
  insert into provider_transactions as t (provider_id, transaction_id, kind, user_id, provider_bet_id, round_id, bet_transaction_id,
      amount, currency, outcome, payload)
    values (p_provider_id, p_transaction_id, 'win', v_bet.user_id, v_bet.provider_bet_id, p_round_id, p_bet_transaction_id, p_amount,
      p_currency, 'OK', provider_payload_redacted(p_payload::jsonb))
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('win ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;

-- refund: as before, except that a replay is answered for the player of the bet it names, looked
-- up under that player's lock (as a win's), and that the payload is stored redacted.
create or replace function provider_wallet_refund(
  p_provider_id bigint,
  p_transaction_id text,
  p_bet_transaction_id text,
  p_payload text
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_row provider_transactions;
  v_bet provider_transactions;
  v_refunded bigint := 0;
  v_applied record;
begin
  v_bet := provider_wallet_named_bet(p_provider_id, p_bet_transaction_id);
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found then
    return provider_wallet_replay(v_row, v_row.kind = 'refund' and v_row.bet_transaction_id = p_bet_transaction_id
      and v_row.user_id is not distinct from v_bet.user_id, v_bet.user_id, v_bet.currency);
  end if;
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if not provider_wallet_enabled(p_provider_id) then
    v_answer.outcome := 'PROVIDER_DISABLED';
    return v_answer;
  end if;

  if v_bet.user_id is not null then
    v_answer.user_id := v_bet.user_id;
    v_answer.currency := v_bet.currency;
    v_answer.balance := provider_wallet_balance_of(v_bet.user_id, v_bet.currency);
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
    if (select r.win_amount from provider_bets r where r.id = v_bet.provider_bet_id) > 0 then
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
          status = case when r.refund_amount + v_bet.amount = r.bet_amount then 2 else r.status end,
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

-- The first replay rule answered with the recorded call's player; nothing calls it now.
drop function provider_wallet_replay(provider_transactions, boolean);

-- The bodies stored before: every row the rule changes (all bets: they carry their token).
update provider_transactions t set payload = provider_payload_redacted(t.payload)
  where t.payload is not null and t.payload is distinct from provider_payload_redacted(t.payload);
