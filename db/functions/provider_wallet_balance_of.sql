create or replace function provider_wallet_balance_of(p_user_id bigint, p_currency text) returns bigint
language sql stable as $$
  select coalesce((select b.amount from balances b where b.user_id = p_user_id and b.currency = p_currency), 0)
$$;
