-- Games (issue 9): game providers and their games, in-house games, and the game sessions a
-- launch opens. The seamless wallet's rounds and transactions come in the next migration.

-- A provider whose games run on its own servers and move money through our seamless wallet.
-- `adapter` names the code that speaks its protocol (the built-in `demo` when none is given).
-- `wallet_secret` is the key its callbacks are signed with: write-only, kept encrypted with the
-- app key (it must be read back to verify an HMAC, so it cannot be hashed).
create table providers (
  id bigint generated always as identity primary key,
  name text not null check (length(name) between 1 and 255),
  code text not null check (code ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and code ~ '[a-z]' and length(code) <= 64),
  sort integer not null default 0,
  status smallint not null default 1 check (status in (0, 1)),
  adapter text not null default 'demo' check (adapter ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(adapter) <= 64),
  wallet_secret text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint providers_code_unique unique (code)
);
create index providers_sort_idx on providers (sort, id);

create table provider_games (
  id bigint generated always as identity primary key,
  provider_id bigint not null references providers (id) on delete restrict,
  name text not null check (length(name) between 1 and 255),
  slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and slug ~ '[a-z]' and length(slug) <= 255),
  -- The game's code at the provider (the interface allows a string or a number; kept as text).
  code text not null check (length(code) between 1 and 255),
  category_id bigint not null default 0 check (category_id >= 0),
  free smallint not null default 0 check (free in (0, 1)),
  thumbnail text,
  sort integer not null default 0,
  popular smallint not null default 0 check (popular in (0, 1)),
  status smallint not null default 1 check (status in (0, 1)),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint provider_games_slug_unique unique (slug)
);
-- The customer catalogue reads a provider's enabled games in `sort` order.
create index provider_games_provider_sort_idx on provider_games (provider_id, sort, id);

-- In-house games (the draw games of issue 10 choose a `type` and its `settings`).
-- Status: 0 disabled, 1 enabled, 2 maintenance (no new bets, draws go on).
create table games (
  id bigint generated always as identity primary key,
  name text not null check (length(name) between 1 and 255),
  code text not null check (code ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and code ~ '[a-z]' and length(code) <= 64),
  type text not null check (type ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(type) <= 64),
  status smallint not null default 1 check (status in (0, 1, 2)),
  sort integer not null default 0,
  settings jsonb not null default '{}' check (jsonb_typeof(settings) = 'object'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint games_code_unique unique (code)
);

-- What a launch opens: a single-use launch token (redeemed once by the provider, shortly after
-- the launch) that becomes a game session bound to user, game and currency. Bets need a live
-- session; wins and refunds do not (they may arrive after it ended). Tokens are stored as
-- SHA-256 digests only.
create table game_sessions (
  id bigint generated always as identity primary key,
  launch_token_hash text not null,
  session_token_hash text,
  user_id bigint not null references users (id) on delete restrict,
  provider_id bigint not null references providers (id) on delete restrict,
  provider_game_id bigint not null references provider_games (id) on delete restrict,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- A demo launch moves no money: the wallet refuses its money calls.
  demo boolean not null default false,
  launch_expires_at timestamptz not null,
  redeemed_at timestamptz,
  -- The session's end, moved forward by each accepted bet.
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  constraint game_sessions_launch_token_unique unique (launch_token_hash),
  constraint game_sessions_session_token_unique unique (session_token_hash)
);
create index game_sessions_created_idx on game_sessions (created_at);
