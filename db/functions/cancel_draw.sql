-- THE one way a draw is cancelled (an operator, in the logged transaction): only an undrawn draw
-- (p_undrawn → p_cancelled, status codes declared once as DRAW_STATUS in
-- src/modules/draws/tables.ts; the conditional update is the gate, so of two cancels one wins), its seed revealed
-- (the caller decrypts it; it must match the published hash), and every bet refunded in the same
-- transaction: a refund row per bet (keyed by the bet's id) and one `bet_refund` line each.
--
-- outcome 'done' (refunded: how many bets), 'conflict' (status: the current one), 'unknown'.
create or replace function cancel_draw(
  p_draw_id bigint,
  p_actor_id bigint,
  p_reason text,
  p_server_seed text,
  p_undrawn smallint[],
  p_cancelled smallint,
  out outcome text,
  out status integer,
  out refunded integer
) language plpgsql as $$
#variable_conflict use_column
declare
  v_draw record;
  v_stakes bigint;
begin
  update draws d set status = p_cancelled, cancelled_at = now(), cancelled_by = p_actor_id, cancel_reason = p_reason,
      server_seed = p_server_seed, seed_encrypted = null, updated_at = now()
    where d.id = p_draw_id and d.status = any (p_undrawn)
      and d.seed_hash = encode(sha256(convert_to(p_server_seed, 'UTF8')), 'hex')
    returning d.period, (select g.code from games g where g.id = d.game_id) as game_code into v_draw;
  if not found then
    select d.status into status from draws d where d.id = p_draw_id;
    outcome := case when not found then 'unknown' when status = any (p_undrawn) then 'bad_seed' else 'conflict' end;
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
  status := p_cancelled;
end;
$$;
