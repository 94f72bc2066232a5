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
create or replace function request_withdrawal(
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
