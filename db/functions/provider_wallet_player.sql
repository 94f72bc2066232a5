-- A player as a provider may ask for it by its id alone (Hub88's /user/info, which carries no
-- token): known to the provider only once they launched one of its games for money, so a provider
-- can never probe the players of another; answered with the balance in the currency of their
-- latest money session there. Refused: a disabled provider (PROVIDER_DISABLED), a player the
-- provider never had (INVALID_TOKEN: nothing the call names is ours to show), a disabled player
-- (PLAYER_DISABLED). Reads only. p_enabled: the code of an enabled provider (CATALOGUE_STATUS,
-- passed in by src/modules/games/seamless-wallet/repository.ts).
create or replace function provider_wallet_player(p_provider_id bigint, p_user_id bigint, p_enabled smallint)
returns provider_wallet_answer language plpgsql stable as $$
declare
  v_answer provider_wallet_answer;
  v_player record;
begin
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if not provider_wallet_enabled(p_provider_id, p_enabled) then
    v_answer.outcome := 'PROVIDER_DISABLED';
    return v_answer;
  end if;
  select s.currency, u.status into v_player from game_sessions s join users u on u.id = s.user_id
    where s.user_id = p_user_id and s.provider_id = p_provider_id and not s.demo
    order by s.id desc limit 1;
  if not found then
    v_answer.outcome := 'INVALID_TOKEN';
    return v_answer;
  end if;
  v_answer.user_id := p_user_id;
  v_answer.currency := v_player.currency;
  v_answer.balance := provider_wallet_balance_of(p_user_id, v_player.currency);
  if v_player.status <> 1 then
    v_answer.outcome := 'PLAYER_DISABLED';
    return v_answer;
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;
