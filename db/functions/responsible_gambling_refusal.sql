-- THE responsible-gambling check of a wager (REGULATION=br, docs/api.md section 14,
-- docs/regulation.md), called by every path that takes a stake (place_draw_bet,
-- provider_wallet_bet) after it locked the player's balance row, and by launches and top-ups with
-- no stake. Answers null when the player may go on, otherwise why not, first match:
--   'self_excluded' (until: its end; null when permanent), 'listed' (the player's CPF is on the
--   national list), 'limits_unset' (no loss limit or no session time in force: they are
--   mandatory before play), 'loss_limit' (p_amount would take a window's net loss over its
--   limit: period 'daily' | 'weekly' | 'monthly', the limit and what is left, in cents; the
--   window with the least left is named).
-- Limits in force and exclusions are read at p_now (the caller's clock); the net loss windows
-- are those ledger_apply keeps on the balance row, by the database's clock, as it writes them.
-- The balance row is read again here: the caller holds its lock, so concurrent stakes of the
-- player wait and each sees the figure the previous one left (a hard ceiling).
create or replace function responsible_gambling_refusal(
  p_user_id bigint,
  p_currency text,
  p_amount bigint,
  p_now timestamptz,
  out reason text,
  out period text,
  out limit_cents bigint,
  out left_cents bigint,
  out until timestamptz
) language plpgsql as $$
declare
  v_excluded record;
  v_limits record;
  v_nets record;
  v_day date := (now() at time zone 'America/Sao_Paulo')::date;
  v_left bigint;
begin
  select x.permanent, x.until into v_excluded from self_exclusions x
    where x.user_id = p_user_id and (x.permanent or x.until > p_now)
    order by x.permanent desc, x.until desc limit 1;
  if found then
    reason := 'self_excluded';
    until := v_excluded.until;
    return;
  end if;
  if exists (select 1 from user_identities i join national_exclusions n on n.cpf = i.cpf where i.user_id = p_user_id) then
    reason := 'listed';
    return;
  end if;

  select max(e.v) filter (where e.field = 'loss_daily') as daily, max(e.v) filter (where e.field = 'loss_weekly') as weekly,
      max(e.v) filter (where e.field = 'loss_monthly') as monthly, max(e.v) filter (where e.field = 'session_minutes') as minutes
    into v_limits
    from (select l.field, case when l.pending_at <= p_now then l.pending_value else l.value end as v
      from user_limits l where l.user_id = p_user_id) e;
  if v_limits.minutes is null or coalesce(v_limits.daily, v_limits.weekly, v_limits.monthly) is null then
    reason := 'limits_unset';
    return;
  end if;
  if p_amount is null then
    return;
  end if;

  select case when b.loss_day = v_day then b.loss_day_net else 0 end as daily,
      case when b.loss_week = date_trunc('week', v_day)::date then b.loss_week_net else 0 end as weekly,
      case when b.loss_month = date_trunc('month', v_day)::date then b.loss_month_net else 0 end as monthly
    into v_nets
    from balances b where b.user_id = p_user_id and b.currency = p_currency;
  if not found then
    return;
  end if;
  if v_limits.daily is not null and v_nets.daily + p_amount > v_limits.daily then
    v_left := greatest(0, v_limits.daily - v_nets.daily);
    reason := 'loss_limit'; period := 'daily'; limit_cents := v_limits.daily; left_cents := v_left;
  end if;
  if v_limits.weekly is not null and v_nets.weekly + p_amount > v_limits.weekly
      and (v_left is null or v_limits.weekly - v_nets.weekly < v_left) then
    v_left := greatest(0, v_limits.weekly - v_nets.weekly);
    reason := 'loss_limit'; period := 'weekly'; limit_cents := v_limits.weekly; left_cents := v_left;
  end if;
  if v_limits.monthly is not null and v_nets.monthly + p_amount > v_limits.monthly
      and (v_left is null or v_limits.monthly - v_nets.monthly < v_left) then
    v_left := greatest(0, v_limits.monthly - v_nets.monthly);
    reason := 'loss_limit'; period := 'monthly'; limit_cents := v_limits.monthly; left_cents := v_left;
  end if;
end;
$$;
