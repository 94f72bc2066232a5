import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp, type Client, type TestApp } from '../helpers/app.ts';

/**
 * What /docs/json says of each operation, held against what the service does: every operation
 * is summarised, named and secured (so a route added later without a summary fails here), and
 * the security it declares is what the guard asks for.
 */

interface Operation {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  tags?: string[];
}

interface Document {
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  components: { securitySchemes?: Record<string, { type: string; in: string; name: string }> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const SESSION_COOKIE = 'croupier_docs_session';

async function documentOf(app: TestApp): Promise<Document> {
  const res = await app.client().get('/docs/json');
  assert.equal(res.status, 200, res.text);
  return res.json as Document;
}

function operationsOf(doc: Document): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })),
  );
}

/** A URL for the operation: a gateway is the sandbox (so its signature is what is checked), any other parameter 1. */
function urlOf(operation: Operation): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'gateway' ? 'sandbox' : '1'));
}

/** The scheme names of the operation's one requirement (none: `[]`). */
function schemesOf(operation: Operation): string {
  assert.ok(operation.security !== undefined, `${operation.method} ${operation.path} declares its security`);
  assert.ok(operation.security.length <= 1, `${operation.method} ${operation.path}: one requirement`);
  return Object.keys(operation.security[0] ?? {})
    .sort()
    .join('+');
}

