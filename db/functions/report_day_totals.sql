-- The totals of one São Paulo day, [p_from, p_to) in one currency: the one place the daily
-- report (GET /api/admin/reports/daily, the ggr.csv of `report:daily`) and the dashboard
-- (GET /api/admin/stats) add up money, so their figures cannot differ. The day's instants come
-- from src/platform/sao-paulo.ts; the money is read from the ledger lines of the day (their
-- `created_at`), attributed to games, top-ups and withdrawals as src/modules/reports/daily.ts's
-- per-bet files are. Closed days are kept in report_days (docs/decisions/0008): a change of this
-- file changes its hash in schema_functions, which voids every kept day.
--
-- Money is written as text (cents): a jsonb number read by JavaScript would be a float.
create or replace function report_day_totals(p_from timestamptz, p_to timestamptz, p_currency text)
returns jsonb language sql stable as $$
  with lines as (
    select l.user_id, l.type, l.amount, l.reference_type, l.reference_id
    from ledger_entries l
    where l.created_at >= p_from and l.created_at < p_to and l.currency = p_currency
  ),
  bet_lines as (
    select case when l.reference_type = 'draw_bet' then 'draw' else 'provider' end as source,
      l.reference_type, l.reference_id, l.user_id,
      coalesce(p.code, '') as provider, coalesce(g.code, pg.code, '') as game,
      case when l.type = 'bet' then -l.amount else 0 end as stake,
      case when l.type = 'win' then l.amount else 0 end as win,
      case when l.type = 'bet_refund' then l.amount else 0 end as refund
    from lines l
    left join draw_bets db on l.reference_type = 'draw_bet' and db.id = l.reference_id
    left join games g on g.id = db.game_id
    left join provider_bets pb on l.reference_type = 'provider_bet' and pb.id = l.reference_id
    left join provider_games pg on pg.id = pb.provider_game_id
    left join providers p on p.id = pb.provider_id
    where l.type in ('bet', 'win', 'bet_refund')
  ),
  by_game as (
    select source, provider, game, sum(stake) as stake, sum(win) as win, sum(refund) as refund
    from bet_lines group by source, provider, game
  ),
  topup_lines as (
    select l.reference_id, l.type, l.amount from lines l join topups t on l.reference_type = 'topup' and t.id = l.reference_id
    where l.type in ('topup', 'topup_gift')
  ),
  withdrawal_lines as (
    select l.reference_id, l.type, l.amount from lines l join withdrawals w on l.reference_type = 'withdrawal' and w.id = l.reference_id
    where l.type in ('withdrawal', 'withdrawal_refund')
  ),
  other_lines as (
    select l.type, sum(l.amount) as amount from lines l
    where l.type not in ('bet', 'win', 'bet_refund', 'topup', 'topup_gift', 'withdrawal', 'withdrawal_refund')
    group by l.type
  )
  select jsonb_build_object(
    'bettors', (select count(distinct user_id) from bet_lines),
    'bets', (select count(*) from (select distinct reference_type, reference_id, user_id from bet_lines) b),
    'games', (select coalesce(jsonb_agg(jsonb_build_object(
        'source', source, 'provider', provider, 'game', game,
        'stake', stake::text, 'win', win::text, 'refund', refund::text)), '[]'::jsonb) from by_game),
    'topups', (select jsonb_build_object('count', count(distinct reference_id),
        'amount', coalesce(sum(amount) filter (where type = 'topup'), 0)::text,
        'gift', coalesce(sum(amount) filter (where type = 'topup_gift'), 0)::text) from topup_lines),
    'withdrawals', (select jsonb_build_object('count', count(distinct reference_id),
        'requested', coalesce(-sum(amount) filter (where type = 'withdrawal'), 0)::text,
        'returned', coalesce(sum(amount) filter (where type = 'withdrawal_refund'), 0)::text) from withdrawal_lines),
    -- Paid out that day: the completion (status 2, final) stamps paid_at with now(), as the
    -- ledger stamps its lines, so a paid withdrawal belongs to one day too.
    'paid_withdrawals', (select jsonb_build_object('count', count(*), 'amount', coalesce(sum(w.amount), 0)::text)
        from withdrawals w where w.status = 2 and w.paid_at >= p_from and w.paid_at < p_to and w.currency = p_currency),
    'returned_payments', (select jsonb_build_object('count', count(*), 'amount', coalesce(sum(x.amount), 0)::text)
        from pix_payments x join topups t on t.id = x.topup_id
        where x.outcome = 'returned' and x.created_at >= p_from and x.created_at < p_to and t.currency = p_currency),
    'other_lines', (select coalesce(jsonb_object_agg(type, amount::text), '{}'::jsonb) from other_lines),
    'registrations', (select count(*) from users u where u.created_at >= p_from and u.created_at < p_to),
    -- A first-time depositor's first `topup` line ever is of this day.
    'first_depositors', (select count(distinct l.user_id) from lines l
        where l.type = 'topup' and not exists (select 1 from ledger_entries e
          where e.user_id = l.user_id and e.type = 'topup' and e.currency = p_currency and e.created_at < p_from))
  )
$$;
