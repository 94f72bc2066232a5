-- Expiry is derived, not stored: a pending top-up older than 24 hours reads as expired (3).
-- Every reader and the paid path ask this one function, so they agree at every instant.
create or replace function topup_status(status smallint, created_at timestamptz) returns integer
language sql stable as $$
  select case when status = 0 and created_at < now() - interval '24 hours' then 3 else status end
$$;
