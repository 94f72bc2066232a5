-- A call whose transaction id is already recorded: the first outcome with the current balance,
-- or DUPLICATE_MISMATCH when the same id now asks for something else. Nothing moves.
create or replace function provider_wallet_replay(p_row provider_transactions, p_same boolean) returns provider_wallet_answer
language sql stable as $$
  select case when p_same then p_row.outcome else 'DUPLICATE_MISMATCH' end, true, p_row.user_id, p_row.currency,
    case when p_row.user_id is null then null else provider_wallet_balance_of(p_row.user_id, p_row.currency) end,
    p_row.id, false
$$;
