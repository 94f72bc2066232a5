-- The seamless wallet (issue 9): a game provider's server moves money through signed callbacks
-- (`balance`, `bet`, `win`, `refund`), each applied exactly once. The rules are written once,
-- here, as one function per action in the shape of pay_topup (docs/decisions/0003): a gate on
-- the call's record plus `ledger_apply`, one round trip per call, the outcome as a row.
--
-- Outcome codes are the wallet's own (docs/games.md, "Seamless wallet"); an adapter words them
-- in its provider's protocol: OK, INVALID_TOKEN, TOKEN_EXPIRED, PLAYER_DISABLED,
-- PROVIDER_DISABLED, GAME_NOT_FOUND, CURRENCY_MISMATCH, INSUFFICIENT_FUNDS, DUPLICATE_MISMATCH,
-- BET_NOT_FOUND, BET_REFUNDED, BET_SETTLED, ROUND_MISMATCH, ROUND_CLOSED.

-- One row per game round (contract section 5, "Provider bet"): what was staked, won and
-- refunded in it. Status 0 open, 1 settled (a win closed it), 2 refunded (every bet of it).
--
-- No foreign keys, here or in provider_transactions, on the bet path: a key check share-locks
-- the parent row on every insert, a write of its own (WAL) on each bet, and every bet of one game
-- or provider would lock the same row (the ledger dropped its users key for the same reason,
-- 20261123100100). What they would guard is guarded already: a round's player has a balance with
-- the round's `bet` line, and a balance keeps its user from being deleted; its provider and game
-- are named by the game session the bet came through, which keeps them from being deleted; a
-- transaction's round is written by the same call; rounds and transactions are never deleted.
create table provider_bets (
  id bigint generated always as identity primary key,
  user_id bigint not null,
  provider_id bigint not null,
  provider_game_id bigint not null,
  round_id text not null check (length(round_id) between 1 and 100),
  bet_amount bigint not null check (bet_amount > 0),
  win_amount bigint not null default 0 check (win_amount >= 0),
  -- Stakes given back by refunds; the round is refunded (2) when it reaches bet_amount.
  refund_amount bigint not null default 0 check (refund_amount >= 0 and refund_amount <= bet_amount),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  status smallint not null default 0 check (status in (0, 1, 2)),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  settled_at timestamptz,
  constraint provider_bets_round_unique unique (provider_id, round_id),
  constraint provider_bets_settled check ((status = 0) = (settled_at is null))
);
-- The player's list; the admin filters by provider use the round key's first column.
create index provider_bets_user_idx on provider_bets (user_id, id desc);
-- A win or a refund changes only unindexed columns: room for the update in place (HOT).
alter table provider_bets set (fillfactor = 85);

-- Every money call, by the provider's transaction id: what it asked (the raw signed body, kept
-- for disputes), what we answered, and the round it belongs to. The unique key is the
-- exactly-once gate: a replay finds the first row and answers its outcome.
--  * A bet is recorded whatever its outcome (a refused bet stays refused: the game voided it).
--  * A win or a refund is recorded only when accepted, so a retry after the cause went away
--    (its bet arrived late, the provider was enabled again) is applied then.
--  * A refund of a bet we never saw writes a tombstone for that bet's id (kind 'bet', outcome
--    BET_REFUNDED, no amount, no payload): the bet, if it ever arrives, finds it and is refused.
create table provider_transactions (
  id bigint generated always as identity primary key,
  provider_id bigint not null,
  transaction_id text not null check (length(transaction_id) between 1 and 100),
  kind text not null check (kind in ('bet', 'win', 'refund')),
  user_id bigint,
  provider_bet_id bigint,
  round_id text,
  -- The bet a win or a refund names.
  bet_transaction_id text,
  -- Cents: a bet's stake, a win's amount, the stake a refund gave back (0 when it moved nothing).
  amount bigint check (amount >= 0),
  currency text,
  outcome text not null,
  payload jsonb,
  created_at timestamptz not null default now(),
  constraint provider_transactions_unique unique (provider_id, transaction_id)
);
-- The admin detail of a round lists its transactions.
create index provider_transactions_bet_idx on provider_transactions (provider_bet_id) where provider_bet_id is not null;

