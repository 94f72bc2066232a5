-- Money operations as database functions (docs/decisions/0003): the ledger rule and the paid
-- top-up rule are each written once, here, and every caller (HTTP, admin, bench) runs them.

-- Expiry is derived, not stored: a pending top-up older than 24 hours reads as expired (3).
-- Every reader and the paid path ask this one function, so they agree at every instant.
create function topup_status(status smallint, created_at timestamptz) returns integer
language sql stable as $$
  select case when status = 0 and created_at < now() - interval '24 hours' then 3 else status end
$$;

-- The ledger key of a top-up's gift line: pay_topup writes it, the top-up record reads the
-- gift back through it.
create function topup_gift_key(topup_id bigint) returns text
language sql immutable as $$
  select 'topup:' || topup_id::text || ':gift'
$$;

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
create function ledger_apply(
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
begin
  for attempt in 1..4 loop
    update balances b set amount = b.amount + p_amount, updated_at = now()
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
        return;
      end if;
      -- The key was used before (committed, or earlier in this transaction): put our move back.
      update balances b set amount = b.amount - p_amount where b.id = balance_id;
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

-- THE one way a top-up becomes paid: the webhook (one round trip), admin confirm and admin
-- PUT status=1 (inside their logged transaction). The caller names the top-up (by id, or by
-- gateway and payment id) with the amount it expects, and brings what the rules of
-- topups/rewards.ts computed from the settings versions it read: the gift if this is the
-- user's first paid top-up, the gift otherwise, and the referrer's reward.
--
-- outcome 'paid': the status went 0 → 1 here (the exactly-once gate), the paid counter moved
--   (its upsert waits for any concurrent payment of the user, so exactly one is the first),
--   and the amount, gift and referral lines were written with their keys.
-- 'not_payable': nothing moved; status (expiry applied) and amount say why (already paid,
--   cancelled, expired for an admin, another amount).
-- 'stale': nothing moved; the settings versions passed are no longer in force: read them again,
--   compute again, call again.
-- 'unknown': no such top-up.
create function pay_topup(
  p_topup_id bigint,
  p_gateway text,
  p_payment_id text,
  p_amount bigint,
  p_via text,
  p_actor_id bigint,
  p_allow_expired boolean,
  p_topup_settings_id bigint,
  p_referral_settings_id bigint,
  p_gift_first bigint,
  p_gift_later bigint,
  p_referral_reward bigint,
  out outcome text,
  out topup_id bigint,
  out status integer,
  out amount bigint
) language plpgsql as $$
#variable_conflict use_column
declare
  v_user bigint;
  v_currency text;
  v_ref bigint;
  v_paid_count bigint;
  v_gift bigint;
  v_payable boolean;
begin
  topup_id := p_topup_id;
  if topup_id is null then
    select t.id into topup_id from topups t where t.gateway = p_gateway and t.gateway_payment_id = p_payment_id;
  end if;

  update topups t set status = 1, paid_at = now(), updated_at = now(), paid_via = p_via, paid_by = p_actor_id,
      topup_settings_id = p_topup_settings_id, referral_settings_id = p_referral_settings_id
    from users u
    where t.id = topup_id and u.id = t.user_id and t.amount = p_amount and t.status = 0
      and (p_allow_expired or topup_status(t.status, t.created_at) = 0)
      and p_topup_settings_id = (select s.id from settings s where s.name = 'topup' order by s.version desc limit 1)
      and p_referral_settings_id = (select s.id from settings s where s.name = 'referral' order by s.version desc limit 1)
    returning t.user_id, t.currency, u.ref into v_user, v_currency, v_ref;
  if not found then
    select topup_status(t.status, t.created_at), t.amount,
        t.status = 0 and t.amount = p_amount and (p_allow_expired or topup_status(t.status, t.created_at) = 0)
      into status, amount, v_payable
      from topups t where t.id = topup_id;
    outcome := case when not found then 'unknown' when v_payable then 'stale' else 'not_payable' end;
    return;
  end if;

  insert into topup_counters as c (user_id, paid_count, paid_total) values (v_user, 1, p_amount)
    on conflict (user_id) do update
      set paid_count = c.paid_count + 1, paid_total = c.paid_total + excluded.paid_total, updated_at = now()
    returning c.paid_count into v_paid_count;
  v_gift := case when v_paid_count = 1 then p_gift_first else p_gift_later end;

  perform ledger_apply(v_user, v_currency, 'topup', p_amount, 'topup', topup_id, 'Top-up #' || topup_id, 'topup:' || topup_id);
  if v_gift > 0 then
    perform ledger_apply(v_user, v_currency, 'topup_gift', v_gift, 'topup', topup_id, 'Gift on top-up #' || topup_id,
      topup_gift_key(topup_id));
  end if;
  if v_ref is not null and p_referral_reward > 0 then
    perform ledger_apply(v_ref, v_currency, 'referral_bonus', p_referral_reward, 'topup', topup_id,
      'Referral reward: top-up #' || topup_id || ' of user #' || v_user, 'topup:' || topup_id || ':referral');
  end if;
  outcome := 'paid';
  status := 1;
  amount := p_amount;
end;
$$;

-- Its only caller was the one-statement payment, which pay_topup replaces.
drop function wallet_abort(text);
