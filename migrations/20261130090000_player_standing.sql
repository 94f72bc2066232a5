-- What the responsible-gambling check of a stake reads (REGULATION=br, docs/regulation.md), on
-- one row per player: responsible_gambling_refusal ran on every bet and read it from five tables
-- in eight index probes (the exclusions, the identity, the national list, four limit rows, the
-- balance), most of the regulated bet's cost (docs/benchmarks.md). The row is derived, never
-- written by the application: db/functions/player_standing_refresh.sql derives it from the
-- sources, which stay the record (user_limits with its pending changes, self_exclusions,
-- user_identities), and db/functions/player_standing_sync.sql runs that in the same transaction
-- as every change of a source, so the check can never read a standing older than its sources.
--
-- The limits keep their pending form (`pending_at` passed: `pending` is in force), so a raise
-- still takes over by itself after 24 hours, without a job. `excluded_until` is the end of the
-- latest self-exclusion, 'infinity' for a permanent one, null for none. `cpf` is the identity's,
-- whatever its status; `listed` says it is on the national list (kept by
-- db/functions/player_standing_listed.sql as the list is imported). Being derived, not a record,
-- the row goes with its user (the sources' own foreign keys keep a user who has any).
create table player_standing (
  user_id bigint primary key references users (id) on delete cascade,
  cpf text,
  listed boolean not null default false,
  excluded_until timestamptz,
  loss_daily bigint,
  loss_daily_pending bigint,
  loss_daily_pending_at timestamptz,
  loss_weekly bigint,
  loss_weekly_pending bigint,
  loss_weekly_pending_at timestamptz,
  loss_monthly bigint,
  loss_monthly_pending bigint,
  loss_monthly_pending_at timestamptz,
  session_minutes bigint,
  session_minutes_pending bigint,
  session_minutes_pending_at timestamptz
);
create index player_standing_cpf_idx on player_standing (cpf);

-- Every player a source names. The sources are locked until this transaction ends (it also
-- creates the triggers, after the migrations): a change made by a running instance meanwhile
-- waits, then goes through the trigger, and none falls between the backfill and the trigger.
lock table user_limits, self_exclusions, user_identities, national_exclusions in share row exclusive mode;
select player_standing_refresh(array(
  select user_id from user_limits union select user_id from self_exclusions union select user_id from user_identities));
