-- Two holes in the seamless wallet (issue 18, items 3 and 4), closed where its rules live.
--
-- 1. Credentials in stored bodies. provider_transactions.payload kept each call's body as
--    received, so a bet's live session token reached the operators' round detail
--    (GET /api/admin/provider-bets/:id), and that token alone stakes the player's money. Every
--    body is now stored through provider_payload_redacted: the value of any key that names a
--    credential is replaced by "[redacted]", at any depth, whatever the provider's protocol
--    calls the field. The wallet functions below apply it on the way in (so it holds for every
--    instance and every adapter), and the rows stored before are redacted at the end.
--
-- 2. A transaction id reused by another player. A replay was matched on the call's fields
--    alone: another player's bet with a recorded bet's id, round and amount was answered `OK`
--    as a replay with the first player's balance, took no stake, and showed that balance. A
--    replay now has to come from the recorded call's player (a bet: its token's money session;
--    a win or a refund: the bet it names, so the same bet id is the same player), or it is
--    DUPLICATE_MISMATCH. Every replay, matched or not, is answered with the balance of the
--    player the call itself names, never the recorded call's: for a match they are the same
--    player, for a mismatch the first call's player is never shown (nor its record's id).
--
-- The rules live in db/functions/ (provider_payload_redacted.sql, provider_wallet_replay.sql,
-- provider_wallet_bet.sql, _win.sql, _refund.sql); what stays here is the one-off redaction of the
-- bodies stored before.

-- The bodies stored before: every row the rule changes (all bets: they carry their token).
update provider_transactions t set payload = provider_payload_redacted(t.payload)
  where t.payload is not null and t.payload is distinct from provider_payload_redacted(t.payload);
