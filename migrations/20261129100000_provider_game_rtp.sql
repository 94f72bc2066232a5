-- The return to player of a provider game, from its certificate, in basis points (96.00 % =
-- 9600), set by the operator (docs/regulation.md, "RTP"). Null: not stated; under
-- REGULATION=br such a game cannot be enabled.
alter table provider_games add column rtp_bp integer;
alter table provider_games add constraint provider_games_rtp_bp_check check (rtp_bp between 0 and 10000);
