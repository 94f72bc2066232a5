import { sql, type SQL } from 'drizzle-orm';
import type { Regulation } from '../../../config.ts';
import { rows, type Db } from '../../../platform/db/client.ts';
import type { Prunable } from '../../../platform/housekeeping.ts';

/**
 * How long a game session is kept after it ended. Nothing reads an ended session to move money
 * (wins and refunds name their bet, not a session; a replayed bet finds its recorded call), so
 * this is for people: support and provider reconciliation, which look back weeks or months.
 */
export const GAME_SESSION_RETENTION_DAYS = 90;
/**
 * REGULATION=br: online-game data is kept five years (Portaria SPA/MF 1.207, docs/regulation.md),
 * so no game session is pruned before five calendar years after it ended.
 */
export const REGULATED_RETENTION_YEARS = 5;
/** Rows deleted per statement, so a first sweep over a long backlog never holds locks for long. */
const BATCH = 5_000;

/**
 * Housekeeping of `game_sessions` (docs/games.md, "Launch"): deletes the sessions that ended
 * (`expires_at`, which a launch token's expiry never exceeds and which no call moves once past)
 * more than GAME_SESSION_RETENTION_DAYS ago (REGULATED_RETENTION_YEARS under REGULATION=br), except the newest redeemed money session of each
 * provider game, which keeps the game and its provider from being deleted while rounds played
 * through it exist (rounds have no foreign keys of their own). A session can only be newer than
 * a kept one, so concurrent sweeps on several instances never both delete a game's last one.
 */
export class GameSessionPruner implements Prunable {
  readonly #db: Db;
  readonly #keep: SQL;

  constructor(db: Db, regulation: Regulation = 'none') {
    this.#db = db;
    this.#keep =
      regulation === 'br'
        ? sql`make_interval(years => ${REGULATED_RETENTION_YEARS})`
        : sql`make_interval(days => ${GAME_SESSION_RETENTION_DAYS})`;
  }

  async prune(): Promise<number> {
    let total = 0;
    for (;;) {
      // A session is created before it ends, so the created_at index narrows the scan to old launches.
      const gone = await rows<{ id: string }>(
        this.#db,
        sql`with doomed as (
            select g.id from game_sessions g
            where g.created_at < now() - ${this.#keep}
              and g.expires_at < now() - ${this.#keep}
              and (g.redeemed_at is null or g.demo or exists (
                select 1 from game_sessions n
                where n.provider_id = g.provider_id and n.provider_game_id = g.provider_game_id
                  and n.redeemed_at is not null and not n.demo and n.id > g.id))
            order by g.created_at limit ${BATCH}
          )
          delete from game_sessions s using doomed d where s.id = d.id returning s.id`,
      );
      total += gone.length;
      if (gone.length < BATCH) return total;
    }
  }
}
