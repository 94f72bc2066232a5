-- Settings versions are history like the ledger: never edited, never deleted, so what was
-- computed with a version (a top-up records its versions) keeps its meaning.
create or replace function settings_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'settings versions are append-only (% refused)', tg_op using errcode = '55000';
end;
$$;
create or replace trigger settings_no_update before update or delete on settings
  for each row execute function settings_append_only();
