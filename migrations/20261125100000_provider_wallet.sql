-- The seamless wallet (issue 9): a game provider's server moves money through signed callbacks
-- (`balance`, `bet`, `win`, `refund`), each applied exactly once: the rounds, every call's record
-- and the answer type are here; the rules are one function per action in the shape of pay_topup
-- (docs/decisions/0003), each in its file (db/functions/provider_wallet_*.sql): a gate on the
-- call's record plus `ledger_apply`, one round trip per call, the outcome as a row.
--
-- Outcome codes are the wallet's own (docs/games.md, "Seamless wallet"); an adapter words them
-- in its provider's protocol: OK, INVALID_TOKEN, TOKEN_EXPIRED, PLAYER_DISABLED,
-- PROVIDER_DISABLED, GAME_NOT_FOUND, CURRENCY_MISMATCH, INSUFFICIENT_FUNDS, DUPLICATE_MISMATCH,
-- BET_NOT_FOUND, BET_REFUNDED, BET_SETTLED, ROUND_MISMATCH, ROUND_CLOSED.

-- One row per game round (docs/api.md section 5, "Provider bet"): what was staked, won and
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
