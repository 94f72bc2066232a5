-- THE one way a draw bet is placed (POST /api/games/:game/bets, one round trip). The caller
-- checked the selection and the amount against the game's type and settings and brings the odds
-- they give, with the type and settings it read; a game changed since answers `stale`. The draw must be open at p_now (the
-- app's clock; p_open is the status code of a draw open for bets, DRAW_STATUS.open in
-- src/modules/draws/tables.ts, where the draw statuses are declared) and is share-locked, so closing, drawing and cancelling wait for bets in flight
-- and no bet lands in a draw already drawn. The stake leaves the balance with one `bet` line
-- (key `draw-bet:<id>`) in the same transaction; a shortfall raises WL001 from ledger_apply.
--
-- outcome 'placed' (bet_id, draw_id, period) / 'replayed' (the request key was used before with
--   the same digest; nothing moved; bet_id is the first bet). 'key_reused': the key named another
--   request. 'unknown' (no such game, or disabled), 'maintenance', 'stale', 'closed' (no draw
--   open for bets at p_now, or not the one p_draw_id names): nothing moved.
-- Under REGULATION=br (p_regulated) the player's balance row is locked before the bet is
-- written and responsible_gambling_refusal decides on it: 'refused' with its reason (and the
-- loss window, limit and what is left, or the exclusion's end), nothing moved. The lock makes
-- the loss limit a hard ceiling for parallel bets.
create or replace function place_draw_bet(
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
  p_open smallint,
  p_regulated boolean default false,
  out outcome text,
  out bet_id bigint,
  out draw_id bigint,
  out period text,
  out refusal text,
  out refusal_period text,
  out limit_cents bigint,
  out left_cents bigint,
  out excluded_until timestamptz
) language plpgsql as $$
#variable_conflict use_column
declare
  v_digest text;
  v_game record;
  v_draw record;
  v_refusal record;
  v_balance balances;
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
    where d.game_id = p_game_id and d.status = p_open and d.opens_at <= p_now and d.closes_at > p_now
      and (p_draw_id is null or d.id = p_draw_id)
      -- A game whose type changed keeps its open draw of the old type: no bet of the new one goes in.
      and d.type = p_game_type
    for share;
  if not found then
    outcome := 'closed';
    return;
  end if;

  if p_regulated then
    select * into v_balance from balances b where b.user_id = p_user_id and b.currency = p_currency for update;
    select * into v_refusal from responsible_gambling_refusal(p_user_id, p_amount, p_now, v_balance);
    if v_refusal.reason is not null then
      outcome := 'refused';
      refusal := v_refusal.reason;
      refusal_period := v_refusal.period;
      limit_cents := v_refusal.limit_cents;
      left_cents := v_refusal.left_cents;
      excluded_until := v_refusal.until;
      return;
    end if;
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
