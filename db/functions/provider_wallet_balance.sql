-- balance {token}: the token is a launch token (redeemed once, before launch_expires_at: the
-- session token whose hash the caller passes becomes the session's) or a live session token.
-- Demo sessions move no money and are not the wallet's: every call with their tokens is
-- INVALID_TOKEN. p_enabled: the code of an enabled provider (CATALOGUE_STATUS, passed in by
-- src/modules/games/seamless-wallet/repository.ts). p_user_id: the player the call names besides
-- its token, for protocols that name one (Hub88's `user`); a token of another player is then
-- INVALID_TOKEN. Null (the built-in protocol): the token alone names the player.
create or replace function provider_wallet_balance(
  p_provider_id bigint,
  p_token_hash text,
  p_new_session_hash text,
  p_enabled smallint,
  p_user_id bigint default null
) returns provider_wallet_answer language plpgsql as $$
declare
  v_answer provider_wallet_answer;
  v_session game_sessions;
  v_launch boolean;
begin
  v_answer.replayed := false;
  v_answer.session_issued := false;
  if not provider_wallet_enabled(p_provider_id, p_enabled) then
    v_answer.outcome := 'PROVIDER_DISABLED';
    return v_answer;
  end if;
  select s.* into v_session from game_sessions s
    where s.provider_id = p_provider_id and (s.launch_token_hash = p_token_hash or s.session_token_hash = p_token_hash);
  v_launch := found and v_session.launch_token_hash = p_token_hash;
  if v_session.id is null or v_session.demo or (v_launch and v_session.redeemed_at is not null)
      or v_session.user_id <> p_user_id then
    v_answer.outcome := 'INVALID_TOKEN';
    return v_answer;
  end if;
  if (v_launch and v_session.launch_expires_at <= now()) or (not v_launch and v_session.expires_at <= now()) then
    v_answer.outcome := 'TOKEN_EXPIRED';
    return v_answer;
  end if;
  v_answer.user_id := v_session.user_id;
  v_answer.currency := v_session.currency;
  v_answer.balance := provider_wallet_balance_of(v_session.user_id, v_session.currency);
  if (select u.status from users u where u.id = v_session.user_id) <> 1 then
    v_answer.outcome := 'PLAYER_DISABLED';
    return v_answer;
  end if;
  if v_launch then
    -- Of two redemptions of one token, one updates the row; the other finds it redeemed.
    update game_sessions s set redeemed_at = now(), session_token_hash = p_new_session_hash
      where s.id = v_session.id and s.redeemed_at is null;
    if not found then
      return (('INVALID_TOKEN', false, null, null, null, null, false)::provider_wallet_answer);
    end if;
    v_answer.session_issued := true;
  end if;
  v_answer.outcome := 'OK';
  return v_answer;
end;
$$;