describe('the OpenAPI document', () => {
  const ctx = useApp({ SESSION_COOKIE });

  test('every operation has a summary, an operationId of its own and a security declaration', async () => {
    const operations = operationsOf(await documentOf(ctx()));
    assert.ok(operations.length > 100, `the document lists the routes (${operations.length})`);
    const missing = operations
      .filter((operation) => !operation.summary?.trim() || !operation.operationId || !Array.isArray(operation.security))
      .map((operation) => `${operation.method} ${operation.path}`);
    assert.deepEqual(missing, [], 'operations without a summary, an operationId or a security declaration');
    const ids = operations.map((operation) => operation.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  test('the server is a relative URL, so Try it out reaches the address the document was opened at', async () => {
    const doc = await documentOf(ctx());
    assert.deepEqual(
      doc.servers?.map((server) => server.url),
      ['/'],
    );
  });

  test('the document lists its tags in a reader’s order, each with a line: Account, the customer area, Integrations, then the admin sections', async () => {
    const doc = await documentOf(ctx());
    const names = (doc.tags ?? []).map((tag) => tag.name);
    assert.equal(names[0], 'Account');
    const integrations = names.indexOf('Integrations');
    const firstAdmin = names.findIndex((name) => name.startsWith('Admin: '));
    assert.ok(integrations > 0 && firstAdmin > integrations, 'Integrations after the customer area, before the admin sections');
    assert.ok(
      names.slice(firstAdmin).every((name) => name.startsWith('Admin: ')),
      'the admin sections come last, together',
    );
    assert.deepEqual(
      (doc.tags ?? []).filter((tag) => !tag.description?.trim()).map((tag) => tag.name),
      [],
      'tags without a line',
    );
    const used = new Set(operationsOf(doc).flatMap((operation) => operation.tags ?? []));
    assert.deepEqual(
      [...used].filter((tag) => !names.includes(tag)),
      [],
      'operations with a tag the list lacks',
    );
    assert.deepEqual(
      names.filter((name) => !used.has(name)),
      [],
      'listed tags no operation carries',
    );
  });

  test('the session cookie (named by SESSION_COOKIE) and the X-XSRF-TOKEN header are the security schemes', async () => {
    const schemes = (await documentOf(ctx())).components.securitySchemes ?? {};
    assert.deepEqual(
      { type: schemes.session?.type, in: schemes.session?.in, name: schemes.session?.name },
      { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
    );
    assert.deepEqual(
      { type: schemes.xsrf?.type, in: schemes.xsrf?.in, name: schemes.xsrf?.name },
      { type: 'apiKey', in: 'header', name: 'X-XSRF-TOKEN' },
    );
    for (const name of ['gatewaySignature', 'providerSignature']) {
      assert.deepEqual({ in: schemes[name]?.in, name: schemes[name]?.name }, { in: 'header', name: 'X-Signature' }, name);
    }
    // Hub88's wallet calls carry its own header (docs/api.md section 15).
    assert.deepEqual({ in: schemes.hub88Signature?.in, name: schemes.hub88Signature?.name }, { in: 'header', name: 'X-Hub88-Signature' });
  });

  test('each operation declares what the guard asks: guests’ reads and stateless routes nothing, signed-in reads the cookie, changes the cookie and the token, machine callers their signature', async () => {
    const operations = operationsOf(await documentOf(ctx()));
    const byRoute = Object.fromEntries(operations.map((operation) => [`${operation.method} ${operation.path}`, schemesOf(operation)]));
    assert.deepEqual(
      {
        csrfCookie: byRoute['GET /api/csrf-cookie'],
        login: byRoute['POST /api/login'],
        user: byRoute['GET /api/user'],
        adminUsers: byRoute['GET /api/admin/users'],
        topup: byRoute['POST /api/topups'],
        adminDelete: byRoute['DELETE /api/admin/users/{user}'],
        paymentWebhook: byRoute['POST /api/webhooks/payments/{gateway}'],
        payoutWebhook: byRoute['POST /api/webhooks/payouts/{gateway}'],
        walletCallback: byRoute['POST /api/providers/{provider}/wallet/{action}'],
        payPage: byRoute['GET /pay/{public_id}'],
        storage: byRoute['GET /storage/{path}'],
      },
      {
        csrfCookie: '',
        login: 'session+xsrf',
        user: 'session',
        adminUsers: 'session',
        topup: 'session+xsrf',
        adminDelete: 'session+xsrf',
        paymentWebhook: 'gatewaySignature',
        payoutWebhook: 'gatewaySignature',
        walletCallback: 'providerSignature',
        payPage: '',
        storage: '',
      },
    );
  });

  test('what each operation declares holds: without it the answer is 401 or 419, with it the guard lets the request through', async () => {
    const operations = operationsOf(await documentOf(ctx()));
    const { client: player } = await ctx().player();
    const guest = ctx().client();
    await guest.csrf();
    const checked = new Map<string, number>();
    const failures: string[] = [];
    const expect = (operation: Operation, what: string, status: number, ok: boolean) => {
      if (!ok) failures.push(`${operation.method} ${urlOf(operation)} ${what} → ${status}`);
    };
    const send = (client: Client, operation: Operation, headers: Record<string, string> = {}) =>
      client.request(operation.method, urlOf(operation), undefined, headers);

    for (const operation of operations) {
      const schemes = schemesOf(operation);
      checked.set(schemes, (checked.get(schemes) ?? 0) + 1);
      const bare = await send(ctx().client(), operation);
      switch (schemes) {
        case '':
          expect(operation, 'without cookies', bare.status, bare.status !== 401 && bare.status !== 419);
          break;
        case 'session': {
          expect(operation, 'without a session', bare.status, bare.status === 401);
          const signedIn = await send(player, operation);
          expect(operation, 'signed in', signedIn.status, signedIn.status !== 401);
          break;
        }
        case 'session+xsrf': {
          expect(operation, 'without cookies', bare.status, bare.status === 419);
          const withoutToken = await send(guest, operation, { 'x-xsrf-token': '' });
          expect(operation, 'with a session but no token', withoutToken.status, withoutToken.status === 419);
          const withToken = await send(guest, operation);
          expect(operation, 'with the session’s token', withToken.status, withToken.status !== 419);
          break;
        }
        case 'gatewaySignature':
          expect(operation, 'unsigned', bare.status, bare.status === 401);
          break;
        case 'providerSignature':
          // No provider 1 exists: an unknown provider is a 404 before its signature is looked at.
          expect(operation, 'unsigned', bare.status, bare.status === 401 || bare.status === 404);
          break;
        case 'hub88Signature':
          // Hub88 is answered in its own words: an unsigned call is an HTTP 200 RS_ERROR_INVALID_SIGNATURE (or 404, as above).
          expect(
            operation,
            'unsigned',
            bare.status,
            bare.status === 404 || (bare.status === 200 && (bare.json as { status?: string }).status === 'RS_ERROR_INVALID_SIGNATURE'),
          );
          break;
        default:
          failures.push(`${operation.method} ${operation.path}: unknown security ${schemes}`);
      }
    }
    assert.deepEqual(failures, []);
    // Every kind of declaration was met, so none of the branches above is dead.
    assert.deepEqual([...checked.keys()].sort(), [
      '',
      'gatewaySignature',
      'hub88Signature',
      'providerSignature',
      'session',
      'session+xsrf',
    ]);
  });
});
