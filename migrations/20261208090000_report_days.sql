-- The totals of closed São Paulo days, kept once (docs/decisions/0008): the dashboard
-- (GET /api/admin/stats) reads a month as 30 rows instead of adding up a month of ledger lines
-- on each request, and the daily report reads the same rows, so both show one set of figures.
-- `totals` is what db/functions/report_day_totals.sql answered for the day; `rule_hash` the hash
-- schema_functions recorded for that file then: a row whose hash is no longer the current one is
-- ignored and computed again, so changing the rule voids every kept day without a migration.
-- A day is kept only once no transaction that began before its end can still write a line into
-- it (src/modules/reports/day-totals.ts): ledger lines are stamped with their transaction's
-- now() and never change afterwards (db/functions/ledger_entries_append_only.sql).
create table report_days (
  day date not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  rule_hash text not null,
  totals jsonb not null,
  computed_at timestamptz not null default now(),
  primary key (day, currency)
);

-- What report_day_totals reads beside the ledger, for the day it computes live (today): the
-- day's registrations and paid withdrawals. Neither is on a money path's hot write (a
-- registration, a completed payout).
create index users_created_idx on users (created_at);
create index withdrawals_paid_idx on withdrawals (paid_at) where status = 2;
