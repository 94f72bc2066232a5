-- Keeps player_standing.listed (migrations/20261130090000_player_standing.sql) true exactly for
-- the players whose CPF the national list holds, as `croupier exclusions:import` replaces the
-- list (src/modules/limits/national-list.ts: a delete, then inserts, in one transaction): per
-- statement, only the CPFs it removed or added, through the standing's index on cpf. A CPF that
-- leaves and comes back in one import is cleared, then set again. An identity's own change of
-- CPF is derived by player_standing_refresh.
create or replace function player_standing_listed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update player_standing s set listed = true from new_rows n where s.cpf = n.cpf and not s.listed;
  elsif tg_op = 'DELETE' then
    update player_standing s set listed = false from old_rows o where s.cpf = o.cpf and s.listed;
  elsif tg_op = 'UPDATE' then
    update player_standing s set listed = false from old_rows o where s.cpf = o.cpf and s.listed;
    update player_standing s set listed = true from new_rows n where s.cpf = n.cpf and not s.listed;
  else
    update player_standing s set listed = false where s.listed;
  end if;
  return null;
end;
$$;
-- Where player_standing exists (the function file may be applied to a database at an older migration).
do $$
begin
  if to_regclass('player_standing') is not null then
    create or replace trigger national_exclusions_standing_insert after insert on national_exclusions
      referencing new table as new_rows for each statement execute function player_standing_listed();
    create or replace trigger national_exclusions_standing_update after update on national_exclusions
      referencing old table as old_rows new table as new_rows for each statement execute function player_standing_listed();
    create or replace trigger national_exclusions_standing_delete after delete on national_exclusions
      referencing old table as old_rows for each statement execute function player_standing_listed();
    create or replace trigger national_exclusions_standing_truncate after truncate on national_exclusions
      for each statement execute function player_standing_listed();
  end if;
end;
$$;
