-- THE responsible-gambling check of a wager (REGULATION=br, docs/api.md section 14,
-- docs/regulation.md), called by every path that takes a stake (place_draw_bet,
-- provider_wallet_bet) with the player's balance row it locked, and by launches and top-ups with
-- no stake. Answers null when the player may go on, otherwise why not, first match:
--   'self_excluded' (until: its end; null when permanent), 'listed' (the player's CPF is on the
--   national list), 'limits_unset' (no loss limit or no session time in force: they are
--   mandatory before play), 'loss_limit' (p_amount would take a window's net loss over its
--   limit: period 'daily' | 'weekly' | 'monthly', the limit and what is left, in cents; the
--   window with the least left is named).
-- Limits in force (limit_in_force) and exclusions are read at p_now (the caller's clock) from
-- the player's row of player_standing, which SQL derives from user_limits, self_exclusions,
-- user_identities and the national list in the same transaction as any change of theirs
-- (db/functions/player_standing_refresh.sql, player_standing_listed.sql). The net loss windows
-- are read from p_balance, the player's balance row as the caller locked it (ledger_apply keeps
-- them there, by the database's clock, as it writes them): concurrent stakes of the player wait
-- for the lock and each sees the figure the previous one left (a hard ceiling). Without a stake
-- (p_amount null) no window is read and p_balance may be null.
-- One index probe (the standing) in one SQL statement, in a stable language-sql function the
-- planner inlines into the caller's query: a bet pays for no function call, no aggregate, no
-- second executor start and no other table (docs/benchmarks.md measured each against the bet's
-- rate).
create or replace function responsible_gambling_refusal(
  p_user_id bigint,
  p_amount bigint,
  p_now timestamptz,
  p_balance balances
) returns table (reason text, period text, limit_cents bigint, left_cents bigint, until timestamptz)
language sql stable as $$
  select
      case when w.excluded then 'self_excluded'
        when w.listed then 'listed'
        when w.minutes is null or coalesce(w.daily, w.weekly, w.monthly) is null then 'limits_unset'
        when w.period is not null then 'loss_limit' end,
      case when w.playable then w.period end,
      case when w.playable then (case w.period when 'daily' then w.daily when 'weekly' then w.weekly when 'monthly' then w.monthly end) end,
      case when w.playable then (case w.period when 'daily' then w.left_day when 'weekly' then w.left_week when 'monthly' then w.left_month end) end,
      case when w.excluded then w.excluded_until end
    from (
      -- The window the stake would take over its limit with the least left, the shortest on a
      -- tie (left_* is null for a window without a limit, or one the stake keeps within it).
      select l.*, not l.excluded and not l.listed and l.minutes is not null as playable,
          case when l.left_day <= coalesce(least(l.left_week, l.left_month), l.left_day) then 'daily'
            when l.left_week <= coalesce(l.left_month, l.left_week) then 'weekly'
            when l.left_month is not null then 'monthly' end as period
        from (
          -- What is left of each window a stake of p_amount would take over its limit; null otherwise.
          select v.*,
              case when v.staked and v.net_day + p_amount > v.daily then greatest(0, v.daily - v.net_day) end as left_day,
              case when v.staked and v.net_week + p_amount > v.weekly then greatest(0, v.weekly - v.net_week) end as left_week,
              case when v.staked and v.net_month + p_amount > v.monthly then greatest(0, v.monthly - v.net_month) end as left_month
            from (
              select coalesce(s.excluded_until > p_now, false) as excluded,
                  case when s.excluded_until <> 'infinity' then s.excluded_until end as excluded_until,
                  coalesce(s.listed, false) as listed,
                  limit_in_force(s.loss_daily, s.loss_daily_pending, s.loss_daily_pending_at, p_now) as daily,
                  limit_in_force(s.loss_weekly, s.loss_weekly_pending, s.loss_weekly_pending_at, p_now) as weekly,
                  limit_in_force(s.loss_monthly, s.loss_monthly_pending, s.loss_monthly_pending_at, p_now) as monthly,
                  limit_in_force(s.session_minutes, s.session_minutes_pending, s.session_minutes_pending_at, p_now) as minutes,
                  p_amount is not null and (p_balance).id is not null as staked,
                  -- A window's figure counts while the day, week (Monday) or month it names is São Paulo's current one.
                  case when (p_balance).loss_day = t.today then (p_balance).loss_day_net else 0 end as net_day,
                  case when (p_balance).loss_week = date_trunc('week', t.today)::date then (p_balance).loss_week_net else 0 end as net_week,
                  case when (p_balance).loss_month = date_trunc('month', t.today)::date then (p_balance).loss_month_net else 0 end as net_month
                from (select (now() at time zone 'America/Sao_Paulo')::date as today) t
                left join player_standing s on s.user_id = p_user_id
              offset 0
            ) v
          offset 0
        ) l
    ) w
$$;
