-- Hub88 (issue 24, docs/api.md section 15): a real aggregator's published wallet protocol.
--
-- 1. A provider's adapter configuration. Hub88 needs more than the one `wallet_secret` the
--    built-in protocol signs with: its API's base URL, our operator id there, its public key
--    (which verifies its wallet calls) and our private key (which signs our calls to it). They
--    are one JSON object per provider, shaped by the adapter that reads it
--    (src/modules/games/hub88/config.ts); the write-only fields (the private key) are stored
--    encrypted with the app key, field by field, so the rest stays readable.
alter table providers add column adapter_config jsonb;

-- 2. Answers by the provider's request id. Hub88 sends a `request_uuid` with every call and
--    expects the same request_uuid to get the same answer again, byte for byte, even when the
--    balance has moved since (a transaction id applies its money once; this is about the words
--    of the answer). Kept per provider: the request id, a digest of the request's content (the
--    same id with another content is not the same request), and the answer as it was sent.
--    Pruned after a while by housekeeping: a provider resends within hours, not months, and the
--    money calls themselves stay in provider_transactions for good.
create table provider_requests (
  id bigint generated always as identity primary key,
  provider_id bigint not null,
  request_id text not null check (length(request_id) between 1 and 100),
  body_hash text not null,
  answer text not null,
  created_at timestamptz not null default now(),
  constraint provider_requests_unique unique (provider_id, request_id)
);
create index provider_requests_created_idx on provider_requests (created_at);

-- 3. A catalogue imported from the provider (croupier games:sync): a game the provider stopped
--    listing is disabled and marked so, and only such a game is enabled again when it comes
--    back; a game an operator disabled by hand stays disabled whatever the provider lists.
alter table provider_games add column delisted_at timestamptz;

-- 4. A transaction rollback (Hub88's /transaction/rollback, provider_wallet_refund with
--    p_this_bet_only) is refused when a win named that very bet: the wins of a bet, found by it.
--    Only wins are indexed (bets and refunds never need it), so a bet's insert pays nothing.
create index provider_transactions_win_bet_idx on provider_transactions (provider_id, bet_transaction_id) where kind = 'win';
