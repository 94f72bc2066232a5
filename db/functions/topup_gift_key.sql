-- The ledger key of a top-up's gift line: pay_topup writes it, the top-up record reads the
-- gift back through it.
create or replace function topup_gift_key(topup_id bigint) returns text
language sql immutable as $$
  select 'topup:' || topup_id::text || ':gift'
$$;
