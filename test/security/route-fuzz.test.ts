import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { deleteRules, keptMessages } from '../../src/platform/admin/in-use.ts';
import { one, rows, sql } from '../../src/platform/db/client.ts';
import { useApp, type Client, type Response, type TestApp } from '../helpers/app.ts';
import { verificationLink } from '../auth/support.ts';
import { playerWithHistory, type KeptRecord } from './history.ts';

/**
 * Every documented route, fed random and hostile bodies, query strings and path parameters as a
 * guest, a player and a super-admin (each with a valid CSRF token, so requests get past it),
 * answers below 500 with the contract's error shape, and logs nothing at error level. Routes come
 * from the OpenAPI document, so a new route joins without an edit here (only the hidden probes,
 * /health, /ready and /docs, are not in it). The seed is fixed: a failure is reproducible, and
 * fast-check prints the smallest input it found. The database holds a player's whole history
 * first (history.ts), so paths that name low ids reach records that have children. Every route
 * with a path parameter also gets those low ids misspelt (hex, padded, signed, zero-led, decimal,
 * another radix, too long): each names no record and changes nothing.
 */
const SEED = 7_2026_11;
const RUNS_PER_ROUTE_AND_USER = 15;
const DATA_DIR = `/tmp/croupier-fuzz-test-${process.pid}`;

interface Operation {
  method: string;
  path: string;
  params: string[];
  query: string[];
  fields: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(byMethod)) {
      if (!METHODS.includes(method)) continue;
      const operation = raw as {
        parameters?: { in: string; name: string }[];
        requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
      };
      const parameters = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        fields: Object.keys(operation.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
      });
    }
  }
  return operations;
}

/** Percent-encodes every byte but the unreserved ones (a lone surrogate goes as U+FFFD). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');
}

/** URL pieces sent as they are: bad or overlong encodings, NUL, traversal, numbers out of range. */
const RAW_URL_VALUES = [
  ...'1 2 0 -1 -0 00001 1.5 1e3 1e400 -1e400 9007199254740991 9007199254740992 99999999999999999999 NaN Infinity 0x10'.split(' '),
  ...'%00 1%00 %ED%A0%80 %ZZ % %C0%80 %E0%A4%A .. %2e%2e ..%2F..%2Fapp.key %2F a%5Bb%5D %F0%9F%92%A9 %20'.split(' '),
  ...'sandbox pix BRL true __proto__ constructor 2026-02-30 2026-11-23T25:61:00Z'.split(' '),
  '',
  'x'.repeat(300),
  `uploads/2026/11/${'a'.repeat(40)}.png`,
];

/**
 * An id of a record the history made (1 or 2) written as anything but its plain digits, each way
 * JavaScript's Number() would still read it as that id, and ids beyond what a BIGINT or an exact
 * JavaScript number holds: every one names no record (docs/api.md section 3).
 */
const lowId = fc.integer({ min: 1, max: 2 });
const ID_MISSPELLINGS: Record<string, fc.Arbitrary<string>> = {
  hex: fc
    .tuple(lowId, fc.constantFrom('0x', '0X'), fc.nat(2), fc.boolean())
    .map(([id, prefix, zeros, upper]) => `${prefix}${'0'.repeat(zeros)}${upper ? id.toString(16).toUpperCase() : id.toString(16)}`),
  padded: fc
    .tuple(
      lowId,
      fc.array(fc.constantFrom('%20', '%09', '%0A', '%0D', '%0B', '%0C', '%C2%A0', '%EF%BB%BF', '%E2%80%A8'), {
        minLength: 1,
        maxLength: 3,
      }),
      fc.constantFrom('before', 'after', 'both'),
    )
    .map(([id, pad, where]) => `${where === 'after' ? '' : pad.join('')}${id}${where === 'before' ? '' : pad.join('')}`),
  signed: fc.tuple(lowId, fc.constantFrom('+', '%2B', '-', '%2D', '+0', '-0')).map(([id, sign]) => `${sign}${id}`),
  zeroLed: fc.tuple(lowId, fc.integer({ min: 1, max: 3 })).map(([id, zeros]) => `${'0'.repeat(zeros)}${id}`),
  decimal: fc.tuple(lowId, fc.constantFrom('.0', '.', '.000', 'e0', 'E+0', '0e-1', '%2E0')).map(([id, tail]) => `${id}${tail}`),
  radix: fc
    .tuple(lowId, fc.constantFrom('0b', '0B', '0o', '0O'))
    .map(([id, prefix]) => `${prefix}${id.toString(prefix.endsWith('b') || prefix.endsWith('B') ? 2 : 8)}`),
  overLong: fc.oneof(
    fc.constantFrom('99999999999999999999', '9223372036854775807', '9223372036854775808', '18446744073709551617', '9'.repeat(400)),
    fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
  ),
};
const misspeltId = fc.oneof(...Object.values(ID_MISSPELLINGS));

const urlValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...RAW_URL_VALUES) },
  { weight: 1, arbitrary: misspeltId },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map(String) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encode) },
);

const queryKey = (names: string[]) =>
  fc.oneof(
    { weight: names.length > 0 ? 4 : 0, arbitrary: fc.constantFrom(...names, 'q') },
    { weight: 1, arbitrary: fc.constantFrom('q', 'page', 'per_page', '__proto__', 'constructor', 'a[b]', '%00', 'x%00y') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encode) },
  );

const queryString = (names: string[]) =>
  fc.array(fc.tuple(queryKey(names), urlValue), { maxLength: 4 }).map((pairs) => pairs.map(([key, value]) => `${key}=${value}`).join('&'));

/** Values a JSON body cannot carry through JSON.stringify: written into the text as they are. */
const RAW_MARK = '\u{E000}raw:';
const raw = (text: string): string => `${RAW_MARK}${text}`;
function serialize(value: unknown): string {
  return JSON.stringify(value).replace(/"\u{E000}raw:((?:[^"\\]|\\.)*)"/gu, (_, text: string) => JSON.parse(`"${text}"`) as string);
}

function nested(levels: number): string {
  return '{"a":'.repeat(levels) + '[]' + '}'.repeat(levels);
}

const scalar = fc.oneof(
  fc.constantFrom<unknown>(
    ...['', ' ', null, true, false, 0, 1, -1, 0.1, 100.5, 1e21],
    ...'null 0 1 100.50 -5 1e400 NaN x@example.com password BRL sandbox pix paid <script> 2026-11-23 __proto__'.split(' '),
    ...['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\u202e', 'ǅ', "' or 1=1 --", 'a'.repeat(300)],
    `uploads/2026/11/${'a'.repeat(40)}.png`,
  ),
  fc
    .constantFrom('1e400', '-1e400', '-0', '1e-400', '99999999999999999999', '9007199254740993', '123456789.123456789', '-9007199254740992')
    .map(raw),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(nested(5), nested(64), nested(70), nested(3000)).map(raw) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom({}, [], { value: 1, rate: 2 }, { value: -1, rate: 101 }), { maxLength: 3 }) },
);

const HOSTILE_KEYS = [
  ...'__proto__ constructor prototype hasOwnProperty toString _token id a.b'.split(' '),
  'k\u0000',
  '',
  'x'.repeat(200),
];

/** Whole bodies that are not a JSON object: broken, scalar, huge or deep. */
const RAW_BODIES = [
  ...['', ' ', '{', '}', '[', '{"a":}', 'null', 'true', '1e400', '-0', '"\\u0000"', '"x"', '[]', '[{}]', '\u0000', '\ufeff{}'],
  ...['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"a":"\\ud800"}'],
  `{"a":"${'é'.repeat(2000)}"}`,
  `{"a":"${'x'.repeat(1_100_000)}"}`,
  nested(10_000),
  `[${'['.repeat(5000)}]`,
];

interface Body {
  contentType: string | undefined;
  payload: string | undefined;
}

const bodyKey = (fields: string[]) =>
  fields.length === 0
    ? fc.constantFrom(...HOSTILE_KEYS)
    : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_KEYS) });

