-- Game sessions are pruned by housekeeping once they ended more than 90 days ago
-- (src/modules/games/session-retention.ts), except the newest money session of each provider
-- game: provider_bets and provider_transactions have no foreign keys (20261125100000) and rely on
-- a game session to keep their provider and game from being deleted, and every round was played
-- through a redeemed, non-demo session of its game. This index finds, for a candidate, whether a
-- newer such session of its game exists, without reading the game's other sessions. It covers
-- only redeemed money sessions, and no column the bet path updates (expires_at), so moving a
-- session's end stays a heap-only update.
create index game_sessions_money_game_idx on game_sessions (provider_id, provider_game_id, id)
  where redeemed_at is not null and not demo;