-- What every wallet function answers. balance: cents, the player's balance after the call (or
-- now, for a refusal or a replay); null with user_id when no player is known.
-- transaction_ref: our id of the recorded call. session_issued: the balance call redeemed a
-- launch token and stored the session token hash it was given.
create type provider_wallet_answer as (
  outcome text,
  replayed boolean,
  user_id bigint,
  currency text,
  balance bigint,
  transaction_ref bigint,
  session_issued boolean
);

create function provider_wallet_balance_of(p_user_id bigint, p_currency text) returns bigint
language sql stable as $$
  select coalesce((select b.amount from balances b where b.user_id = p_user_id and b.currency = p_currency), 0)
$$;

-- A call whose transaction id is already recorded: the first outcome with the current balance,
-- or DUPLICATE_MISMATCH when the same id now asks for something else. Nothing moves.
create function provider_wallet_replay(p_row provider_transactions, p_same boolean) returns provider_wallet_answer
language sql stable as $$
  select case when p_same then p_row.outcome else 'DUPLICATE_MISMATCH' end, true, p_row.user_id, p_row.currency,
    case when p_row.user_id is null then null else provider_wallet_balance_of(p_row.user_id, p_row.currency) end,
    p_row.id, false
$$;

-- Undoes the whole call when a concurrent delivery of it recorded first: the serialization
-- failure code makes the caller try again (src/platform/db/client.ts, retrying), and the second
-- try finds the first's record.
create function provider_wallet_abort(p_reason text) returns void language plpgsql as $$
begin
  raise exception 'wallet call aborted: %', p_reason using errcode = '40001';
end;
$$;

create function provider_wallet_enabled(p_provider_id bigint) returns boolean
language sql stable as $$
  select exists (select 1 from providers p where p.id = p_provider_id and p.status = 1)
$$;

-- balance {token}: the token is a launch token (redeemed once, before launch_expires_at: the
-- session token whose hash the caller passes becomes the session's) or a live session token.
-- Demo sessions move no money and are not the wallet's: every call with their tokens is
-- INVALID_TOKEN.
create function provider_wallet_balance(p_provider_id bigint, p_token_hash text, p_new_session_hash text)
returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_session game_sessions;
  v_launch boolean;
begin
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if not provider_wallet_enabled(p_provider_id) then
    v_answer.outcome := 'PROVIDER_DISABLED';
    return v_answer;
  end if;
  select s.* into v_session from game_sessions s
    where s.provider_id = p_provider_id and (s.launch_token_hash = p_token_hash or s.session_token_hash = p_token_hash);
  v_launch := found and v_session.launch_token_hash = p_token_hash;
  if v_session.id is null or v_session.demo or (v_launch and v_session.redeemed_at is not null) then
    v_answer.outcome := 'INVALID_TOKEN';
    return v_answer;
  end if;
  if (v_launch and v_session.launch_expires_at <= now()) or (not v_launch and v_session.expires_at <= now()) then
    v_answer.outcome := 'TOKEN_EXPIRED';
    return v_answer;
  end if;
  v_answer.user_id := v_session.user_id;
  v_answer.currency := v_session.currency;
  v_answer.balance := provider_wallet_balance_of(v_session.user_id, v_session.currency);
  if (select u.status from users u where u.id = v_session.user_id) <> 1 then
    v_answer.outcome := 'PLAYER_DISABLED';
    return v_answer;
  end if;
  if v_launch then
    -- Of two redemptions of one token, one updates the row; the other finds it redeemed.
    update game_sessions s set redeemed_at = now(), session_token_hash = p_new_session_hash
      where s.id = v_session.id and s.redeemed_at is null;
    if not found then
      return (('INVALID_TOKEN', false, null, null, null, null, false)::provider_wallet_answer);
    end if;
    v_answer.session_issued := true;
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;

-- bet {token, transaction_id, round_id, game, amount, currency}: takes the stake from the
-- balance with one `bet` line (key provider:<provider>:bet:<transaction id>), which also counts
-- it into the withdrawal turnover, and adds it to the round. Refused, and recorded as refused:
-- a token that is not a live money session, a disabled player, a game that is not the
-- session's or is disabled, another currency, a stake above the balance (answered with the
-- balance), a round of another player or game or one already closed, a bet id a refund came
-- before. Each accepted bet moves the session's end forward (at most once a minute, so spins
-- do not rewrite the session row each time).
--
-- The hot path of the wallet: the session, its player, game and provider are read in one
-- statement, and the player's balance row is locked before anything is decided, so the funds
-- check and the round cannot interleave with the player's other calls. Two deliveries of one
-- call both get past the first look only when they run at once; the later one then fails at
-- the unique key and aborts with 40001 (provider_wallet_abort), undoing all it did, and its retry is a
-- replay.
create function provider_wallet_bet(
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
  v_round provider_bets;
  v_available bigint;
  v_bet_id bigint;
begin
  -- A tombstone (no amount) is answered below, with the balance of the token's player.
  select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
  if found and v_row.amount is not null then
    return provider_wallet_replay(v_row, v_row.kind = 'bet' and v_row.amount = p_amount and v_row.currency = p_currency
      and v_row.round_id = p_round_id);
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
      return provider_wallet_replay(v_row, v_row.kind = 'bet');
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
      v_answer.outcome, p_payload::jsonb)
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('bet ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  return v_answer;
end;
$$;

-- The bet a win or a refund names (a row of nulls when there is none). When it has a player,
-- that player's balance row is locked first, as every call of the player does (see
-- provider_wallet_bet), so the caller decides on what is committed.
create function provider_wallet_named_bet(p_provider_id bigint, p_bet_transaction_id text) returns provider_transactions
language plpgsql as $$
declare
  v_bet provider_transactions;
