-- Draw games (issue 10): draws of the in-house games, the bets on them, and the settlement or
-- refund each bet ends with. docs/draws.md tells the whole story; the money moves only through
-- the functions at the end (docs/decisions/0003, 0004).

-- One draw of an in-house game. Status: 0 open (betting), 1 closed (betting over, not drawn yet),
-- 2 drawn (result known, bets being settled), 3 settled, 4 cancelled (bets refunded).
-- The server seed is kept encrypted with the app key until the draw, then revealed in
-- `server_seed` (also on cancel); `seed_hash` (SHA-256 of the seed) is public from the start.
create table draws (
  id bigint generated always as identity primary key,
  game_id bigint not null references games (id) on delete restrict,
  -- The game's type when the draw opened: what its result is read as, even if the game changes type.
  type text not null,
  -- YYYYMMDD-NNNN: the UTC day of the draw and its number that day for the game.
  period text not null check (period ~ '^[0-9]{8}-[0-9]{4,5}$'),
  status smallint not null default 0 check (status between 0 and 4),
  opens_at timestamptz not null,
  closes_at timestamptz not null,
  draw_at timestamptz not null,
  seed_hash text not null check (seed_hash ~ '^[0-9a-f]{64}$'),
  seed_encrypted text,
  server_seed text check (server_seed ~ '^[0-9a-f]{64}$'),
  result jsonb,
  winning jsonb check (jsonb_typeof(winning) = 'array'),
  drawn_at timestamptz,
  settled_at timestamptz,
  cancelled_at timestamptz,
  cancelled_by bigint references users (id) on delete set null,
  cancel_reason text check (length(cancel_reason) <= 255),
  -- Written when the bets are settled or refunded (a running count on every bet would make each
  -- bet wait for the draw row); live figures of an undrawn draw are counted when read.
  bets_count integer not null default 0 check (bets_count >= 0),
  bets_total bigint not null default 0 check (bets_total >= 0),
  payout_total bigint not null default 0 check (payout_total >= 0),
  -- The last bet id settled: settle_draw goes through a draw's bets in id order, in batches.
  settled_through bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint draws_game_period_unique unique (game_id, period),
  constraint draws_times check (opens_at <= closes_at and closes_at <= draw_at),
  -- The seed is either still sealed or revealed, never both, never lost.
  constraint draws_seed_sealed_or_revealed check ((seed_encrypted is null) <> (server_seed is null)),
  constraint draws_revealed check ((server_seed is not null) = (status >= 2)),
  constraint draws_result check ((result is not null) = (status in (2, 3)) and (winning is not null) = (status in (2, 3)))
);
-- A game's history, newest first; the scheduler's due draws; at most one undrawn draw per game.
create index draws_game_idx on draws (game_id, id desc);
create index draws_due_idx on draws (draw_at) where status in (0, 1, 2);
create unique index draws_one_undrawn_per_game on draws (game_id) where status in (0, 1);
alter table draws set (fillfactor = 80);

-- A bet on one selection of one draw. Written once and never changed: what became of it is its
-- settlement (won or lost) or its refund, each keyed by the bet's id. `odds` are the decimal odds
-- in hundredths in force when it was placed.
create table draw_bets (
  id bigint generated always as identity primary key,
  draw_id bigint not null references draws (id) on delete restrict,
  game_id bigint not null references games (id) on delete restrict,
  user_id bigint not null references users (id) on delete restrict,
  selection text not null check (selection ~ '^[a-z0-9_]{1,32}$'),
  amount bigint not null check (amount > 0),
  odds integer not null check (odds between 101 and 1000000),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- The client's Idempotency-Key and a digest of what it asked, to answer a retry with the first bet.
  request_key text,
  request_digest text,
  created_at timestamptz not null default now(),
  constraint draw_bets_request_digest check ((request_key is null) = (request_digest is null))
);
create index draw_bets_draw_idx on draw_bets (draw_id, id);
create index draw_bets_user_idx on draw_bets (user_id, id desc);
create unique index draw_bets_request_key_unique on draw_bets (user_id, request_key) where request_key is not null;

