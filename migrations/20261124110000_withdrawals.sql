-- Withdrawals (issue 8): the hold, the review transitions and the payout outcome, each one
-- database function in the shape of pay_topup (docs/decisions/0003).

-- The bet turnover the `total_bet` limit reads: the sum of a balance's `bet` lines, kept on
-- the balance row that every bet updates anyway (no extra write, no index entry on the bet
-- path), instead of summing a heavy player's whole history on each withdrawal request.
alter table balances add column bet_turnover bigint not null default 0
  constraint balances_bet_turnover_not_negative check (bet_turnover >= 0);
update balances b set bet_turnover = coalesce(
  (select -sum(e.amount) from ledger_entries e where e.balance_id = b.id and e.type = 'bet'), 0);

-- ledger_apply as before (migrations/20261124090000_pay_topup.sql), now also counting the
-- turnover of `bet` lines, in the same update and its put-back.
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
begin
  for attempt in 1..4 loop
    update balances b set amount = b.amount + p_amount, bet_turnover = b.bet_turnover + v_turnover, updated_at = now()
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
      update balances b set amount = b.amount - p_amount, bet_turnover = b.bet_turnover - v_turnover where b.id = balance_id;
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

-- Status: 0 pending review (funds held), 1 approved (being paid), 2 paid, 3 rejected (funds
-- returned), 4 failed (funds returned). The amount left the balance when the row was made.
create table withdrawals (
  id bigint generated always as identity primary key,
  -- What the payout gateway knows the withdrawal by (its notifications name it).
  public_id text not null,
  user_id bigint not null references users (id) on delete restrict,
  payee_name text not null check (length(payee_name) between 1 and 255),
  account_type text not null check (account_type in ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP')),
  payee_account text not null check (length(payee_account) between 1 and 77),
  amount bigint not null check (amount > 0),
  fee bigint not null check (fee >= 0 and fee < amount),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  status smallint not null default 0 check (status between 0 and 4),
  reason text,
  reviewed_by bigint references users (id) on delete set null,
  reviewed_at timestamptz,
  paid_at timestamptz,
  -- Which `withdraw` settings version decided the limits and the fee.
  withdraw_settings_id bigint not null,
  -- The client's Idempotency-Key and a digest of what it asked, to answer a retry with the first result.
  request_key text,
  request_digest text,
  payout_gateway text,
  payout_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint withdrawals_public_id_unique unique (public_id),
  constraint withdrawals_request_digest check ((request_key is null) = (request_digest is null))
);
-- Every index is one more write per request, the hot path: the user's list; the idempotency
-- keys and the review queue (pending and approved) only where they apply. `from`/`to` read in
-- id order, which follows time, as the ledger's do.
create index withdrawals_user_idx on withdrawals (user_id, id desc);
create unique index withdrawals_request_key_unique on withdrawals (user_id, request_key) where request_key is not null;
create index withdrawals_open_idx on withdrawals (status, id) where status in (0, 1);
alter table withdrawals set (fillfactor = 85);

-- THE one way a withdrawal is requested (POST /api/withdrawals, one round trip). The caller
-- brings the amount, the fee it computed with the `withdraw` settings version it read, and
-- that version's limits (0 = off); this checks them on what is committed now and holds the
-- whole amount with one `withdrawal` line (key `withdrawal:<id>`), so two requests can never
-- spend the same money. A shortfall raises WL001 from ledger_apply: nothing of it stays.
--
-- outcome 'created' / 'replayed' (the request key was used before with the same digest: the
--   first withdrawal, nothing moved): withdrawal_id, and the row as JSON (no second round trip).
-- 'key_reused': the request key was used before for another request; nothing moved.
-- 'stale': the settings version passed is no longer in force: read again, compute again.
-- 'refused': a limit is not met; nothing moved. Each *_required is set only for a limit that
--   refused, with where the user stands in the matching *_current.
create function request_withdrawal(
  p_user_id bigint,
  p_currency text,
  p_payee_name text,
  p_account_type text,
  p_payee_account text,
  p_amount bigint,
  p_fee bigint,
  p_settings_id bigint,
  p_min_for_player bigint,
  p_min_for_partner bigint,
  p_total_bet bigint,
  p_referred_users bigint,
  p_total_topped_up bigint,
  p_request_key text,
  p_request_digest text,
  out outcome text,
  out withdrawal_id bigint,
  out min_required bigint,
  out bet_required bigint,
  out bet_current bigint,
  out referred_required bigint,
  out referred_current bigint,
  out topped_up_required bigint,
  out topped_up_current bigint,
  out withdrawal json
) language plpgsql as $$
#variable_conflict use_column
declare
  v_digest text;
  v_partner boolean;
  v_min bigint;
begin
  if p_request_key is not null then
    select w.id, w.request_digest into withdrawal_id, v_digest from withdrawals w
      where w.user_id = p_user_id and w.request_key = p_request_key;
    if found then
      outcome := case when v_digest = p_request_digest then 'replayed' else 'key_reused' end;
      if outcome = 'replayed' then
        select to_json(w) into withdrawal from withdrawals w where w.id = withdrawal_id;
      end if;
      return;
    end if;
  end if;

  if p_settings_id <> (select s.id from settings s where s.name = 'withdraw' order by s.version desc limit 1) then
    outcome := 'stale';
    return;
  end if;

  select u.is_partner into v_partner from users u where u.id = p_user_id;
  v_min := case when v_partner then p_min_for_partner else p_min_for_player end;
  if v_min > 0 and p_amount < v_min then
    min_required := v_min;
  end if;
  if p_total_bet > 0 then
    select coalesce((select b.bet_turnover from balances b where b.user_id = p_user_id and b.currency = p_currency), 0)
      into bet_current;
    if bet_current < p_total_bet then
      bet_required := p_total_bet;
    end if;
  end if;
  if p_referred_users > 0 then
    select count(*) into referred_current from users u where u.ref = p_user_id;
    if referred_current < p_referred_users then
      referred_required := p_referred_users;
    end if;
  end if;
  if p_total_topped_up > 0 then
    select coalesce((select c.paid_total from topup_counters c where c.user_id = p_user_id), 0) into topped_up_current;
    if topped_up_current < p_total_topped_up then
      topped_up_required := p_total_topped_up;
    end if;
  end if;
  if coalesce(min_required, bet_required, referred_required, topped_up_required) is not null then
    outcome := 'refused';
    return;
  end if;

  insert into withdrawals as w (public_id, user_id, payee_name, account_type, payee_account, amount, fee, currency,
      withdraw_settings_id, request_key, request_digest)
    values ('WD' || replace(gen_random_uuid()::text, '-', ''), p_user_id, p_payee_name, p_account_type, p_payee_account,
      p_amount, p_fee, p_currency, p_settings_id, p_request_key, p_request_digest)
    on conflict (user_id, request_key) where request_key is not null do nothing
    returning w.id, to_json(w) into withdrawal_id, withdrawal;
  if not found then
    -- A concurrent request with the same key committed first: answer as its replay would.
    select w.id, w.request_digest, to_json(w) into withdrawal_id, v_digest, withdrawal from withdrawals w
      where w.user_id = p_user_id and w.request_key = p_request_key;
    outcome := case when v_digest = p_request_digest then 'replayed' else 'key_reused' end;
    if outcome = 'key_reused' then
      withdrawal := null;
    end if;
    return;
  end if;
  perform ledger_apply(p_user_id, p_currency, 'withdrawal', -p_amount, 'withdrawal', withdrawal_id,
    'Withdrawal #' || withdrawal_id, 'withdrawal:' || withdrawal_id);
  outcome := 'created';
end;
$$;

-- THE one way a withdrawal changes status (admin actions in their logged transaction, payout
-- notifications in one round trip). Contract section 8: approve 0 → 1, reject 0|1 → 3,
-- complete 1 → 2, fail 1 → 4; reject and fail return the whole amount with one
-- `withdrawal_refund` line under the key `withdrawal:<id>:refund`. The conditional update is
-- the exactly-once gate: of two concurrent transitions one wins, the other finds the new status.
--
-- outcome 'done' (status is the new one), 'conflict' (nothing changed; status is the current
-- one), 'unknown' (no such withdrawal, or not one of that payout gateway).
-- p_actor is the admin (null for a gateway); approve records p_gateway as the payout gateway.
create function withdrawal_transition(
  p_withdrawal_id bigint,
  p_action text,
  p_actor_id bigint,
  p_reason text,
  p_gateway text,
  out outcome text,
  out status integer
) language plpgsql as $$
#variable_conflict use_column
declare
  v_from smallint[];
  v_to smallint;
  v_user bigint;
  v_currency text;
  v_amount bigint;
begin
  case p_action
    when 'approve' then v_from := '{0}'; v_to := 1;
    when 'reject' then v_from := '{0,1}'; v_to := 3;
    when 'complete' then v_from := '{1}'; v_to := 2;
    when 'fail' then v_from := '{1}'; v_to := 4;
    else raise exception 'unknown withdrawal action %', p_action;
  end case;

  update withdrawals w set status = v_to, updated_at = now(),
      reason = case when v_to in (3, 4) then p_reason else w.reason end,
      reviewed_by = case when p_actor_id is null then w.reviewed_by else p_actor_id end,
      reviewed_at = case when p_actor_id is null then w.reviewed_at else now() end,
      paid_at = case when v_to = 2 then now() else w.paid_at end,
      payout_gateway = case when v_to = 1 then p_gateway else w.payout_gateway end
    where w.id = p_withdrawal_id and w.status = any (v_from)
      and (p_actor_id is not null or w.payout_gateway = p_gateway)
    returning w.user_id, w.currency, w.amount into v_user, v_currency, v_amount;
  if not found then
    select w.status into status from withdrawals w
      where w.id = p_withdrawal_id and (p_actor_id is not null or w.payout_gateway = p_gateway);
    outcome := case when found then 'conflict' else 'unknown' end;
    return;
  end if;

  if v_to in (3, 4) then
    perform ledger_apply(v_user, v_currency, 'withdrawal_refund', v_amount, 'withdrawal', p_withdrawal_id,
      'Withdrawal #' || p_withdrawal_id || case when v_to = 3 then ' rejected' else ' failed' end,
      'withdrawal:' || p_withdrawal_id || ':refund');
  end if;
  outcome := 'done';
  status := v_to;
end;
$$;