begin
  select t.* into v_bet from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_bet_transaction_id;
  if found and v_bet.user_id is not null then
    perform 1 from balances b where b.user_id = v_bet.user_id and b.currency = v_bet.currency for update;
  end if;
  return v_bet;
end;
$$;

-- win {transaction_id, bet_transaction_id, round_id, amount, currency, round_closed}: credits
-- the amount with one `win` line (key provider:<provider>:win:<transaction id>; none for 0)
-- and adds it to the bet's round; round_closed settles the round. No session is needed: wins
-- arrive after the session ended, and for a player disabled since. Refused (not recorded): an
-- unknown or refused bet, a refunded bet, another round or currency than the bet's.
create function provider_wallet_win(
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
  for attempt in 1..2 loop
    -- The second look is under the player's lock: a delivery of this call that was running
    -- meanwhile has committed now.
    select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
    if found then
      return provider_wallet_replay(v_row, v_row.kind = 'win' and v_row.amount = p_amount and v_row.currency = p_currency
        and v_row.bet_transaction_id = p_bet_transaction_id and v_row.round_id = p_round_id);
    end if;
    exit when attempt = 2;
    v_answer.replayed := false;
    v_answer.session_issued := false;
    if not provider_wallet_enabled(p_provider_id) then
      v_answer.outcome := 'PROVIDER_DISABLED';
      return v_answer;
    end if;
    v_bet := provider_wallet_named_bet(p_provider_id, p_bet_transaction_id);
  end loop;

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
      p_currency, 'OK', p_payload::jsonb)
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('win ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;

-- refund {transaction_id, bet_transaction_id}: gives the named bet's stake back with one
-- `bet_refund` line (key provider:<provider>:bet_refund:<bet transaction id>, so a bet is
-- refunded once whichever refund ids name it). A bet that moved nothing (refused) needs
-- nothing back: OK. A bet never seen: a tombstone is written for its id and the refund is OK.
-- Refused (not recorded): a round that has paid a win, a transaction that is not a bet.
create function provider_wallet_refund(
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
  for attempt in 1..2 loop
    select t.* into v_row from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_transaction_id;
    if found then
      return provider_wallet_replay(v_row, v_row.kind = 'refund' and v_row.bet_transaction_id = p_bet_transaction_id);
    end if;
    exit when attempt = 2;
    v_answer.replayed := false;
    v_answer.session_issued := false;
    if not provider_wallet_enabled(p_provider_id) then
      v_answer.outcome := 'PROVIDER_DISABLED';
      return v_answer;
    end if;
    v_bet := provider_wallet_named_bet(p_provider_id, p_bet_transaction_id);
  end loop;

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
      v_refunded, v_bet.currency, 'OK', p_payload::jsonb)
    on conflict (provider_id, transaction_id) do nothing
    returning t.id into v_answer.transaction_ref;
  if not found then
    perform provider_wallet_abort('refund ' || p_transaction_id || ' was recorded by a concurrent call');
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;
