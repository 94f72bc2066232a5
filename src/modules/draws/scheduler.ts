import type { Clock } from '../../platform/clock.ts';
import type { AppContext } from '../../platform/context.ts';
import type { LeaderLock } from '../../platform/db/leader.ts';
import type { Logger } from '../../platform/logger.ts';
import { loggableError } from '../../platform/log-safety.ts';
import { nextDrawSlot } from './calendar.ts';
import { drawOutcome, newServerSeed, seedHash } from './fairness.ts';
import {
  closeDue,
  drawnUnsettled,
  dueToDraw,
  insertDraw,
  latestDraw,
  revealDraw,
  scheduledGames,
  settleDraw,
  type DueDraw,
} from './repository.ts';
import { checkGameSettings } from './settings.ts';
import { DRAW_STATUS } from './tables.ts';
import { gameType } from './types/registry.ts';

/** Bets settled per transaction: a 10,000-bet draw is one call (docs/draws.md, "Settlement"). */
export const SETTLE_BATCH = 10_000;
const EVERY_MS = 1000;
/** The name of the lock that makes one instance the scheduler. */
const SCHEDULER_LOCK = 'croupier:draw-scheduler';

export interface TickReport {
  /** False when another instance leads: this tick did nothing. */
  leader: boolean;
  closed: number;
  drawn: number;
  /** Bets settled. */
  settled: number;
  opened: number;
  /** Steps that failed (logged); the next tick tries them again. */
  failures: number;
}

export interface SchedulerOptions {
  clock: Clock;
  /** Which instance ticks for real; by default the database's leader lock named SCHEDULER_LOCK. */
  lock?: LeaderLock;
  log: Logger;
  /** Bets per settlement transaction. */
  batch?: number;
}

/**
 * Drives every draw game (docs/draws.md, "Scheduler"): each tick closes betting on draws past
 * their close, draws those whose time has come (the result from the sealed seed, then the seed
 * revealed), settles drawn draws, and opens the next draw of every enabled or maintenance game
 * that has none. Only the instance holding the leader lock ticks for real; every step is also
 * safe if two ever do (conditional updates, one draw per period, one settlement per bet). The
 * app starts it when ready (unless DRAW_SCHEDULER=off) and stops it on close; tests call `tick`
 * with the time they want.
 */
export class DrawScheduler {
  readonly #ctx: AppContext;
  readonly #clock: Clock;
  readonly #lock: LeaderLock;
  readonly #log: Logger;
  readonly #batch: number;
  /** Ticks run one after another, whether the timer or a caller asked. */
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** Whether the last tick led, so each change of leader is logged once (which instance leads is in the logs). */
  #leading = false;
  /** Games whose stored settings were reported unusable, with the settings reported (warned once each). */
  readonly #reported = new Map<number, string>();

  constructor(ctx: AppContext, options: SchedulerOptions) {
    this.#ctx = ctx;
    this.#clock = options.clock;
    this.#lock = options.lock ?? ctx.database.leaderLock(SCHEDULER_LOCK);
    this.#log = options.log;
    this.#batch = options.batch ?? SETTLE_BATCH;
  }

  get running(): boolean {
    return this.#running;
  }

