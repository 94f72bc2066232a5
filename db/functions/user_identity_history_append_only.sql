-- An identity's history is a record the regulator may ask for (five years, docs/regulation.md):
-- every submission and decision is a new row, never an edit or a delete.
create or replace function user_identity_history_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'user_identity_history is append-only (% refused)', tg_op using errcode = '55000';
end;
$$;
-- Its triggers are in migrations/20261128200000_identities.sql, beside the table: a function file
-- is applied to databases at any migration, and a trigger needs its table.
