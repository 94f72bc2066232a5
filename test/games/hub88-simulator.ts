// A Hub88 simulator: what Hub88 is to an operator, as its Operator API documents it
// (docs.hub88.io "Wallet API", "Seamless Wallet response statuses", "Request signing", "Games
// API"; docs/games.md "Connecting a Hub88 operator account"). It has its own RSA key pair and
// knows ours (the operator's, generated here too). Towards us it is Hub88's wallet client: it
// signs its calls with its private key and checks every answer against the documented response
// (HTTP 200, an RS_* status of the documented list, `user` and `request_uuid` echoed, the balance
// and currency where the docs ask for them, integer amounts, nothing else), so an answer it does
// not accept fails the test. Towards our launches and catalogue sync it is Hub88's Games API: an
// HTTP server answering POST /operator/generic/v2/game/url and /game/list as documented, which
// refuses a call our key did not sign or a body the docs do not allow.
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../helpers/app.ts';

/** Every status of Hub88's operator Wallet API. */
export const RS_STATUSES = [
  'RS_OK',
  'RS_ERROR_UNKNOWN',
  'RS_ERROR_INVALID_PARTNER',
  'RS_ERROR_INVALID_TOKEN',
  'RS_ERROR_INVALID_GAME',
  'RS_ERROR_WRONG_CURRENCY',
  'RS_ERROR_NOT_ENOUGH_MONEY',
  'RS_ERROR_USER_DISABLED',
  'RS_ERROR_INVALID_SIGNATURE',
  'RS_ERROR_TOKEN_EXPIRED',
  'RS_ERROR_WRONG_SYNTAX',
  'RS_ERROR_WRONG_TYPES',
  'RS_ERROR_DUPLICATE_TRANSACTION',
  'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
  'RS_ERROR_TRANSACTION_ROLLED_BACK',
  'RS_ERROR_LIMIT_REACHED',
  'RS_ERROR_BET_LIMIT_EXCEEDED',
  'RS_ERROR_TIMEOUT',
] as const;

/** Amounts on Hub88's wire: the unit × 100,000, so a cent is 1,000. */
export const PER_CENT = 1000n;

export type Hub88Path = 'user/info' | 'user/balance' | 'transaction/bet' | 'transaction/win' | 'transaction/rollback';

const ANSWER_FIELDS = new Set(['user', 'status', 'request_uuid', 'currency', 'balance']);

export interface KeyPair {
  publicKey: string;
  privateKey: string;
}

