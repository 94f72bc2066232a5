-- The bet a win or a refund names (a row of nulls when there is none). When it has a player,
-- that player's balance row is locked first, as every call of the player does (see
-- provider_wallet_bet), so the caller decides on what is committed.
create or replace function provider_wallet_named_bet(p_provider_id bigint, p_bet_transaction_id text) returns provider_transactions
language plpgsql as $$
declare
  v_bet provider_transactions;
begin
  select t.* into v_bet from provider_transactions t where t.provider_id = p_provider_id and t.transaction_id = p_bet_transaction_id;
  if found and v_bet.user_id is not null then
    perform 1 from balances b where b.user_id = v_bet.user_id and b.currency = v_bet.currency for update;
  end if;
  return v_bet;
end;
$$;
