import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import { randomAlphanumeric, sha256 } from '../../../platform/crypto.ts';
import { ProviderUnavailableError, ValidationError } from '../../../platform/errors.ts';
import type { Logger } from '../../../platform/logger.ts';
import { throttle } from '../../../platform/rate-limit.ts';
import type { GameAdapters, Launch, LaunchRequest } from '../adapters/adapter.ts';
import { openConfig } from '../adapters/config.ts';
import { pathKey } from '../catalogue/records.ts';
import { CATALOGUE_STATUS, gameSessions, providerGames, providers } from '../tables.ts';
import { inDatabaseTime } from './session-end.ts';

/** The launch token's life: the provider redeems it once, shortly after the launch. */
export const LAUNCH_TOKEN_LIFE_S = 120;
/**
 * The game session's life: a launch starts the session with it, and each accepted bet moves the
 * session's end to this far from then (the wallet's provider_wallet_bet is handed it).
 */
export const SESSION_LIFE_S = 30 * 60;
const TOKEN_LENGTH = 48;
/**
 * Launches a player may ask for per window: each writes a session row and may call the provider,
 * and a player opens a game every few seconds at most, so 30 a minute is far above real use.
 */
export const LAUNCH_LIMIT = 30;
export const LAUNCH_WINDOW_S = 60;

/** An enabled game of an enabled provider, with what a launch needs of both. */
export interface LaunchableGame {
  id: number;
  slug: string;
  code: string;
  name: string;
  providerId: number;
  providerCode: string;
  adapter: string;
  /** The provider's adapter configuration as stored (write-only fields sealed). */
  adapterConfig: Record<string, unknown> | null;
}

/** The player's session a launch comes from: the game session ends with it (session_minutes). */
export interface LaunchingSession {
  signedInAt: Date | null;
  endsAt: Date | null;
}

/** What the player's browser said of itself (the launch route reads it from the request). */
export type LaunchClient = LaunchRequest['client'];

export interface LaunchAnswer extends Launch {
  /** The launch token (docs/api.md section 7); only its SHA-256 digest is stored. */
  token: string;
}

/**
 * `GET /api/provider-games/:game/launch`: a game session row with a new single-use launch token
 * bound to user, provider, game and currency (committed first, on its own), then the adapter's
 * launch outside any transaction. When the adapter fails the session is expired at once, so the
 * token it was given can never be redeemed.
 *
 * For an adapter whose provider keeps one token for the whole game session (`launchToken:
 * 'session'`, Hub88), the token handed over is the session's own: the row is written redeemed,
 * with the token as its session token and a launch token nobody is given, so no redemption is
 * asked for and every call of the session carries it until the session ends.
 */
/** What a money launch must pass first (responsible gambling, src/modules/limits). */
export interface PlayGate {
  assertMayPlay(userId: number): Promise<void>;
}

export class LaunchService {
  readonly #ctx: AppContext;
  readonly #adapters: GameAdapters;
  readonly #play: PlayGate | undefined;

  constructor(ctx: AppContext, adapters: GameAdapters, play?: PlayGate) {
    this.#ctx = ctx;
    this.#adapters = adapters;
    this.#play = play;
  }

