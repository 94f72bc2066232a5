-- The ledger is history: corrections are new rows, never edits. The triggers live here, with
-- the function they run, so changing either applies both.
create or replace function ledger_entries_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'ledger_entries is append-only (% refused)', tg_op using errcode = '55000';
end;
$$;
create or replace trigger ledger_entries_no_update before update or delete on ledger_entries
  for each row execute function ledger_entries_append_only();
create or replace trigger ledger_entries_no_truncate before truncate on ledger_entries
  for each statement execute function ledger_entries_append_only();
