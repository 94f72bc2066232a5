import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { totpCode } from '../../src/modules/auth/two-factor.ts';
import { assignRole } from '../../src/modules/access/repository.ts';
import type { Db } from '../../src/platform/db/client.ts';
import { SESSIONS_TOPIC } from '../../src/platform/session/cached-store.ts';
import { freshDatabase, type TestDatabase } from './database.ts';
import { startSmtp, type Inbox } from './smtp.ts';

export const TEST_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  db: Db;
  database: TestDatabase;
  inbox: Inbox;
  client(options?: { ip?: string; origin?: string }): Client;
  /** A signed-up and signed-in player (through the real endpoints). */
  player(overrides?: Partial<{ email: string; password: string; name: string }>): Promise<SignedIn>;
  /** A signed-in user holding `role`. */
  withRole(role: string): Promise<SignedIn>;
  /**
   * After a test changes users or sessions with SQL behind the app's back: the app's session
   * cache forgets everything, as it does when a command announces such a change.
   */
  changedOutside(): Promise<void>;
  close(): Promise<void>;
}

export interface SignedIn {
  client: Client;
  id: number;
  email: string;
  password: string;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    APP_KEY: TEST_KEY,
    PAYMENT_SANDBOX_SECRET: 'sandbox-test-secret',
    PIX_KEY: '123e4567-e12b-12d1-a456-426655440000',
    DATA_DIR: '/tmp/croupier-test-data',
    LOG_LEVEL: 'silent',
    // No timers in tests: draw tests tick the scheduler by hand (app.drawScheduler.tick), PIX
    // tests reconcile by hand (app.pixReconciler.run).
    DRAW_SCHEDULER: 'off',
    PIX_RECONCILE_S: '0',
    // Payout reconciliation too (app.payoutReconciler.run).
    PIX_PAYOUT_RECONCILE_S: '0',
    ...env,
  });
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}-${process.pid}@example.com`;
}

/** Builds the app on a fresh database with a real SMTP server, for one test file. */
export async function startApp(env: Record<string, string> = {}, options: Partial<AppOptions> = {}): Promise<TestApp> {
  const inbox = await startSmtp();
  // What a failed start opened is closed before the error goes on: an SMTP server or a database
  // left open keeps the test file's process alive, and the runner would wait for it until its
  // timeout instead of reporting the error.
  let database: TestDatabase | undefined;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let config: ReturnType<typeof testConfig>;
  try {
    database = await freshDatabase();
    config = testConfig({ MAIL_URL: inbox.url, ...env });
    app = await buildApp(config, { database: database.database, hashing: { memoryCost: 1024, timeCost: 1 }, ...options });
    await app.ready();
  } catch (error) {
    await database?.drop().catch(() => {});
    await inbox.close();
    throw error;
  }
  const testApp: TestApp = {
    app,
    config,
    db: database.database.db,
    database,
    inbox,
    client: (opts) => new Client(app, opts),
    async player(overrides = {}) {
      const client = new Client(app);
      const email = overrides.email ?? uniqueEmail('player');
      const password = overrides.password ?? 'password';
      await client.csrf();
      const res = await client.post('/api/register', {
        name: overrides.name ?? 'Player',
        email,
        password,
        password_confirmation: password,
        agreement: true,
      });
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
      const me = await client.get('/api/user');
      return { client, id: (me.json as { id: number }).id, email, password };
    },
    async withRole(role) {
      const signedIn = await testApp.player({ name: role });
      await assignRole(testApp.db, signedIn.id, role);
      await testApp.changedOutside();
      return signedIn;
    },
    async changedOutside() {
      await app.invalidation.publish(SESSIONS_TOPIC);
    },
    async close() {
      await app.close();
      await database.drop();
      await inbox.close();
    },
  };
  return testApp;
}

/** One app for the whole test file, closed after it. */
export function useApp(env: Record<string, string> = {}, options: Partial<AppOptions> = {}): () => TestApp {
  let current: TestApp | undefined;
  before(async () => {
    current = await startApp(env, options);
  });
  after(async () => {
    await current?.close();
  });
  return () => {
    if (current === undefined) throw new Error('The app is not started yet.');
    return current;
  };
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  /** The body's bytes as sent (a compressed answer's `text` is not its JSON). */
  raw?: Buffer;
  json: unknown;
  cookies: SetCookie[];
}

export interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

function parseSetCookie(header: string): SetCookie {
  const [pair = '', ...rest] = header.split(';');
  const index = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const [key = '', ...value] = part.trim().split('=');
    attributes[key.toLowerCase()] = value.length === 0 ? true : value.join('=');
  }
  return { name: pair.slice(0, index).trim(), value: pair.slice(index + 1).trim(), attributes };
}

/** A browser-like client: keeps cookies and sends the XSRF-TOKEN back as X-XSRF-TOKEN, as axios does. */
export class Client {
  readonly jar = new Map<string, string>();
  readonly #app: FastifyInstance;
  readonly #ip: string;
  readonly #origin: string | undefined;

  constructor(app: FastifyInstance, options: { ip?: string; origin?: string } = {}) {
    this.#app = app;
    this.#ip = options.ip ?? '127.0.0.1';
    this.#origin = options.origin;
  }

  get xsrf(): string | undefined {
    return this.jar.get('XSRF-TOKEN');
  }

  async csrf(): Promise<Response> {
    return this.request('GET', '/api/csrf-cookie');
  }

  get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('GET', url, undefined, headers);
  }

  post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('POST', url, body, headers);
  }

  put(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('PUT', url, body, headers);
  }

  patch(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('PATCH', url, body, headers);
  }

  delete(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.request('DELETE', url, body, headers);
  }

  async request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const sent: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest', ...headers };
    if (this.jar.size > 0 && sent.cookie === undefined) {
      sent.cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    if (this.xsrf !== undefined && sent['x-xsrf-token'] === undefined && headers['x-xsrf-token'] !== '') sent['x-xsrf-token'] = this.xsrf;
    if (sent['x-xsrf-token'] === '') delete sent['x-xsrf-token'];
    if (this.#origin !== undefined) sent.origin = this.#origin;
    let payload: string | Buffer | undefined;
    if (body !== undefined) {
      if (Buffer.isBuffer(body) || typeof body === 'string') payload = body;
      else {
        payload = JSON.stringify(body);
        sent['content-type'] ??= 'application/json';
      }
    }
    const res = await this.#app.inject({ method: method as 'GET', url, headers: sent, payload, remoteAddress: this.#ip });
    const setCookies = [res.headers['set-cookie'] ?? []].flat().map(parseSetCookie);
    for (const cookie of setCookies) {
      const expired =
        cookie.attributes['max-age'] === '0' ||
        (typeof cookie.attributes.expires === 'string' && Date.parse(cookie.attributes.expires) < Date.now());
      if (expired || cookie.value === '') this.jar.delete(cookie.name);
      else this.jar.set(cookie.name, cookie.value);
    }
    let json: unknown;
    try {
      json = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text: res.body, raw: res.rawPayload, json, cookies: setCookies };
  }
}

export function currentTotp(secret: string, offsetSteps = 0): string {
  return totpCode(secret, Date.now() + offsetSteps * 30_000);
}
