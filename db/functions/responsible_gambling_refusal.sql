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
-- One SQL statement, each part one index probe, in a stable language-sql function the planner
-- inlines into the caller's query: a bet pays for no function call, no aggregate and no second
-- executor start (docs/benchmarks.md measured each against the bet callback's rate).
create or replace function responsible_gambling_refusal(
  p_user_id bigint,
  p_currency text,
  p_amount bigint,
  p_now timestamptz
) returns table (reason text, period text, limit_cents bigint, left_cents bigint, until timestamptz)
language sql stable as $$
  select
      case when v.excluded then 'self_excluded'
        when v.listed then 'listed'
        when v.minutes is null or coalesce(v.daily, v.weekly, v.monthly) is null then 'limits_unset'
        when w.period is not null then 'loss_limit' end,
      case when not v.excluded and not v.listed and v.minutes is not null then w.period end,
      case when not v.excluded and not v.listed and v.minutes is not null then w.limit_cents end,
      case when not v.excluded and not v.listed and v.minutes is not null then w.left_cents end,
      case when v.excluded then v.excluded_until end
    from (
      select x.user_id is not null as excluded, x.until as excluded_until,
          exists (select 1 from user_identities i join national_exclusions n on n.cpf = i.cpf where i.user_id = p_user_id) as listed,
          (select case when l.pending_at <= p_now then l.pending_value else l.value end from user_limits l
            where l.user_id = p_user_id and l.field = 'loss_daily') as daily,
          (select case when l.pending_at <= p_now then l.pending_value else l.value end from user_limits l
            where l.user_id = p_user_id and l.field = 'loss_weekly') as weekly,
          (select case when l.pending_at <= p_now then l.pending_value else l.value end from user_limits l
            where l.user_id = p_user_id and l.field = 'loss_monthly') as monthly,
          (select case when l.pending_at <= p_now then l.pending_value else l.value end from user_limits l
            where l.user_id = p_user_id and l.field = 'session_minutes') as minutes,
          b.id as balance_id, b.loss_day, b.loss_day_net, b.loss_week, b.loss_week_net, b.loss_month, b.loss_month_net,
          (now() at time zone 'America/Sao_Paulo')::date as today
        from (select) one
        left join lateral (select x.user_id, x.until from self_exclusions x
            where x.user_id = p_user_id and (x.permanent or x.until > p_now)
            order by x.permanent desc, x.until desc limit 1) x on true
        left join balances b on b.user_id = p_user_id and b.currency = p_currency
    ) v
    -- The window a stake would take over its limit with the least left (the shortest on a tie).
    left join lateral (
      select o.period, o.cap as limit_cents, greatest(0, o.cap - o.net) as left_cents
        from (values
          (1, 'daily', v.daily, case when v.loss_day = v.today then v.loss_day_net else 0 end),
          (2, 'weekly', v.weekly, case when v.loss_week = date_trunc('week', v.today)::date then v.loss_week_net else 0 end),
          (3, 'monthly', v.monthly, case when v.loss_month = date_trunc('month', v.today)::date then v.loss_month_net else 0 end)
        ) o(ord, period, cap, net)
        where p_amount is not null and v.balance_id is not null and o.cap is not null and o.net + p_amount > o.cap
        order by greatest(0, o.cap - o.net), o.ord
        limit 1
    ) w on true
$$;
