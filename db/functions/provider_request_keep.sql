-- Keeps the first answer to a request id (provider_requests: a protocol that promises the same
-- answer to the same request, Hub88's `request_uuid`), in the statement of the wallet call itself
-- (src/modules/games/seamless-wallet/repository.ts selects it beside the wallet function's row),
-- so a call and what it answered commit together: one commit a call, not two, and no moment in
-- which a committed call has no answer kept. What is kept is the wallet's answer, not the
-- protocol's words (status, balance in cents, currency, the record's id); a replay is worded again
-- from it and the request's own body, which the body hash makes the first's.
-- A null p_request_id (a protocol without request ids) keeps nothing. Answers whether this call
-- kept its answer: false when a concurrent delivery of the same request id kept one first (its
-- answer is the one to give; the wallet function made this call a replay, so nothing moved twice).
create or replace function provider_request_keep(
  p_provider_id bigint,
  p_request_id text,
  p_body_hash text,
  p_answer provider_wallet_answer
) returns boolean language plpgsql as $$
begin
  if p_request_id is null then
    return false;
  end if;
  insert into provider_requests (provider_id, request_id, body_hash, answer)
    values (p_provider_id, p_request_id, p_body_hash, jsonb_build_object('status', p_answer.outcome,
      'balance', p_answer.balance::text, 'currency', p_answer.currency, 'transaction_ref', p_answer.transaction_ref::text)::text)
    on conflict (provider_id, request_id) do nothing;
  return found;
end;
$$;
