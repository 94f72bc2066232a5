-- Regulated mode, part 2 (docs/api.md section 14, docs/regulation.md): responsible gambling.
--
-- Limits: one row per player and limit. `value` is the limit in force (null: none); a raise or a
-- removal waits 24 hours in `pending_value`/`pending_at` and takes over by itself once
-- `pending_at` has passed: every reader computes the limit in force as
-- `case when pending_at <= now then pending_value else value end`, so no job has to run on time.
create table user_limits (
  user_id bigint not null references users (id),
  field text not null check (field in ('deposit_daily', 'deposit_weekly', 'deposit_monthly', 'loss_daily', 'loss_weekly',
    'loss_monthly', 'session_minutes')),
  value bigint check (value > 0),
  pending_value bigint check (pending_value > 0),
  pending_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (user_id, field)
);

-- Self-exclusions, one row per request, never updated or deleted (kept five years: IN 31/2025);
-- a player is excluded while any row is permanent or ends later than now.
create table self_exclusions (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id),
  until timestamptz,
  permanent boolean not null,
  created_at timestamptz not null default now(),
  check (permanent = (until is null))
);
create index self_exclusions_user_idx on self_exclusions (user_id, until desc);

-- The government's central self-exclusion list as last imported (`croupier exclusions:import`):
-- CPFs, 11 digits. An import replaces the whole list in one transaction.
create table national_exclusions (
  cpf text primary key
);

-- The net loss of each window (stakes − wins − refunds, in cents), kept on the balance row that
-- ledger_apply updates anyway: the loss limit is checked with that row locked, so parallel bets
-- are decided one after another on the true figure. A window's figure counts from the day,
-- week (Monday) or month it names, in São Paulo's calendar; an older one reads as 0.
alter table balances
  add column loss_day date,
  add column loss_day_net bigint not null default 0,
  add column loss_week date,
  add column loss_week_net bigint not null default 0,
  add column loss_month date,
  add column loss_month_net bigint not null default 0;

-- place_draw_bet gains the regulated flag and the refusal's details (out columns change the
-- result type, which `create or replace` cannot do): the file db/functions/place_draw_bet.sql
-- creates the new one.
drop function if exists place_draw_bet(bigint, bigint, text, jsonb, bigint, text, bigint, integer, text, timestamptz, text, text, smallint);

-- When the signed-in session a game session was opened from ends (session_minutes after sign-in,
-- REGULATION=br): its bets are refused from then on (provider_wallet_bet). Null: no such end.
alter table game_sessions add column ends_at timestamptz;
