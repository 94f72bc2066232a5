-- A call whose transaction id is already recorded, answered for the player the call names
-- (p_user_id, p_currency; null when it names none): the first outcome when p_same (the same call
-- of the same player), else DUPLICATE_MISMATCH without the record's id. Nothing moves.
create or replace function provider_wallet_replay(p_row provider_transactions, p_same boolean, p_user_id bigint, p_currency text)
returns provider_wallet_answer language sql stable as $$
  select case when p_same then p_row.outcome else 'DUPLICATE_MISMATCH' end, true, p_user_id, p_currency,
    case when p_user_id is null then null else provider_wallet_balance_of(p_user_id, p_currency) end,
    case when p_same then p_row.id end, false
$$;
