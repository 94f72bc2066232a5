-- When a signed-in session ends whatever its activity (REGULATION=br: session_minutes after
-- sign-in); null: only the idle lifetime ends it.
alter table sessions add column ends_at timestamptz;
