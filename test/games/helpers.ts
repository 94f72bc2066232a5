import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { WalletStatus } from '../../src/modules/games/adapters/adapter.ts';
import { LAUNCH_TOKEN_LIFE_S, SESSION_LIFE_S } from '../../src/modules/games/launch/service.ts';
import { gameSessions, providerGames, providers } from '../../src/modules/games/tables.ts';
import { Keyring, randomAlphanumeric, sha256 } from '../../src/platform/crypto.ts';
import { signBody } from '../../src/platform/signature.ts';
import type { Response, TestApp } from '../helpers/app.ts';
import { HUB_STATUS, hubSignature, PER_CENT } from './hub-adapter.ts';

export interface TestProvider {
  id: number;
  code: string;
  secret: string;
}

let made = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++made}`;

/** A provider as an operator would create it, written directly (the catalogue admin is another module's). */
export async function createProvider(
  t: TestApp,
  options: { adapter?: string; secret?: string | null; status?: number; adapterConfig?: Record<string, unknown> } = {},
): Promise<TestProvider> {
  const code = unique('prov');
  const secret = options.secret === undefined ? randomAlphanumeric(40) : options.secret;
  const [row] = await t.db
    .insert(providers)
    .values({
      name: code,
      code,
      adapter: options.adapter ?? 'demo',
      status: options.status ?? 1,
      walletSecret: secret === null ? null : new Keyring(t.config.appKey).encrypt(secret),
      adapterConfig: options.adapterConfig,
    })
    .returning({ id: providers.id });
  return { id: row!.id, code, secret: secret ?? '' };
}

/**
 * Who each token and each bet belongs to, as a provider knows it (it launched the player, and it
 * placed the bet): protocols that name the player besides the token or bet (Hub88's `user`) read
 * them when a kit call names only a token or a bet.
 */
export const tokenOwners = new Map<string, number>();
export const betTokens = new Map<string, string>();

export async function createGame(t: TestApp, providerId: number, options: { status?: number } = {}): Promise<{ id: number; code: string }> {
  const code = unique('game');
  const [row] = await t.db
    .insert(providerGames)
    .values({ providerId, name: code, slug: code, code, status: options.status ?? 1 })
    .returning({ id: providerGames.id });
  return { id: row!.id, code };
}

export interface Launched {
  id: number;
  token: string;
}

/**
 * A launch as `GET /api/provider-games/:game/launch` makes it (docs/games.md, "Launch"): a
 * random launch token stored as its SHA-256, redeemable for LAUNCH_TOKEN_LIFE_S, a session of
 * SESSION_LIFE_S; with `session` (an adapter whose provider keeps one token for the session,
 * Hub88), the token is the session's own, already redeemed (launch/service.ts).
 */
export async function launch(
  t: TestApp,
  input: { userId: number; providerId: number; gameId: number; demo?: boolean; currency?: string; session?: boolean },
): Promise<Launched> {
  const token = randomAlphanumeric(40);
  const session = input.session === true && input.demo !== true;
  const [row] = await t.db
    .insert(gameSessions)
    .values({
      userId: input.userId,
      providerId: input.providerId,
      providerGameId: input.gameId,
      currency: input.currency ?? 'BRL',
      demo: input.demo ?? false,
      expiresAt: sql`now() + make_interval(secs => ${SESSION_LIFE_S})`,
      ...(session
        ? {
            launchTokenHash: sha256(randomAlphanumeric(40)),
            sessionTokenHash: sha256(token),
            launchExpiresAt: sql`now()`,
            redeemedAt: sql`now()`,
          }
        : { launchTokenHash: sha256(token), launchExpiresAt: sql`now() + make_interval(secs => ${LAUNCH_TOKEN_LIFE_S})` }),
    })
    .returning({ id: gameSessions.id });
  tokenOwners.set(token, input.userId);
  return { id: row!.id, token };
}

export async function endSession(t: TestApp, sessionId: number): Promise<void> {
  await t.db
    .update(gameSessions)
    .set({ expiresAt: sql`now() - interval '1 second'` })
    .where(eq(gameSessions.id, sessionId));
}

export async function expireLaunch(t: TestApp, sessionId: number): Promise<void> {
  await t.db
    .update(gameSessions)
    .set({ launchExpiresAt: sql`now() - interval '1 second'` })
    .where(eq(gameSessions.id, sessionId));
}

/** A wallet call in our terms; money in cents. */
export type KitCall =
  | { action: 'balance'; token: string }
  | { action: 'bet'; token: string; transactionId: string; roundId: string; game: string; amount: bigint; currency?: string }
  | {
      action: 'win';
      transactionId: string;
      betTransactionId: string;
      roundId: string;
      amount: bigint;
      currency?: string;
      roundClosed?: boolean;
    }
  | { action: 'refund'; transactionId: string; betTransactionId: string };

export interface KitAnswer {
  /** The status in the protocol's words (`driver.word` of ours). */
  status: string;
  /** Cents; null when the answer carries none. */
  balance: bigint | null;
  session: string | undefined;
}

export interface Sent {
  res: Response;
  /** The body as sent. */
  raw: string;
  /** The answer read back in our terms (HTTP 200 only). */
  answer: KitAnswer | undefined;
}

export interface SendOptions {
  /** Unix seconds the signature claims (default now). */
  at?: number;
  /** Sign with this instead of the provider's secret. */
  secret?: string;
  /** The path's provider (default the id). */
  provider?: string;
  /** The body as sent, instead of the call's wire form. */
  raw?: string;
}

/** How a conformance run speaks one adapter's wire format: the provider's side of the protocol. */
export interface WalletDriver {
  adapter: string;
  body(call: KitCall): Record<string, unknown>;
  headers(secret: string, raw: string, at: number): Record<string, string>;
  read(json: Record<string, unknown>): KitAnswer;
  /** The path a call goes to, for the path's provider (its id or code). */
  path(provider: string, action: KitCall['action']): string;
  /** A provider of this adapter, keyed as the driver signs (its `secret` is what `headers` signs with). */
  createProvider(t: TestApp, options: { status?: number; keyless?: boolean }): Promise<TestProvider>;
  /** A key of the right kind that is not the provider's. */
  otherSecret: string;
  /** How launch tokens work (GameProviderAdapter.launchToken). */
  launchToken: 'redeem' | 'session';
  /** Whether the signature covers a timestamp, so that a stale one is refused. */
  timestamped: boolean;
  /** One of our outcomes in the protocol's words. */
  word(status: WalletStatus): string;
  /** Whether an answer with `status` carries the balance. */
  carriesBalance(status: WalletStatus): boolean;
  /** Whether `res` is the protocol's refusal of a signature (docs/api.md's 401, or an HTTP 200 in its words). */
  refusedSignature(res: Response): boolean;
  /** Whether `res` is the protocol's refusal of a body it cannot read (a 422, or an HTTP 200 in its words). */
  refusedBody(res: Response): boolean;
}

/** What the built-in protocol and its test cousin share: docs/api.md's errors and the generic path. */
const genericDriver = {
  path: (provider: string, action: KitCall['action']) => `/api/providers/${provider}/wallet/${action}`,
  launchToken: 'redeem' as const,
  timestamped: true,
  otherSecret: 'not-the-secret',
  refusedSignature: (res: Response) => res.status === 401 && JSON.stringify(res.json) === JSON.stringify({ message: 'Invalid signature.' }),
  refusedBody: (res: Response) => {
    const json = res.json as { message?: unknown; errors?: Record<string, string[]> } | undefined;
    return res.status === 422 && typeof json?.message === 'string' && Object.keys(json.errors ?? {}).length >= 3;
  },
};

const units = (cents: bigint) => Number(cents) / 100;

/** The built-in protocol (adapter `demo`). */
export const demoDriver: WalletDriver = {
  ...genericDriver,
  adapter: 'demo',
  createProvider: (t, options) =>
    createProvider(t, { adapter: 'demo', status: options.status, secret: options.keyless === true ? null : undefined }),
  word: (status) => status,
  carriesBalance: () => true,
  body(call) {
    switch (call.action) {
      case 'balance':
        return { token: call.token };
      case 'bet':
        return {
          token: call.token,
          transaction_id: call.transactionId,
          round_id: call.roundId,
          game: call.game,
          amount: units(call.amount),
          currency: call.currency ?? 'BRL',
        };
      case 'win':
        return {
          transaction_id: call.transactionId,
          bet_transaction_id: call.betTransactionId,
          round_id: call.roundId,
          amount: units(call.amount),
          currency: call.currency ?? 'BRL',
          ...(call.roundClosed === undefined ? {} : { round_closed: call.roundClosed }),
        };
      case 'refund':
        return { transaction_id: call.transactionId, bet_transaction_id: call.betTransactionId };
    }
  },
  headers: (secret, raw, at) => ({ 'x-signature': signBody(secret, raw, at) }),
  read(json) {
    const balance = json.balance as number | null;
    return {
      status: json.status as WalletStatus,
      balance: balance === null ? null : BigInt(Math.round(balance * 100)),
      session: json.session as string | undefined,
    };
  },
};

const HUB_STATUSES = new Set<string>(Object.values(HUB_STATUS));

/** The Hub88-like test adapter (`hub`). */
export const hubDriver: WalletDriver = {
  ...genericDriver,
  adapter: 'hub',
  createProvider: (t, options) =>
    createProvider(t, { adapter: 'hub', status: options.status, secret: options.keyless === true ? null : undefined }),
  word: (status) => HUB_STATUS[status],
  carriesBalance: () => true,
  body(call) {
    const request_uuid = randomUUID();
    switch (call.action) {
      case 'balance':
        return { request_uuid, token: call.token };
      case 'bet':
        return {
          request_uuid,
          token: call.token,
          transaction_uuid: call.transactionId,
          round: call.roundId,
          game_code: call.game,
          amount: Number(call.amount * PER_CENT),
          currency: call.currency ?? 'BRL',
        };
      case 'win':
        return {
          request_uuid,
          transaction_uuid: call.transactionId,
          reference_transaction_uuid: call.betTransactionId,
          round: call.roundId,
          amount: Number(call.amount * PER_CENT),
          currency: call.currency ?? 'BRL',
          round_closed: call.roundClosed ?? false,
        };
      case 'refund':
        return { request_uuid, transaction_uuid: call.transactionId, reference_transaction_uuid: call.betTransactionId };
    }
  },
  headers: (secret, raw, at) => ({ 'x-hub-signature': hubSignature(secret, raw, at * 1000), 'x-hub-timestamp': String(at * 1000) }),
  read(json) {
    const balance = json.balance as number | null;
    if (!HUB_STATUSES.has(json.status as string)) throw new Error(`unknown status ${String(json.status)}`);
    return {
      status: json.status as string,
      balance: balance === null ? null : BigInt(balance) / PER_CENT,
      session: json.token as string | undefined,
    };
  },
};

/** Sends one signed wallet call as the provider's server would. */
export async function send(
  t: TestApp,
  driver: WalletDriver,
  provider: TestProvider,
  call: KitCall,
  options: SendOptions = {},
): Promise<Sent> {
  const body = driver.body(call);
  const raw = options.raw ?? JSON.stringify(body);
  const at = options.at ?? Math.floor(Date.now() / 1000);
  const res = await t.app.inject({
    method: 'POST',
    url: driver.path(options.provider ?? String(provider.id), call.action),
    headers: { 'content-type': 'application/json', ...driver.headers(options.secret ?? provider.secret, raw, at) },
    payload: raw,
  });
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  const answer = res.statusCode === 200 ? driver.read(json as Record<string, unknown>) : undefined;
  return { res: { status: res.statusCode, headers: res.headers, text: res.body, json, cookies: [] }, raw, answer };
}