const bodyOf = (fields: string[]): fc.Arbitrary<Body> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.dictionary(bodyKey(fields), value, { maxKeys: fields.length + 2 }), fc.integer({ min: 0, max: 9 }))
        .map(([object, shape]) => ({ contentType: 'application/json', payload: serialize(shape === 0 ? [object] : object) })),
    },
    {
      weight: 1,
      arbitrary: fc.jsonValue({ maxDepth: 3 }).map((json) => ({ contentType: 'application/json', payload: JSON.stringify(json) })),
    },
    { weight: 3, arbitrary: fc.constantFrom(...RAW_BODIES).map((payload) => ({ contentType: 'application/json', payload })) },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: fc.constantFrom(
          undefined,
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          'multipart/form-data; boundary=b',
          'application/json; charset=latin1',
          'application/octet-stream',
        ),
        payload: fc.oneof(
          fc.constantFrom('--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nx', 'a=1&b[c]=2', '\u0000'),
          fc.string({ maxLength: 40 }),
        ),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ contentType: undefined, payload: undefined }) },
  );

/** Cookies a browser never sent: they replace the caller's own for that request. */
const hostileCookie = fc.oneof(
  { weight: 9, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'gp_session=%00',
      `gp_session=${'a'.repeat(5000)}`,
      'gp_session=%ZZ; gp_session=1',
      'remember_web=1|' + 'f'.repeat(64),
      'remember_web=99999999999999999999|x',
      'remember_web=%00',
      'XSRF-TOKEN=%00',
      '=; ;=;',
      'gp_session=\u00e9',
    ),
  },
);

/** Tables whose rows change with every request (sign-ins, throttles), left out of a fingerprint. */
const VOLATILE_TABLES = new Set(['sessions', 'rate_limits']);

/** Each table's rows, hashed: equal fingerprints mean no record was written. */
async function fingerprint(t: TestApp): Promise<Record<string, string>> {
  const tables = await rows<{ name: string }>(
    t.db,
    sql`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`,
  );
  const hashes: Record<string, string> = {};
  for (const { name } of tables.filter((table) => !VOLATILE_TABLES.has(table.name))) {
    const table = sql.identifier(name);
    const row = await one<{ hash: string | null }>(
      t.db,
      sql`select md5(string_agg(r::text, '|' order by r::text)) as hash from ${table} r`,
    );
    hashes[name] = row?.hash ?? '';
  }
  return hashes;
}

const MISSING = { status: 404, json: { message: 'Not found.' } };

const ROLES = ['guest', 'player', 'super-admin'] as const;
type Role = (typeof ROLES)[number];

/** The three callers; one whose sign-in the fuzzed requests ended (logout, deleted) is made again. */
class Callers {
  readonly #app: TestApp;
  readonly #clients = new Map<Role, Client>();

  constructor(app: TestApp) {
    this.#app = app;
  }

