-- When a session was signed in (the application's clock), so that a time limit that comes into
-- force during the session (REGULATION=br, session_minutes lowered or first set) ends it that
-- many minutes after its sign-in; game sessions keep the sign-in of the session that launched
-- them, so they end with it. A signed-in session is created at its sign-in (the id is always
-- regenerated then), so the existing ones' creation is their sign-in.
alter table sessions add column signed_in_at timestamptz;
update sessions set signed_in_at = created_at where user_id is not null;
alter table game_sessions add column signed_in_at timestamptz;
