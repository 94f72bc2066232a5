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

-- The day that is not closed yet (today) is computed on each request, from its ledger lines by
-- created_at. The ledger's B-tree on created_at was dropped (20261123100200: an entry per line on
-- the hottest insert path), so a day's lines meant reading the whole ledger. A BRIN index keeps
-- only each range of 32 pages' lowest and highest created_at: the ledger is append-only and
-- written in time order, so a day is a few ranges; an insert into the last range, not summarised
-- yet, writes nothing to the index, and autosummarize summarises a range once it is full (the
-- cost on the money path is measured in docs/decisions/0008). Exact, as any index: a range whose
-- summary might hold the day is read and its lines filtered.
create index ledger_entries_created_brin on ledger_entries using brin (created_at) with (pages_per_range = 32, autosummarize = on);
create index pix_payments_created_brin on pix_payments using brin (created_at) with (pages_per_range = 32, autosummarize = on);

-- What report_day_totals reads beside the ledger, for the day it computes live (today): the
-- day's registrations and paid withdrawals. Neither is on a money path's hot write (a
-- registration, a completed payout).
create index users_created_idx on users (created_at);
create index withdrawals_paid_idx on withdrawals (paid_at) where status = 2;
