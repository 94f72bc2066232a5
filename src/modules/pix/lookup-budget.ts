import type { RateLimiter } from '../../platform/rate-limit.ts';

/** The window of PIX_NOTIFICATION_LOOKUPS_PER_MIN. */
const WINDOW_S = 60;
/**
 * The shared counter hands an instance its look-ups in shares of a fiftieth of the limit, so a
 * payment's notification does not cost a write to one hot row (or a Redis round trip) each: at
 * the default limit, one write a 120 look-ups. What a share leaves unused when its window ends
 * is lost, so the most look-ups a window can see falls short of the limit by under a share an
 * instance.
 */
const SHARES_PER_WINDOW = 50;

interface Held {
  /** Look-ups this instance holds, usable until `until` (the end of the window they came from). */
  left: number;
  until: number;
  /** Every share of the window is taken: no look-up, and no question to the counter, before this. */
  closedUntil: number;
  /** The share being asked for: concurrent notifications wait for it rather than each taking one. */
  asking: Promise<void> | undefined;
}

/**
 * How many PSP look-ups notifications may make for one payment method in a minute, counted by the
 * app's rate limiter (the database, or Redis when configured), so the limit holds across
 * instances: a notification cannot spend the PSP's own rate limit through us. What it cannot look
 * up is left to reconciliation, which lists the PSP's payments page by page instead.
 */
export class LookupBudget {
  readonly #limiter: RateLimiter;
  readonly #share: number;
  readonly #shares: number;
  readonly #held = new Map<number, Held>();

  constructor(limiter: RateLimiter, perMinute: number) {
    if (!Number.isInteger(perMinute) || perMinute < 1) throw new Error('A look-up budget allows at least one look-up a minute.');
    this.#limiter = limiter;
    this.#share = Math.max(1, Math.floor(perMinute / SHARES_PER_WINDOW));
    this.#shares = Math.floor(perMinute / this.#share);
  }

  /** Takes up to `wanted` look-ups for payment method `methodId`; answers how many it may make. */
  async take(methodId: number, wanted: number): Promise<number> {
    const held = this.#held.get(methodId) ?? { left: 0, until: 0, closedUntil: 0, asking: undefined };
    this.#held.set(methodId, held);
    let granted = 0;
    while (granted < wanted) {
      const now = Date.now();
      if (held.left > 0 && now < held.until) {
        const taken = Math.min(held.left, wanted - granted);
        held.left -= taken;
        granted += taken;
        continue;
      }
      if (now < held.closedUntil) break;
      const asking = (held.asking ??= this.#ask(methodId, held).finally(() => (held.asking = undefined)));
      await asking;
    }
    return granted;
  }

  async #ask(methodId: number, held: Held): Promise<void> {
    const state = await this.#limiter.hit(`pix-lookups:${methodId}`, WINDOW_S);
    const until = Date.now() + state.retryAfter * 1000;
    if (state.hits > this.#shares) {
      held.left = 0;
      held.closedUntil = until;
      return;
    }
    held.left = this.#share;
    held.until = until;
  }
}