export function rsaKeyPair(): KeyPair {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** `X-Hub88-Signature`: base64 RSA-SHA256 of the exact body. */
export function signed(body: string, privateKey: string): string {
  return sign('sha256', Buffer.from(body), privateKey).toString('base64');
}

/** A game as Hub88's /game/list documents it (the fields Hub88's own API tests check). */
export interface ListedHub88Game {
  game_code: string;
  name: string;
  enabled: boolean;
  [field: string]: unknown;
}

export function hub88Game(code: string, name: string, enabled = true): ListedHub88Game {
  return {
    url_thumb: `https://cdn.hub88.example/${code}/thumb.jpg`,
    url_background: `https://cdn.hub88.example/${code}/bg.jpg`,
    product: 'Simulated Studio',
    platforms: ['GPL_DESKTOP', 'GPL_MOBILE'],
    name,
    game_code: code,
    freebet_support: false,
    phoenix_jackpot_support: null,
    enabled,
    category: 'Video Slots',
    blocked_countries: [],
    release_date: '2024-01-01',
    volatility: 3,
    rtp: '96.00',
    paylines: 20,
    hit_ratio: '25.00',
    certifications: [],
    languages: ['en', 'pt'],
    technology: ['html5'],
    features: [],
  };
}

/** What a wallet call came back with: the HTTP status, the raw text and the parsed answer. */
export interface Hub88Reply {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

export interface GameUrlRequest {
  body: Record<string, unknown>;
  url: string;
}

/** How the Games API side answers: as documented, with an error, or not at all (until it is stopped). */
export type GamesApiMode = 'ok' | 'error' | 'hang';

export class Hub88Simulator {
  /** Hub88's own key pair: it signs the wallet calls; its public key is the provider's `hub88_public_key`. */
  readonly hub88 = rsaKeyPair();
  /** The operator's (ours): its private key is the provider's `private_key`; Hub88 verifies our calls with the public one. */
  readonly operator = rsaKeyPair();
  readonly operatorId: number;
  games: ListedHub88Game[] = [hub88Game('sim_fruits', 'Simulated Fruits'), hub88Game('sim_gems', 'Simulated Gems')];
  mode: GamesApiMode = 'ok';
  readonly gameUrls: GameUrlRequest[] = [];
  /** Every signed /game/url body received, answered or not. */
  readonly gameUrlAttempts: Record<string, unknown>[] = [];
  readonly gameLists: Record<string, unknown>[] = [];
  readonly refused: { path: string; status: number; error: string }[] = [];
  #server: Server | undefined;
  #baseUrl = '';
  readonly #hanging = new Set<ServerResponse>();

  constructor(operatorId = 4242) {
    this.operatorId = operatorId;
  }

  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** The provider's `adapter_config` for this simulator. */
  config(): Record<string, unknown> {
    return {
      base_url: this.#baseUrl || 'http://127.0.0.1:9',
      operator_id: this.operatorId,
      hub88_public_key: this.hub88.publicKey,
      private_key: this.operator.privateKey,
    };
  }

  // Wallet API: Hub88 calling us -------------------------------------------------------------

  /** A wallet call as Hub88 makes it: the body signed with Hub88's key (or `as` another one), the answer checked against the docs. */
  async call(
    t: TestApp,
    provider: string,
    path: Hub88Path,
    body: Record<string, unknown>,
    options: { raw?: string; as?: string; signature?: string | null } = {},
  ): Promise<Hub88Reply> {
    const raw = options.raw ?? JSON.stringify(body);
    const signature = options.signature === undefined ? signed(raw, options.as ?? this.hub88.privateKey) : options.signature;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/providers/${provider}/hub88/${path}`,
      headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-hub88-signature': signature }) },
      payload: raw,
    });
    const reply = { status: res.statusCode, text: res.body, json: JSON.parse(res.body) as Record<string, unknown> };
    if (res.statusCode === 200) checkAnswer(path, body, reply.json);
    return reply;
  }

  // Games API: us calling Hub88 --------------------------------------------------------------

  async start(): Promise<void> {
    this.#server = createServer((req, res) => void this.#serve(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.#baseUrl = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server === undefined ? resolve() : this.#server.close(() => resolve())));
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const refuse = (status: number, error: string) => {
      this.refused.push({ path: req.url ?? '', status, error });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
    };
    if (req.method !== 'POST' || (req.url !== '/operator/generic/v2/game/url' && req.url !== '/operator/generic/v2/game/list')) {
      return refuse(404, 'The resource requested wasn’t found.');
    }
    // Error codes (docs.hub88.io, "Error codes"): 401 for a missing or invalid signature.
    const signature = req.headers['x-hub88-signature'];
    if (typeof signature !== 'string' || !verify('sha256', Buffer.from(text), this.operator.publicKey, Buffer.from(signature, 'base64'))) {
      return refuse(401, 'Request signature is invalid.');
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return refuse(400, 'Invalid request parameters.');
    }
    if (body.operator_id !== this.operatorId) return refuse(404, 'The operator_id doesn’t correspond to any existing Operator.');
    if (req.url === '/operator/generic/v2/game/url') this.gameUrlAttempts.push(body);
    if (this.mode === 'hang') {
      this.#hanging.add(res);
      return;
    }
    if (this.mode === 'error') return refuse(500, 'Internal server error.');
    if (req.url === '/operator/generic/v2/game/list') {
      this.gameLists.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.games));
      return;
    }
    const problem = gameUrlProblem(body, this.games);
    if (problem !== undefined) return refuse(problem.status, problem.error);
    const url = `https://games.hub88.example/launch/${String(body.game_code)}?session=${randomUUID()}`;
    this.gameUrls.push({ body, url });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url }));
  }
}

