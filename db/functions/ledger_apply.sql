-- THE one way money moves: one balance change and its ledger line, in the caller's transaction.
--  * A credit creates a missing balance; a movement that would take the balance below zero
--    raises SQLSTATE WL001 (DETAIL: the available amount in cents).
--  * The key names the movement for ever: a key seen before answers its first line
--    (replayed = true) and moves nothing; a key seen before for another user, currency, type or
--    amount raises SQLSTATE WL002.
--  * Concurrent calls with one key: the conditional update locks the balance row, and the
--    insert waits for a transaction holding the same key; the loser puts its move back and
--    answers the winner's line. Each statement of a plpgsql function sees what committed
--    before it started (READ COMMITTED), so the loop decides again on what is committed now.
--  * The balance's bet turnover (`bet_turnover`, what the withdrawal limit `total_bet` reads)
--    moves with it: a `bet` line adds its stake, in the same update and its put-back; a
--    `bet_refund` line gives exactly a `bet` line's stake back (provider_wallet_refund,
--    cancel_draw) and takes it off, never below 0, so a refunded stake no longer counts as
--    wagered. Line by line in id order (the order the balance row lock imposes) that is
--    T = max(0, T + d), which `croupier ledger:verify` recomputes (src/modules/wallet/verify.ts).
--  * The net loss of the day, week and month (São Paulo's calendar) moves with it too: a `bet`
--    line adds its stake, a `win` or `bet_refund` line takes its amount off (responsible
--    gambling, docs/regulation.md; responsible_gambling_refusal reads them). A window begun
--    since the last bet line starts again from 0. Other lines leave them alone.
create or replace function ledger_apply(
  p_user_id bigint,
  p_currency text,
  p_type text,
  p_amount bigint,
  p_reference_type text,
  p_reference_id bigint,
  p_description text,
  p_idempotency_key text,
  out entry_id bigint,
  out balance_id bigint,
  out balance_after bigint,
  out replayed boolean
) language plpgsql as $$
#variable_conflict use_column
declare
  v_first record;
  v_available bigint;
  v_missing boolean;
  v_turnover bigint := case when p_type = 'bet' then -p_amount else 0 end;
  v_loss bigint := case when p_type in ('bet', 'win', 'bet_refund') then -p_amount else 0 end;
  v_day date := case when p_type in ('bet', 'win', 'bet_refund') then (now() at time zone 'America/Sao_Paulo')::date end;
  v_week date := date_trunc('week', v_day)::date;
  v_month date := date_trunc('month', v_day)::date;
begin
  for attempt in 1..4 loop
    update balances b set amount = b.amount + p_amount, bet_turnover = b.bet_turnover + v_turnover, updated_at = now(),
        loss_day_net = case when v_day is null then b.loss_day_net when b.loss_day = v_day then b.loss_day_net + v_loss else v_loss end,
        loss_day = coalesce(v_day, b.loss_day),
        loss_week_net = case when v_day is null then b.loss_week_net when b.loss_week = v_week then b.loss_week_net + v_loss else v_loss end,
        loss_week = coalesce(v_week, b.loss_week),
        loss_month_net = case when v_day is null then b.loss_month_net when b.loss_month = v_month then b.loss_month_net + v_loss else v_loss end,
        loss_month = coalesce(v_month, b.loss_month)
      where b.user_id = p_user_id and b.currency = p_currency and b.amount + p_amount >= 0
      returning b.id, b.amount into balance_id, balance_after;
    v_missing := false;
    v_available := null;
    if found then
      insert into ledger_entries
        (user_id, balance_id, currency, type, amount, balance_after, reference_type, reference_id, description, idempotency_key)
      values (p_user_id, balance_id, p_currency, p_type, p_amount, balance_after, p_reference_type, p_reference_id, p_description,
        p_idempotency_key)
      on conflict (idempotency_key) do nothing
      returning id into entry_id;
      if found then
        replayed := false;
        if p_type = 'bet_refund' then
          -- The stake came back: it no longer counts as wagered. A second update of the row
          -- this transaction already holds, only for refunds (rare), and only once the line is
          -- written, so a replay has nothing to put back.
          update balances b set bet_turnover = greatest(0, b.bet_turnover - p_amount) where b.id = balance_id;
        end if;
        return;
      end if;
      -- The key was used before (committed, or earlier in this transaction): put our move back.
      update balances b set amount = b.amount - p_amount, bet_turnover = b.bet_turnover - v_turnover,
        loss_day_net = b.loss_day_net - v_loss, loss_week_net = b.loss_week_net - v_loss, loss_month_net = b.loss_month_net - v_loss
        where b.id = balance_id;
    else
      -- Nothing moved: no balance yet, a shortfall, a replay of a debit the balance no longer
      -- covers, or a balance changed after the update began. Lock it and decide on what is
      -- committed now.
      select b.amount into v_available from balances b
        where b.user_id = p_user_id and b.currency = p_currency for update;
      v_missing := not found;
      if not v_missing and v_available + p_amount >= 0 then
        continue;
      end if;
    end if;

    select e.id, e.user_id, e.balance_id, e.currency, e.type, e.amount, e.balance_after into v_first
      from ledger_entries e where e.idempotency_key = p_idempotency_key;
    if found then
      if v_first.user_id <> p_user_id or v_first.currency <> p_currency or v_first.type <> p_type or v_first.amount <> p_amount then
        raise exception 'idempotency key % was used for another movement', p_idempotency_key using errcode = 'WL002';
      end if;
      entry_id := v_first.id;
      balance_id := v_first.balance_id;
      balance_after := v_first.balance_after;
      replayed := true;
      return;
    end if;
    if v_missing and p_amount >= 0 then
      insert into balances (user_id, currency) values (p_user_id, p_currency) on conflict (user_id, currency) do nothing;
    elsif v_missing or v_available is not null then
      raise exception 'insufficient funds' using errcode = 'WL001', detail = coalesce(v_available, 0)::text;
    end if;
  end loop;
  raise exception 'ledger operation % could not be applied', p_idempotency_key;
end;
$$;