  /** One pass over every game at `now` (default: the clock's time). */
  tick(now: Date = this.#clock.now()): Promise<TickReport> {
    const run = this.#queue.then(() => this.#tick(now));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    const next = () => {
      this.#timer = setTimeout(() => {
        this.tick()
          .catch((error: unknown) => this.#log.warn({ err: loggableError(error) }, 'draw scheduler tick failed'))
          .finally(() => {
            if (this.#running) next();
          });
      }, EVERY_MS);
    };
    next();
  }

  /** Stops the timer, waits for a tick in progress and gives up the lead. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#queue;
    await this.#lock.release();
    this.#lead(false);
  }

  #lead(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.#log.info(leading ? 'draw scheduler: this instance leads' : 'draw scheduler: this instance no longer leads');
  }

  async #tick(now: Date): Promise<TickReport> {
    const report: TickReport = { leader: false, closed: 0, drawn: 0, settled: 0, opened: 0, failures: 0 };
    const leading = await this.#lock.acquire().catch((error: unknown) => {
      this.#lead(false);
      throw error;
    });
    this.#lead(leading);
    if (!leading) return report;
    report.leader = true;
    const step = async (what: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        report.failures += 1;
        this.#log.error({ err: loggableError(error) }, `draw scheduler: ${what} failed; the next tick tries again`);
      }
    };
    const db = this.#ctx.db;
    await step('closing betting', async () => {
      report.closed = await closeDue(db, now);
    });
    let due: DueDraw[] = [];
    await step('finding due draws', async () => {
      due = await dueToDraw(db, now);
    });
    for (const draw of due) {
      await step(`drawing draw ${draw.id}`, async () => {
        if (await this.#draw(draw)) report.drawn += 1;
      });
    }
    let drawn: number[] = [];
    await step('finding draws to settle', async () => {
      drawn = await drawnUnsettled(db);
    });
    for (const id of drawn) {
      await step(`settling draw ${id}`, async () => {
        report.settled += await this.settle(id);
      });
    }
    await step('opening draws', async () => {
      report.opened = await this.#open(now);
    });
    return report;
  }

  /** The result from the sealed seed, recorded with the seed revealed; false if it was drawn or cancelled meanwhile. */
  async #draw(draw: DueDraw): Promise<boolean> {
    const type = gameType(draw.type);
    if (type === undefined || draw.seedEncrypted === null) throw new Error(`draw ${draw.id} cannot be drawn (type ${draw.type})`);
    const seed = this.#ctx.keys.decrypt(draw.seedEncrypted);
    if (seedHash(seed) !== draw.seedHash) throw new Error(`draw ${draw.id}: the sealed seed does not match its published hash`);
    const { result, winning } = drawOutcome(type, seed, draw.period);
    return revealDraw(this.#ctx.db, draw.id, seed, result, winning);
  }

  /** Settles a drawn draw in batches until none is left; answers the bets settled. */
  async settle(drawId: number): Promise<number> {
    let settled = 0;
    for (;;) {
      const outcome = await settleDraw(this.#ctx.db, drawId, this.#batch);
      // Each batch is its own transaction, committed by now: its winners' lines in one count.
      this.#ctx.money.ledgerLines('win', outcome.won, outcome.paid);
      settled += outcome.settled;
      if (outcome.outcome !== 'partial') return settled;
    }
  }

  /** Opens the next draw of every scheduled game that has no undrawn one. */
  async #open(now: Date): Promise<number> {
    let opened = 0;
    for (const game of await scheduledGames(this.#ctx.db)) {
      const checked = checkGameSettings(game.type, game.settings);
      if (!checked.ok) {
        const seen = JSON.stringify([game.type, game.settings]);
        if (this.#reported.get(game.id) !== seen) {
          this.#reported.set(game.id, seen);
          this.#log.warn({ gameId: game.id, code: game.code, errors: checked.errors }, 'draw game not scheduled: its settings do not pass');
        }
        continue;
      }
      this.#reported.delete(game.id);
      const latest = await latestDraw(this.#ctx.db, game.id);
      if (latest !== undefined && (latest.status === DRAW_STATUS.open || latest.status === DRAW_STATUS.closed)) continue;
      // A draw cancelled before its time does not hold the next one back until that time.
      const after = latest && {
        period: latest.period,
        drawAt: latest.status === DRAW_STATUS.cancelled && latest.draw_at > now ? now : latest.draw_at,
      };
      const slot = nextDrawSlot(now, checked.settings, after);
      const seed = newServerSeed();
      const id = await insertDraw(this.#ctx.db, {
        gameId: game.id,
        type: checked.type.code,
        ...slot,
        seedHash: seedHash(seed),
        seedEncrypted: this.#ctx.keys.encrypt(seed),
      });
      if (id !== undefined) opened += 1;
    }
    return opened;
  }
}
