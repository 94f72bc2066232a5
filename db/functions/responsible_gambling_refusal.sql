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
  v_day date := (now() at time zone 'America/Sao_Paulo')::date;
  v record;
  v_left bigint;
begin
  -- One statement (a plpgsql statement per rule would cost a bet several executor starts): the
  -- exclusion in force, the listing, the limits in force and the window's net losses.
  select
      (select x.until from self_exclusions x where x.user_id = p_user_id and (x.permanent or x.until > p_now)
        order by x.permanent desc, x.until desc limit 1) as excluded_until,
      exists (select 1 from self_exclusions x where x.user_id = p_user_id and (x.permanent or x.until > p_now)) as excluded,
      exists (select 1 from user_identities i join national_exclusions n on n.cpf = i.cpf where i.user_id = p_user_id) as listed,
      l.daily, l.weekly, l.monthly, l.minutes,
      case when b.loss_day = v_day then b.loss_day_net else 0 end as net_daily,
      case when b.loss_week = date_trunc('week', v_day)::date then b.loss_week_net else 0 end as net_weekly,
      case when b.loss_month = date_trunc('month', v_day)::date then b.loss_month_net else 0 end as net_monthly,
      b.id as balance_id
    into v
    from (select max(e.v) filter (where e.field = 'loss_daily') as daily, max(e.v) filter (where e.field = 'loss_weekly') as weekly,
        max(e.v) filter (where e.field = 'loss_monthly') as monthly, max(e.v) filter (where e.field = 'session_minutes') as minutes
      from (select l.field, case when l.pending_at <= p_now then l.pending_value else l.value end as v
        from user_limits l where l.user_id = p_user_id) e) l
    left join balances b on b.user_id = p_user_id and b.currency = p_currency;
  if v.excluded then
    reason := 'self_excluded';
    until := v.excluded_until;
    return;
  end if;
  if v.listed then
    reason := 'listed';
    return;
  end if;
  if v.minutes is null or coalesce(v.daily, v.weekly, v.monthly) is null then
    reason := 'limits_unset';
    return;
  end if;
  if p_amount is null or v.balance_id is null then
    return;
  end if;
  if v.daily is not null and v.net_daily + p_amount > v.daily then
    v_left := greatest(0, v.daily - v.net_daily);
    reason := 'loss_limit'; period := 'daily'; limit_cents := v.daily; left_cents := v_left;
  end if;
  if v.weekly is not null and v.net_weekly + p_amount > v.weekly
      and (v_left is null or v.weekly - v.net_weekly < v_left) then
    v_left := greatest(0, v.weekly - v.net_weekly);
    reason := 'loss_limit'; period := 'weekly'; limit_cents := v.weekly; left_cents := v_left;
  end if;
  if v.monthly is not null and v.net_monthly + p_amount > v.monthly
      and (v_left is null or v.monthly - v.net_monthly < v_left) then
    v_left := greatest(0, v.monthly - v.net_monthly);
    reason := 'loss_limit'; period := 'monthly'; limit_cents := v.monthly; left_cents := v_left;
  end if;
end;
$$;
