-- Undoes the whole call when a concurrent delivery of it recorded first: the serialization
-- failure code makes the caller try again (src/platform/db/client.ts, retrying), and the second
-- try finds the first's record.
create or replace function provider_wallet_abort(p_reason text) returns void language plpgsql as $$
begin
  raise exception 'wallet call aborted: %', p_reason using errcode = '40001';
end;
$$;
