-- Derives the players' rows of player_standing (migrations/20261130090000_player_standing.sql)
-- from the sources, which stay the record: the limit rows as they are (value, pending value and
-- when it takes over), the latest end of a self-exclusion ('infinity': permanent), the
-- identity's CPF and whether the national list holds it (the one place that rule is written;
-- db/functions/player_standing_listed.sql follows the list's own changes). Run by the triggers of
-- db/functions/player_standing_sync.sql after every change of a source, and by the migration for
-- the rows before them.
-- The rows are locked before the sources are read, and each statement of a PL/pgSQL body reads
-- what is committed when it starts: a concurrent change of another source of the same player
-- (a limit and a self-exclusion at once) waits for the lock, then derives from both.
create or replace function player_standing_refresh(p_users bigint[]) returns void language plpgsql as $$
begin
  insert into player_standing (user_id) select distinct u from unnest(p_users) u order by u on conflict do nothing;
  perform 1 from player_standing s where s.user_id = any(p_users) order by s.user_id for update;
  update player_standing s set
      cpf = (select i.cpf from user_identities i where i.user_id = s.user_id),
      listed = exists (select 1 from user_identities i join national_exclusions n on n.cpf = i.cpf where i.user_id = s.user_id),
      excluded_until = (select max(coalesce(x.until, 'infinity'::timestamptz)) from self_exclusions x where x.user_id = s.user_id),
      (loss_daily, loss_daily_pending, loss_daily_pending_at) =
        (select l.value, l.pending_value, l.pending_at from user_limits l where l.user_id = s.user_id and l.field = 'loss_daily'),
      (loss_weekly, loss_weekly_pending, loss_weekly_pending_at) =
        (select l.value, l.pending_value, l.pending_at from user_limits l where l.user_id = s.user_id and l.field = 'loss_weekly'),
      (loss_monthly, loss_monthly_pending, loss_monthly_pending_at) =
        (select l.value, l.pending_value, l.pending_at from user_limits l where l.user_id = s.user_id and l.field = 'loss_monthly'),
      (session_minutes, session_minutes_pending, session_minutes_pending_at) =
        (select l.value, l.pending_value, l.pending_at from user_limits l where l.user_id = s.user_id and l.field = 'session_minutes')
    where s.user_id = any(p_users);
end;
$$;