/** What Hub88's Games API refuses of a /game/url body, as its reference describes the fields. */
function gameUrlProblem(body: Record<string, unknown>, games: ListedHub88Game[]): { status: number; error: string } | undefined {
  const demo = body.currency === 'XXX';
  const string = (field: string, min: number, max: number) =>
    typeof body[field] === 'string' && body[field].length >= min && body[field].length <= max;
  if (!demo && !string('user', 3, 255)) return { status: 400, error: 'user: a string of at least 3 characters is required.' };
  if (!demo && !string('token', 10, 255)) return { status: 400, error: 'token: 10 to 255 characters are required.' };
  if (demo && (body.token !== undefined || body.user !== undefined)) return { status: 400, error: 'DEMO gameplay takes no user or token.' };
  if (body.platform !== 'GPL_DESKTOP' && body.platform !== 'GPL_MOBILE')
    return { status: 400, error: 'platform: GPL_DESKTOP or GPL_MOBILE.' };
  if (!string('lang', 2, 2) || !string('country', 2, 2) || !string('ip', 2, 64) || !string('currency', 3, 4)) {
    return { status: 400, error: 'lang, country, ip and currency are required.' };
  }
  if (!string('lobby_url', 1, 255)) return { status: 400, error: 'lobby_url: at most 255 characters.' };
  const game = games.find((listed) => listed.game_code === body.game_code);
  if (game === undefined) return { status: 404, error: 'The game requested doesn’t exist.' };
  if (!game.enabled) return { status: 403, error: 'The game isn’t enabled for the Operator.' };
  return undefined;
}

/**
 * The documented answer to a wallet call: an object of `user`, `status`, `request_uuid` and, for
 * money, `currency` and `balance`; the status one of the documented list; the request's `user`
 * and `request_uuid` echoed; the balance an integer of the wire's unit, with its currency, on
 * every RS_OK of a money call and on RS_ERROR_NOT_ENOUGH_MONEY.
 */
export function checkAnswer(path: Hub88Path, request: Record<string, unknown>, answer: Record<string, unknown>): void {
  const fail = (why: string) => {
    throw new Error(`Hub88 would not accept the answer to /${path}: ${why}. Answer: ${JSON.stringify(answer)}`);
  };
  for (const field of Object.keys(answer)) if (!ANSWER_FIELDS.has(field)) fail(`an undocumented field "${field}"`);
  if (!(RS_STATUSES as readonly unknown[]).includes(answer.status)) fail('a status Hub88 does not define');
  if (typeof request.request_uuid === 'string' && answer.request_uuid !== request.request_uuid) fail('request_uuid not echoed');
  if (typeof request.user === 'string' && answer.user !== request.user) fail('user not echoed');
  const money = path !== 'user/info';
  const carries = money && (answer.status === 'RS_OK' || answer.status === 'RS_ERROR_NOT_ENOUGH_MONEY');
  if (carries) {
    if (typeof answer.balance !== 'number' || !Number.isSafeInteger(answer.balance) || answer.balance < 0) fail('no integer balance');
    if (BigInt(answer.balance as number) % PER_CENT !== 0n) fail('a balance that is not a whole number of cents');
    if (typeof answer.currency !== 'string') fail('no currency with the balance');
  } else if ('balance' in answer || 'currency' in answer) {
    fail('a balance where the docs do not ask for one');
  }
}

/** A request_uuid as Hub88 generates them (a standard 16-byte UUID). */
export const requestUuid = (): string => randomUUID();
