-- A draw bet's game is its draw's: one composite foreign key says so, instead of a key to games
-- and another to draws (the same change as 20261201090000 for PIX payments, for the same reason).
--
-- Why: a foreign-key check locks the row it names FOR KEY SHARE, and every bet on a game named
-- the same games row, so concurrent bets made a MultiXact on it for each bet, beside the one the
-- draw row's share lock makes (place_draw_bet locks the open draw FOR SHARE on purpose, so that
-- closing and drawing wait for bets in flight). The composite key locks the draw row, which the
-- bet already holds more strongly: no lock, no MultiXact, one check instead of two. The game
-- stays protected: its draws refer to it (on delete restrict), and each bet to its draw.
alter table draws add constraint draws_id_game_unique unique (id, game_id);
alter table draw_bets
  drop constraint draw_bets_draw_id_fkey,
  drop constraint draw_bets_game_id_fkey,
  add constraint draw_bets_draw_game_fkey foreign key (draw_id, game_id) references draws (id, game_id) on delete restrict;
