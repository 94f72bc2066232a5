-- Expiry is derived, not stored: a pending top-up older than 24 hours reads as expired. Every
-- reader and the paid path ask this one function, so they agree at every instant. The codes are
-- passed in from their one declaration, TOPUP_STATUSES (src/modules/topups/repository.ts).
create or replace function topup_status(status smallint, created_at timestamptz, p_pending smallint, p_expired smallint)
returns integer language sql stable as $$
  select case when status = p_pending and created_at < now() - interval '24 hours' then p_expired else status end
$$;
