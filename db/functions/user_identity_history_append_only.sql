-- An identity's history is a record the regulator may ask for (five years, docs/regulation.md):
-- every submission and decision is a new row, never an edit or a delete.
create or replace function user_identity_history_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'user_identity_history is append-only (% refused)', tg_op using errcode = '55000';
end;
$$;
-- The table is made by migrations/20261128200000_identities.sql, and a function file is applied to a
-- database at whatever migration it stands (the tests of older migrations stop before that one):
-- the triggers are created where their table exists, which is always so once migrated to the end.
do $$
begin
  if to_regclass('user_identity_history') is not null then
    create or replace trigger user_identity_history_no_update before update or delete on user_identity_history
      for each row execute function user_identity_history_append_only();
    create or replace trigger user_identity_history_no_truncate before truncate on user_identity_history
      for each statement execute function user_identity_history_append_only();
  end if;
end;
$$;