  /**
   * Counts a launch request of the player in a fixed window shared by every instance (ctx.limiter,
   * as the two-factor challenge counts tries); past LAUNCH_LIMIT, a 429 with Retry-After.
   */
  async throttle(userId: number): Promise<void> {
    await throttle(this.#ctx.limiter, `launch|${userId}`, LAUNCH_LIMIT, LAUNCH_WINDOW_S);
  }

  /**
   * REGULATION=br: no money launch while self-excluded, listed or without limits
   * (docs/regulation.md); demo play moves no money. Asked before the game is looked up: the
   * player's gates come before anything about the game.
   */
  async assertMayLaunch(userId: number, demo: boolean): Promise<void> {
    if (!demo) await this.#play?.assertMayPlay(userId);
  }

  /** The game a path value names (an all-digit id, else a slug), if it and its provider are enabled. */
  async findLaunchable(param: string): Promise<LaunchableGame | undefined> {
    const key = pathKey(param);
    if (key === undefined) return undefined;
    const [row] = await this.#ctx.db
      .select({
        id: providerGames.id,
        slug: providerGames.slug,
        code: providerGames.code,
        name: providerGames.name,
        providerId: providers.id,
        providerCode: providers.code,
        adapter: providers.adapter,
        adapterConfig: providers.adapterConfig,
      })
      .from(providerGames)
      .innerJoin(providers, eq(providers.id, providerGames.providerId))
      .where(
        and(
          'id' in key ? eq(providerGames.id, key.id) : eq(providerGames.slug, key.code),
          eq(providerGames.status, CATALOGUE_STATUS.enabled),
          eq(providers.status, CATALOGUE_STATUS.enabled),
        ),
      );
    return row;
  }

  /**
   * `from`: the signed-in session launching. The game session keeps its sign-in, and its end
   * (session_minutes) as the time left: no bet, redemption or call after it.
   */
  async launch(
    userId: number,
    game: LaunchableGame,
    demo: boolean,
    client: LaunchClient,
    log: Logger,
    from: LaunchingSession | null = null,
  ): Promise<LaunchAnswer> {
    const adapter = this.#adapters.get(game.adapter);
    if (adapter === undefined) {
      // A provider naming an adapter this instance lacks (an older release beside a newer one).
      log.warn({ provider: game.providerId, adapter: game.adapter }, 'game launch: unknown adapter');
      throw new ProviderUnavailableError();
    }
    if (demo && !adapter.supportsDemo) throw ValidationError.field('demo', 'Demo play is not available for this game.');

    const db = this.#ctx.db;
    const token = randomAlphanumeric(TOKEN_LENGTH);
    const currency = this.#ctx.config.defaultCurrency;
    const sessionToken = adapter.launchToken === 'session' && !demo;
    const msLeft = from === null ? null : this.#ctx.sessions.timeLeft(from);
    const endsAt = msLeft === null ? null : inDatabaseTime(msLeft);
    const [session] = await db
      .insert(gameSessions)
      .values({
        userId,
        providerId: game.providerId,
        providerGameId: game.id,
        currency,
        demo,
        expiresAt: sql`now() + make_interval(secs => ${SESSION_LIFE_S})`,
        endsAt,
        signedInAt: from?.signedInAt ?? null,
        ...(sessionToken
          ? {
              launchTokenHash: sha256(randomAlphanumeric(TOKEN_LENGTH)),
              sessionTokenHash: sha256(token),
              launchExpiresAt: sql`now()`,
              redeemedAt: sql`now()`,
            }
          : {
              launchTokenHash: sha256(token),
              launchExpiresAt: sql`least(now() + make_interval(secs => ${LAUNCH_TOKEN_LIFE_S}), ${endsAt})`,
            }),
      })
      .returning({ id: gameSessions.id });

    let launch: Launch;
    try {
      launch = await adapter.launch({
        provider: { id: game.providerId, code: game.providerCode },
        game: { id: game.id, slug: game.slug, code: game.code, name: game.name },
        token,
        currency,
        demo,
        appUrl: this.#ctx.config.appUrl,
        player: { id: userId },
        client,
        lobbyUrl: this.#ctx.config.frontendUrl,
        config: openConfig(adapter.config, game.adapterConfig, this.#ctx.keys),
      });
      if (typeof launch.url !== 'string' || !(launch.html === null || typeof launch.html === 'string')) {
        throw new Error('The adapter answered a launch without a URL.');
      }
    } catch (error) {
      await db
        .update(gameSessions)
        .set({ launchExpiresAt: sql`now()`, expiresAt: sql`now()` })
        .where(eq(gameSessions.id, session!.id));
      log.warn({ err: error, provider: game.providerId, game: game.id, session: session!.id }, 'game launch: the adapter failed');
      throw new ProviderUnavailableError();
    }
    return { url: launch.url, html: launch.html, token };
  }
}