-- What a drawn bet came to: one row per bet (its id is the bet's), status 1 won (payout = odds ×
-- amount, half-up to the cent, credited by a `win` line keyed `draw-bet:<id>:win`) or 2 lost
-- (payout 0). draw, game and user are the bet's, copied so a record reads alone; admin filters on
-- them go through the bet's indexes, so settling writes no index here but the key. No foreign
-- key: rows are written only by settle_draw from the bet rows it reads in the same statement
-- (bets are never deleted), and a check per row would cost a fifth of a settlement.
create table draw_settlements (
  id bigint primary key,
  draw_id bigint not null,
  game_id bigint not null,
  user_id bigint not null,
  currency text not null,
  amount bigint not null check (amount > 0),
  payout bigint not null check (payout >= 0),
  status smallint not null check (status in (1, 2)),
  created_at timestamptz not null default now(),
  constraint draw_settlements_payout check ((status = 1) = (payout > 0))
);

-- A bet of a cancelled draw, given back: one row per bet (its id is the bet's), credited by a
-- `bet_refund` line keyed `draw-bet:<id>:refund`. Written only by cancel_draw, from the bets.
create table draw_refunds (
  id bigint primary key,
  draw_id bigint not null,
  game_id bigint not null,
  user_id bigint not null,
  currency text not null,
  amount bigint not null check (amount > 0),
  created_at timestamptz not null default now()
);

-- THE one way a draw bet is placed (POST /api/games/:game/bets, one round trip). The caller
-- checked the selection and the amount against the game's type and settings and brings the odds
-- they give, with the type and settings it read; a game changed since answers `stale`. The draw must be open at p_now (the
-- app's clock) and is share-locked, so closing, drawing and cancelling wait for bets in flight
-- and no bet lands in a draw already drawn. The stake leaves the balance with one `bet` line
-- (key `draw-bet:<id>`) in the same transaction; a shortfall raises WL001 from ledger_apply.
--
-- outcome 'placed' (bet_id, draw_id, period) / 'replayed' (the request key was used before with
--   the same digest; nothing moved; bet_id is the first bet). 'key_reused': the key named another
--   request. 'unknown' (no such game, or disabled), 'maintenance', 'stale', 'closed' (no draw
--   open for bets at p_now, or not the one p_draw_id names): nothing moved.
create function place_draw_bet(
  p_user_id bigint,
  p_game_id bigint,
  p_game_type text,
  p_game_settings jsonb,
  p_draw_id bigint,
  p_selection text,
  p_amount bigint,
  p_odds integer,
  p_currency text,
  p_now timestamptz,
  p_request_key text,
  p_request_digest text,
  out outcome text,
  out bet_id bigint,
  out draw_id bigint,
  out period text
) language plpgsql as $$
#variable_conflict use_column
declare
  v_digest text;
  v_game record;
  v_draw record;
begin
  if p_request_key is not null then
    select b.id, b.request_digest into bet_id, v_digest from draw_bets b
      where b.user_id = p_user_id and b.request_key = p_request_key;
    if found then
      outcome := case when v_digest = p_request_digest then 'replayed' else 'key_reused' end;
      return;
    end if;
  end if;

  select g.status, g.type, g.settings, g.code into v_game from games g where g.id = p_game_id;
  if not found or v_game.status = 0 then
    outcome := 'unknown';
    return;
  end if;
  if v_game.status = 2 then
    outcome := 'maintenance';
    return;
  end if;
  if v_game.type <> p_game_type or v_game.settings <> p_game_settings then
    outcome := 'stale';
    return;
  end if;

  select d.id, d.period into v_draw from draws d
    where d.game_id = p_game_id and d.status = 0 and d.opens_at <= p_now and d.closes_at > p_now
      and (p_draw_id is null or d.id = p_draw_id)
      -- A game whose type changed keeps its open draw of the old type: no bet of the new one goes in.
      and d.type = p_game_type
    for share;
  if not found then
    outcome := 'closed';
    return;
  end if;

  insert into draw_bets as b (draw_id, game_id, user_id, selection, amount, odds, currency, request_key, request_digest)
    values (v_draw.id, p_game_id, p_user_id, p_selection, p_amount, p_odds, p_currency, p_request_key, p_request_digest)
    on conflict (user_id, request_key) where request_key is not null do nothing
    returning b.id into bet_id;
  if not found then
    -- A concurrent request with the same key committed first: answer as its replay would.
    select b.id, b.request_digest into bet_id, v_digest from draw_bets b
      where b.user_id = p_user_id and b.request_key = p_request_key;
    outcome := case when v_digest = p_request_digest then 'replayed' else 'key_reused' end;
    return;
  end if;
  perform ledger_apply(p_user_id, p_currency, 'bet', -p_amount, 'draw_bet', bet_id,
    'Bet #' || bet_id || ' on ' || v_game.code || ' ' || v_draw.period || ': ' || p_selection, 'draw-bet:' || bet_id);
  outcome := 'placed';
  draw_id := v_draw.id;
  period := v_draw.period;
end;
$$;

-- THE one way a drawn draw's bets are settled (the scheduler), up to p_limit bets per call, each
-- call one transaction and one statement for its money: the unsettled bets of the draw get their
-- settlement rows (the exactly-once gate: one per bet, keyed by the bet's id), and the winners'
-- balances and `win` lines (key `draw-bet:<id>:win`) are written set-based in the same statement
-- (docs/decisions/0004). The call that finds no bet left after its batch marks the draw settled
-- (2 → 3). A crash inside a call leaves nothing of it; a crash between calls leaves settled bets
-- settled, and the next call takes the rest (bets are taken in id order after `settled_through`).
--
-- outcome 'settled' (nothing left), 'partial' (call again), 'settled_before', 'not_drawn', 'unknown'.
create function settle_draw(
  p_draw_id bigint,
  p_limit integer,
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
  if v_draw.status <> 2 then
    outcome := case when v_draw.status = 3 then 'settled_before' else 'not_drawn' end;
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
          case when p.won then (p.amount * p.odds + 50) / 100 else 0 end, case when p.won then 1 else 2 end
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
      status = case when v_more then d.status else 3 end,
      settled_at = case when v_more then d.settled_at else now() end
    where d.id = p_draw_id;
  outcome := case when v_more then 'partial' else 'settled' end;
end;
$$;


-- THE one way a draw is cancelled (an operator, in the logged transaction): only an undrawn draw
-- (0 or 1 → 4; the conditional update is the gate, so of two cancels one wins), its seed revealed
-- (the caller decrypts it; it must match the published hash), and every bet refunded in the same
-- transaction: a refund row per bet (keyed by the bet's id) and one `bet_refund` line each.
--
-- outcome 'done' (refunded: how many bets), 'conflict' (status: the current one), 'unknown'.
create function cancel_draw(
  p_draw_id bigint,
  p_actor_id bigint,
  p_reason text,
  p_server_seed text,
  out outcome text,
  out status integer,
  out refunded integer
) language plpgsql as $$
#variable_conflict use_column
declare
  v_draw record;
  v_stakes bigint;
begin
  update draws d set status = 4, cancelled_at = now(), cancelled_by = p_actor_id, cancel_reason = p_reason,
      server_seed = p_server_seed, seed_encrypted = null, updated_at = now()
    where d.id = p_draw_id and d.status in (0, 1)
      and d.seed_hash = encode(sha256(convert_to(p_server_seed, 'UTF8')), 'hex')
    returning d.period, (select g.code from games g where g.id = d.game_id) as game_code into v_draw;
  if not found then
    select d.status into status from draws d where d.id = p_draw_id;
    outcome := case when not found then 'unknown' when status in (0, 1) then 'bad_seed' else 'conflict' end;
    return;
  end if;

  perform 1 from balances bal where (bal.user_id, bal.currency) in (
      select b.user_id, b.currency from draw_bets b where b.draw_id = p_draw_id)
    order by bal.id for update;
  -- Rare and operator-driven: each refund is one ledger_apply call, the ledger rule itself.
  with written as (
    insert into draw_refunds (id, draw_id, game_id, user_id, currency, amount)
      select b.id, b.draw_id, b.game_id, b.user_id, b.currency, b.amount from draw_bets b
        where b.draw_id = p_draw_id order by b.id
      on conflict (id) do nothing
      returning id, user_id, currency, amount
  )
  select count(*), coalesce(sum(w.amount), 0) into refunded, v_stakes
    from written w
    cross join lateral ledger_apply(w.user_id, w.currency, 'bet_refund', w.amount, 'draw_bet', w.id,
      'Refund: bet #' || w.id || ' on ' || v_draw.game_code || ' ' || v_draw.period || ' (draw cancelled)',
      'draw-bet:' || w.id || ':refund') applied;
  update draws d set bets_count = refunded, bets_total = v_stakes where d.id = p_draw_id;
  outcome := 'done';
  status := 4;
end;
$$;
