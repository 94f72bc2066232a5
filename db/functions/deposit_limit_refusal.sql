-- THE deposit limit check of a new top-up (REGULATION=br, docs/api.md section 14,
-- docs/regulation.md), in the transaction that then writes the top-up: the player's deposit
-- limit rows are locked first, so two top-ups created at once are decided one after the other.
-- What counts is the window's top-ups that are paid or still pending (topup_status: an expired
-- one no longer counts), by their creation, in São Paulo's calendar at p_now; p_amount is the
-- new one. Answers null when it fits, otherwise the window ('daily' | 'weekly' | 'monthly')
-- with the least left, its limit and what is left, in cents. Limits in force at p_now
-- (limit_in_force).
create or replace function deposit_limit_refusal(
  p_user_id bigint,
  p_amount bigint,
  p_now timestamptz,
  p_pending smallint,
  p_paid smallint,
  p_expired smallint,
  out period text,
  out limit_cents bigint,
  out left_cents bigint
) language plpgsql as $$
declare
  v_day timestamp := date_trunc('day', p_now at time zone 'America/Sao_Paulo');
  v_limit record;
  v_used bigint;
begin
  for v_limit in
    select l.field, limit_in_force(l.value, l.pending_value, l.pending_at, p_now) as v
      from user_limits l where l.user_id = p_user_id and l.field like 'deposit\_%'
      order by l.field for update
  loop
    continue when v_limit.v is null;
    select coalesce(sum(t.amount), 0) into v_used from topups t
      where t.user_id = p_user_id
        and t.created_at >= (case v_limit.field
          when 'deposit_daily' then v_day
          when 'deposit_weekly' then date_trunc('week', v_day)
          else date_trunc('month', v_day) end) at time zone 'America/Sao_Paulo'
        and topup_status(t.status, t.created_at, p_pending, p_expired) in (p_pending, p_paid);
    if v_used + p_amount > v_limit.v and (left_cents is null or v_limit.v - v_used < left_cents) then
      period := replace(v_limit.field, 'deposit_', '');
      limit_cents := v_limit.v;
      left_cents := greatest(0, v_limit.v - v_used);
    end if;
  end loop;
end;
$$;
