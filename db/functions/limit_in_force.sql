-- THE rule of a limit with a pending change (docs/regulation.md): a raise or a removal waits in
-- `pending_value` until `pending_at`, and from that instant it is the limit in force, without a
-- job applying it. Every reader asks this function, so all agree at every instant: the stake's
-- and the top-up's checks (responsible_gambling_refusal, deposit_limit_refusal) and the limits
-- view and its updates (src/modules/limits/repository.ts, with the service's clock as p_now).
-- Polymorphic, so limit_in_force(false, true, pending_at, now) says whether the pending change
-- is in force. Immutable language sql: the planner inlines it, so the bet's check costs what the
-- same expression written in place would.
create or replace function limit_in_force(
  p_value anyelement,
  p_pending_value anyelement,
  p_pending_at timestamptz,
  p_now timestamptz
) returns anyelement language sql immutable as $$
  select case when p_pending_at <= p_now then p_pending_value else p_value end
$$;