  async get(role: Role): Promise<Client> {
    const existing = this.#clients.get(role);
    if (existing !== undefined) return existing;
    let client: Client;
    if (role === 'guest') {
      client = this.#app.client();
      await client.csrf();
    } else client = role === 'player' ? (await this.#app.player()).client : (await this.#app.withRole(role)).client;
    this.#clients.set(role, client);
    return client;
  }

  /** After a 401 or 419 a signed-in caller is signed in no more: the next run gets a new one. */
  saw(role: Role, res: Response): void {
    if (role !== 'guest' ? [401, 419].includes(res.status) : res.status === 419) this.#clients.delete(role);
  }
}

describe('every route, fed hostile input, answers below 500', () => {
  const logged: { level: number }[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logged.push(JSON.parse(line) as { level: number });
  });
  const ctx = useApp({ LOG_LEVEL: 'error', DATA_DIR, UPLOAD_MAX_BYTES: '4096' }, { logStream });
  after(() => rm(DATA_DIR, { recursive: true, force: true }));
  let kept: KeptRecord[] = [];
  before(async () => {
    kept = (await playerWithHistory(ctx(), await ctx().withRole('super-admin'))).kept;
  });

  // First, while the history's records are all there for the misspelt ids to name.
  test('a path id written as anything but its digits is answered as `abc` is, on every route with a path parameter, and changes nothing', async () => {
    const doc = (await ctx().client().get('/docs/json')).json as { paths: Record<string, Record<string, unknown>> };
    const operations = operationsOf(doc).filter((operation) => operation.params.length > 0);
    assert.ok(operations.length > 50, `the routes with a path parameter are documented (${operations.length})`);
    const { client } = await ctx().withRole('super-admin');
    const before = logged.length;
    const unchanged = await fingerprint(ctx());
    const kinds = Object.values(ID_MISSPELLINGS);
    for (const [index, operation] of operations.entries()) {
      const send = async (values: string[]) => {
        let url = operation.path;
        operation.params.forEach((name, i) => (url = url.replace(`{${name}}`, values[i] ?? '')));
        const body = operation.method === 'GET' ? undefined : '{}';
        const res = await client.request(operation.method, url, body, body === undefined ? {} : { 'content-type': 'application/json' });
        return { url, seen: { status: res.status, json: res.json } };
      };
      // `abc` is no id; where a path takes an id or a code it is a code that names nothing, which
      // a route may answer after reading the body (422), while a value that can be neither is a 404.
      const abc = (await send(operation.params.map(() => 'abc'))).seen;
      // One value of each kind per route, every parameter of the route so written at once.
      const input = fc.tuple(...kinds.map((kind) => fc.tuple(...operation.params.map(() => kind))));
      await fc.assert(
        fc.asyncProperty(input, async (byKind) => {
          for (const values of byKind) {
            const { url, seen } = await send(values);
            const what = `${operation.method} ${url} → ${JSON.stringify(seen)}, \`abc\` → ${JSON.stringify(abc)}`;
            assert.ok(isDeepStrictEqual(seen, abc) || isDeepStrictEqual(seen, MISSING), what);
          }
        }),
        { seed: SEED + index, numRuns: 1 },
      );
    }
    assert.deepEqual(await fingerprint(ctx()), unchanged, 'no record changed');
    assert.deepEqual(
      logged.slice(before).filter((line) => line.level >= 50),
      [],
      'nothing logged at error level',
    );
  });

  test('no route answers 500 or logs an error, for any caller', { timeout: 180_000 }, async () => {
    const doc = (await ctx().client().get('/docs/json')).json as { paths: Record<string, Record<string, unknown>> };
    const operations = operationsOf(doc);
    assert.ok(operations.length > 50, `the OpenAPI document lists the routes (${operations.length})`);
    const callers = new Callers(ctx());
    let requests = 0;

    for (const [index, operation] of operations.entries()) {
      const input = fc.record({
        params: fc.tuple(...operation.params.map(() => urlValue)),
        query: queryString(operation.query),
        cookie: hostileCookie,
        body: operation.method === 'GET' ? fc.constant<Body>({ contentType: undefined, payload: undefined }) : bodyOf(operation.fields),
      });
      for (const [r, role] of ROLES.entries()) {
        await fc.assert(
          fc.asyncProperty(input, async ({ params, query, cookie, body }) => {
            let url = operation.path;
            operation.params.forEach((name, i) => (url = url.replace(`{${name}}`, params[i] ?? '')));
            if (query !== '') url += `?${query}`;
            const client = await callers.get(role);
            const headers: Record<string, string> = body.contentType === undefined ? {} : { 'content-type': body.contentType };
            if (cookie !== null) headers.cookie = cookie;
            const res = await client.request(operation.method, url, body.payload, headers);
            requests += 1;
            if (cookie === null) callers.saw(role, res);
            const what = `${role}: ${operation.method} ${url} ${cookie ?? ''} ${body.contentType ?? ''} ${String(body.payload).slice(0, 200)}`;
            assert.ok(res.status < 500, `${what} → ${res.status} ${res.text.slice(0, 200)}`);
            if (res.status >= 400) {
              assert.equal(
                typeof (res.json as { message?: unknown } | undefined)?.message,
                'string',
                `${what} → ${res.status} ${res.text.slice(0, 200)}`,
              );
            }
          }),
          // A seed per route and caller, so routes of the same shape do not all get the same inputs.
          { seed: SEED + 3 * index + r, numRuns: RUNS_PER_ROUTE_AND_USER, endOnFailure: true },
        );
      }
    }
    assert.equal(requests, operations.length * ROLES.length * RUNS_PER_ROUTE_AND_USER);
    const errors = logged.filter((line) => line.level >= 50);
    assert.deepEqual(errors, [], 'nothing logged at error level');
  });

  test('deleting every record of every admin resource: 204 and gone, or a 409 that keeps it; history is always kept', async () => {
    const doc = (await ctx().client().get('/docs/json')).json as { paths: Record<string, Record<string, unknown>> };
    const deletes = operationsOf(doc).filter((operation) => operation.method === 'DELETE' && operation.path.startsWith('/api/admin/'));
    assert.ok(deletes.length >= 10, `the admin deletes are documented (${deletes.length})`);
    const { client } = await ctx().withRole('super-admin');
    const refused = new Map<string, string>();
    const before = logged.length;
    for (const operation of deletes) {
      const collection = operation.path.slice(0, operation.path.lastIndexOf('/'));
      const list = await client.get(`${collection}?per_page=100`);
      assert.equal(list.status, 200, `${collection}: ${list.text}`);
      for (const { id } of (list.json as { data: { id: number }[] }).data) {
        const res = await client.delete(`${collection}/${id}`);
        const what = `DELETE ${collection}/${id} → ${res.status} ${res.text.slice(0, 200)}`;
        assert.ok(res.status === 204 || res.status === 409, what);
        const after = await client.get(`${collection}/${id}`);
        if (res.status === 204) {
          assert.equal(res.text, '', what);
          assert.equal(after.status, 404, `${what}, yet it is still there`);
        } else {
          assert.deepEqual(Object.keys(res.json as object), ['message'], what);
          assert.equal(after.status, 200, `${what}, yet it is gone`);
          refused.set(`${collection}/${id}`, (res.json as { message: string }).message);
        }
      }
    }
    // Each record with history was refused with one of the reasons its resource words.
    const rules = new Map(deleteRules(ctx().app).map((rule) => [rule.path, rule.inUse]));
    for (const record of kept) {
      const message = refused.get(`${record.path}/${record.id}`);
      const inUse = rules.get(record.path);
      const reasons = inUse === undefined ? [] : keptMessages(inUse);
      assert.ok(message !== undefined && reasons.includes(message), `${record.path}/${record.id}: ${message ?? 'deleted'}`);
    }
    assert.deepEqual(
      logged.slice(before).filter((line) => line.level >= 50),
      [],
      'nothing logged at error level',
    );
  });

  // The e-mail verification routes are fuzzed above with the rest (they are in the OpenAPI
  // document); random paths never carry a valid signature, so here a real link is altered instead.
  test('the verification link, altered at random, is refused below 500 and verifies only as sent', async () => {
    const player = await ctx().player();
    assert.equal((await player.client.post('/api/email/verification-notification')).status, 202);
    const link = (await verificationLink(ctx(), player.email)).slice(ctx().config.appUrl.length);
    const before = logged.length;
    const edit = fc.oneof(
      fc.tuple(fc.nat(link.length), fc.nat(8), urlValue).map(([at, cut, text]) => link.slice(0, at) + text + link.slice(at + cut)),
      fc.tuple(fc.nat(link.length), fc.string({ unit: 'binary', maxLength: 3 }).map(encode)).map(([at, text]) => link.slice(0, at) + text),
      queryString(['expires', 'signature']).map((query) => `${link}&${query}`),
    );
    await fc.assert(
      fc.asyncProperty(edit, async (url) => {
        if (url === link || !url.startsWith('/')) return;
        const res = await player.client.get(url);
        assert.ok(res.status >= 400 && res.status < 500, `${url} → ${res.status} ${res.text.slice(0, 200)}`);
        assert.equal(typeof (res.json as { message?: unknown } | undefined)?.message, 'string', `${url} → ${res.text.slice(0, 200)}`);
      }),
      { seed: SEED, numRuns: 200 },
    );
    const unverified = (await player.client.get('/api/user')).json as { email_verified_at: string | null };
    assert.equal(unverified.email_verified_at, null);
    assert.equal((await player.client.get(link)).status, 204);
    assert.deepEqual(
      logged.slice(before).filter((line) => line.level >= 50),
      [],
      'nothing logged at error level',
    );
  });
});
