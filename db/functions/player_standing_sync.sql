-- Keeps player_standing (migrations/20261130090000_player_standing.sql) derived from its
-- sources: after any insert, update or delete of a limit row, a self-exclusion or an identity,
-- the players the changed rows name are derived again (player_standing_refresh), in the same
-- transaction. Per statement, from its transition tables: an import or a backfill of many rows
-- derives each player once.
create or replace function player_standing_sync() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform player_standing_refresh(array(select n.user_id from new_rows n));
  elsif tg_op = 'DELETE' then
    perform player_standing_refresh(array(select o.user_id from old_rows o));
  else
    perform player_standing_refresh(array(select n.user_id from new_rows n union select o.user_id from old_rows o));
  end if;
  return null;
end;
$$;
-- The tables are made by migrations, and a function file is applied to a database at whatever
-- migration it stands: the triggers are created where player_standing exists (always so once
-- migrated to the end). A trigger with transition tables serves one event, hence three a table.
do $$
declare
  v_table text;
begin
  if to_regclass('player_standing') is not null then
    foreach v_table in array array['user_limits', 'self_exclusions', 'user_identities'] loop
      execute format('create or replace trigger %I after insert on %I referencing new table as new_rows
        for each statement execute function player_standing_sync()', v_table || '_standing_insert', v_table);
      execute format('create or replace trigger %I after update on %I referencing old table as old_rows new table as new_rows
        for each statement execute function player_standing_sync()', v_table || '_standing_update', v_table);
      execute format('create or replace trigger %I after delete on %I referencing old table as old_rows
        for each statement execute function player_standing_sync()', v_table || '_standing_delete', v_table);
    end loop;
  end if;
end;
$$;
