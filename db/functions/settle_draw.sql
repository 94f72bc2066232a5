-- THE one way a drawn draw's bets are settled (the scheduler), up to p_limit bets per call, each
-- call one transaction and one statement for its money: the unsettled bets of the draw get their
-- settlement rows (the exactly-once gate: one per bet, keyed by the bet's id), and the winners'
-- balances and `win` lines (key `draw-bet:<id>:win`) are written set-based in the same statement
-- (docs/decisions/0004). The call that finds no bet left after its batch marks the draw settled
-- (p_drawn → p_settled). The caller passes the status codes, declared once in
-- src/modules/draws/tables.ts: the draw's drawn and settled (DRAW_STATUS), a settlement's won
-- and lost (BET_STATUS).
-- A winning bet pays odds × amount, half-up to the cent, in integers (odds in hundredths):
-- (amount × odds + 50) / 100. This is the one place the payout is computed. A crash inside a call leaves nothing of it; a crash between calls leaves settled bets
-- settled, and the next call takes the rest (bets are taken in id order after `settled_through`).
--
-- outcome 'settled' (nothing left), 'partial' (call again), 'settled_before', 'not_drawn', 'unknown'.
create or replace function settle_draw(
  p_draw_id bigint,
  p_limit integer,
  p_drawn smallint,
  p_settled smallint,
  p_won smallint,
  p_lost smallint,
  out outcome text,
  out settled integer,
  out won integer,
  out paid bigint
) language plpgsql as $$
#variable_conflict use_column
declare
  v_draw record;
  v_more boolean;
  v_last bigint;
  v_stakes bigint;
  v_lines integer;
begin
  select d.status, d.period, d.winning, d.settled_through, g.code as game_code into v_draw
    from draws d join games g on g.id = d.game_id where d.id = p_draw_id for update of d;
  if not found then
    outcome := 'unknown';
    return;
  end if;
  if v_draw.status <> p_drawn then
    outcome := case when v_draw.status = p_settled then 'settled_before' else 'not_drawn' end;
    return;
  end if;
  -- One bet past the batch says whether any is left.
  select count(*) > p_limit into v_more from (
    select 1 from draw_bets b where b.draw_id = p_draw_id and b.id > v_draw.settled_through order by b.id limit p_limit + 1
  ) ahead;
  -- The balances to credit, locked in id order first, as cancel_draw does: two draws settling
  -- or refunding at once never wait for each other in a cycle.
  perform 1 from balances bal where (bal.user_id, bal.currency) in (
      select b.user_id, b.currency from draw_bets b where b.draw_id = p_draw_id and b.id > v_draw.settled_through order by b.id limit p_limit)
    order by bal.id for update;

  with picked as (
    select b.id, b.game_id, b.user_id, b.currency, b.amount, b.odds, v_draw.winning ? b.selection as won
      from draw_bets b
      where b.draw_id = p_draw_id and b.id > v_draw.settled_through
      order by b.id limit p_limit
  ), written as (
    insert into draw_settlements (id, draw_id, game_id, user_id, currency, amount, payout, status)
      select p.id, p_draw_id, p.game_id, p.user_id, p.currency, p.amount,
          case when p.won then (p.amount * p.odds + 50) / 100 else 0 end, case when p.won then p_won else p_lost end
        from picked p
      on conflict (id) do nothing
      returning id, user_id, currency, amount, payout
  ), winners as (
    -- The ledger rule of ledger_apply's credit, set-based: each balance updated once by its
    -- winners' sum, each line with its running balance_after (lines of one balance take ids in
    -- bet order). A credit cannot go below zero, and the players' balances exist: they paid
    -- the stakes; the count check below refuses anything else.
    select w.id, w.user_id, w.currency, w.payout from written w where w.payout > 0
  ), totals as (
    select w.user_id, w.currency, sum(w.payout)::bigint as total from winners w group by w.user_id, w.currency
  ), moved as (
    update balances b set amount = b.amount + t.total, updated_at = now()
      from totals t where b.user_id = t.user_id and b.currency = t.currency
      returning b.id, b.user_id, b.currency, b.amount - t.total as before
  ), lines as (
    insert into ledger_entries
      (user_id, balance_id, currency, type, amount, balance_after, reference_type, reference_id, description, idempotency_key)
    select w.user_id, m.id, w.currency, 'win', w.payout,
        m.before + (sum(w.payout) over (partition by m.id order by w.id))::bigint,
        'draw_bet', w.id, 'Win: bet #' || w.id || ' on ' || v_draw.game_code || ' ' || v_draw.period, 'draw-bet:' || w.id || ':win'
      from winners w join moved m on m.user_id = w.user_id and m.currency = w.currency
    returning 1
  )
  select (select count(*) from written), (select coalesce(sum(amount), 0) from written), (select coalesce(sum(payout), 0) from written),
      (select max(id) from written), (select count(*) from winners), (select count(*) from lines)
    into settled, v_stakes, paid, v_last, won, v_lines;
  if v_lines <> won then
    -- A winner without a balance: nothing of the batch may stay.
    raise exception 'settle_draw %: % win lines for % winners', p_draw_id, v_lines, won;
  end if;

  update draws d set bets_count = d.bets_count + settled, bets_total = d.bets_total + v_stakes,
      payout_total = d.payout_total + paid, settled_through = coalesce(v_last, d.settled_through), updated_at = now(),
      status = case when v_more then d.status else p_settled end,
      settled_at = case when v_more then d.settled_at else now() end
    where d.id = p_draw_id;
  outcome := case when v_more then 'partial' else 'settled' end;
end;
$$;
