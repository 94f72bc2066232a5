-- Draw games (issue 10): draws of the in-house games, the bets on them, and the settlement or
-- refund each bet ends with. docs/draws.md tells the whole story; the money moves only through
-- place_draw_bet, settle_draw and cancel_draw (db/functions/, docs/decisions/0003, 0004).

-- One draw of an in-house game. Status: 0 open (betting), 1 closed (betting over, not drawn yet),
-- 2 drawn (result known, bets being settled), 3 settled, 4 cancelled (bets refunded).
-- The server seed is kept encrypted with the app key until the draw, then revealed in
-- `server_seed` (also on cancel); `seed_hash` (SHA-256 of the seed) is public from the start.
create table draws (
  id bigint generated always as identity primary key,
  game_id bigint not null references games (id) on delete restrict,
  -- The game's type when the draw opened: what its result is read as, even if the game changes type.
  type text not null,
  -- YYYYMMDD-NNNN: the UTC day of the draw and its number that day for the game.
  period text not null check (period ~ '^[0-9]{8}-[0-9]{4,5}$'),
  status smallint not null default 0 check (status between 0 and 4),
  opens_at timestamptz not null,
  closes_at timestamptz not null,
  draw_at timestamptz not null,
  seed_hash text not null check (seed_hash ~ '^[0-9a-f]{64}$'),
  seed_encrypted text,
  server_seed text check (server_seed ~ '^[0-9a-f]{64}$'),
  result jsonb,
  winning jsonb check (jsonb_typeof(winning) = 'array'),
  drawn_at timestamptz,
  settled_at timestamptz,
  cancelled_at timestamptz,
  cancelled_by bigint references users (id) on delete set null,
  cancel_reason text check (length(cancel_reason) <= 255),
  -- Written when the bets are settled or refunded (a running count on every bet would make each
  -- bet wait for the draw row); live figures of an undrawn draw are counted when read.
  bets_count integer not null default 0 check (bets_count >= 0),
  bets_total bigint not null default 0 check (bets_total >= 0),
  payout_total bigint not null default 0 check (payout_total >= 0),
  -- The last bet id settled: settle_draw goes through a draw's bets in id order, in batches.
  settled_through bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint draws_game_period_unique unique (game_id, period),
  constraint draws_times check (opens_at <= closes_at and closes_at <= draw_at),
  -- The seed is either still sealed or revealed, never both, never lost.
  constraint draws_seed_sealed_or_revealed check ((seed_encrypted is null) <> (server_seed is null)),
  constraint draws_revealed check ((server_seed is not null) = (status >= 2)),
  constraint draws_result check ((result is not null) = (status in (2, 3)) and (winning is not null) = (status in (2, 3)))
);
-- A game's history, newest first; the scheduler's due draws; at most one undrawn draw per game.
create index draws_game_idx on draws (game_id, id desc);
create index draws_due_idx on draws (draw_at) where status in (0, 1, 2);
create unique index draws_one_undrawn_per_game on draws (game_id) where status in (0, 1);
alter table draws set (fillfactor = 80);

-- A bet on one selection of one draw. Written once and never changed: what became of it is its
-- settlement (won or lost) or its refund, each keyed by the bet's id. `odds` are the decimal odds
-- in hundredths in force when it was placed.
create table draw_bets (
  id bigint generated always as identity primary key,
  draw_id bigint not null references draws (id) on delete restrict,
  game_id bigint not null references games (id) on delete restrict,
  user_id bigint not null references users (id) on delete restrict,
  selection text not null check (selection ~ '^[a-z0-9_]{1,32}$'),
  amount bigint not null check (amount > 0),
  odds integer not null check (odds between 101 and 1000000),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- The client's Idempotency-Key and a digest of what it asked, to answer a retry with the first bet.
  request_key text,
  request_digest text,
  created_at timestamptz not null default now(),
  constraint draw_bets_request_digest check ((request_key is null) = (request_digest is null))
);
create index draw_bets_draw_idx on draw_bets (draw_id, id);
create index draw_bets_user_idx on draw_bets (user_id, id desc);
create unique index draw_bets_request_key_unique on draw_bets (user_id, request_key) where request_key is not null;

-- What a drawn bet came to: one row per bet (its id is the bet's), status 1 won (payout = odds ×
-- amount, half-up to the cent, credited by a `win` line keyed `draw-bet:<id>:win`) or 2 lost
-- (payout 0). draw, game and user are the bet's, copied so a record reads alone; admin filters on
-- them go through the bet's indexes, so settling writes no index here but the key. No foreign
-- key: rows are written only by settle_draw from the bet rows it reads in the same statement
-- (bets are never deleted), and a check per row would cost a fifth of a settlement.
create table draw_settlements (
  id bigint primary key,
  draw_id bigint not null,
  game_id bigint not null,
  user_id bigint not null,
  currency text not null,
  amount bigint not null check (amount > 0),
  payout bigint not null check (payout >= 0),
  status smallint not null check (status in (1, 2)),
  created_at timestamptz not null default now(),
  constraint draw_settlements_payout check ((status = 1) = (payout > 0))
);

-- A bet of a cancelled draw, given back: one row per bet (its id is the bet's), credited by a
-- `bet_refund` line keyed `draw-bet:<id>:refund`. Written only by cancel_draw, from the bets.
create table draw_refunds (
  id bigint primary key,
  draw_id bigint not null,
  game_id bigint not null,
  user_id bigint not null,
  currency text not null,
  amount bigint not null check (amount > 0),
  created_at timestamptz not null default now()
);
