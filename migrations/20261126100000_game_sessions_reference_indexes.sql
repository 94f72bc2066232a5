-- game_sessions references users, providers and provider_games with ON DELETE RESTRICT, so
-- deleting one of those checks for sessions that name it: without an index on the referencing
-- column that check reads the whole table, a row per launch ever made (what housekeeping keeps),
-- while holding the deleted row's lock. An index per reference makes it a lookup; each costs a
-- launch one more index entry, and none covers a column the bet path updates (expires_at).
create index game_sessions_user_idx on game_sessions (user_id);
create index game_sessions_provider_idx on game_sessions (provider_id);
create index game_sessions_provider_game_idx on game_sessions (provider_game_id);
