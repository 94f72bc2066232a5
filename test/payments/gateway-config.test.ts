// Issue 21, item 1: a payment method names its gateway and carries that gateway's configuration
// (docs/api.md section 13). Secrets are write-only: sealed at rest, never answered, redacted in
// the operation log; a configuration that cannot work is a 422 when it is written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { Keyring } from '../../src/platform/crypto.ts';
import { one } from '../../src/platform/db/client.ts';
import { lastLog } from '../admin/support.ts';
import { TEST_KEY, useApp, type Response, type SignedIn } from '../helpers/app.ts';
import { certificateAuthority, testPki } from '../pix/pki.ts';

const pki = testPki();
const other = certificateAuthority('another CA').issue({ commonName: 'someone else', use: 'client' });
const CLIENT_SECRET = 'client-secret-value-1234';
const WEBHOOK_TOKEN = 'webhook-token-value-5678';

function validConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    base_url: 'https://pix.example-psp.com.br/v2',
    client_id: 'client-id-1',
    client_secret: CLIENT_SECRET,
    certificate: pki.client.certificate,
    private_key: pki.client.privateKey,
    ca: pki.ca.certificate,
    pix_key: '123e4567-e12b-12d1-a456-426655440000',
    webhook_token: WEBHOOK_TOKEN,
    ...extra,
  };
}

let codes = 0;
function method(gateway: string, config?: Record<string, unknown>): Record<string, unknown> {
  codes += 1;
  return { name: `Method ${codes}`, code: `method-${codes}`, gateway, min_amount: 1, max_amount: 1000, ...(config ? { config } : {}) };
}

interface MethodRecord {
  id: number;
  gateway: string;
  config: Record<string, unknown>;
  secrets_set: string[];
}

const record = (res: Response) => (res.json as { data: MethodRecord }).data;
const errors = (res: Response) => (res.json as { errors: Record<string, string[]> }).errors;

function assertNoSecretIn(text: string): void {
  for (const secret of [CLIENT_SECRET, WEBHOOK_TOKEN, 'PRIVATE KEY', 'BEGIN CERTIFICATE-----\n' + pki.client.certificate.split('\n')[1]])
    assert.ok(!text.includes(secret), `the answer holds a secret (${secret.slice(0, 20)}…)`);
}

describe('payment method gateway configuration', () => {
  const ctx = useApp();
  let admin: SignedIn;
  const asAdmin = async () => (admin ??= await ctx().withRole('super-admin'));

  test('a pix-api method answers its readable settings and which secrets are set, never a secret', async () => {
    const res = await (await asAdmin()).client.post('/api/admin/payment-methods', method('pix-api', validConfig()));
    assert.equal(res.status, 201, res.text);
    const created = record(res);
    assert.equal(created.gateway, 'pix-api');
    assert.deepEqual(created.config, {
      base_url: 'https://pix.example-psp.com.br/v2',
      client_id: 'client-id-1',
      ca: pki.ca.certificate.trim(),
      pix_key: '123e4567-e12b-12d1-a456-426655440000',
    });
    assert.deepEqual(created.secrets_set, ['client_secret', 'certificate', 'private_key', 'webhook_token']);
    assertNoSecretIn(res.text);
    const shown = await admin.client.get(`/api/admin/payment-methods/${created.id}`);
    assert.deepEqual(record(shown), created);
    assertNoSecretIn((await admin.client.get('/api/admin/payment-methods')).text);
  });

  test('secrets are sealed at rest with the app key, one by one', async () => {
    const res = await (await asAdmin()).client.post('/api/admin/payment-methods', method('efi', validConfig()));
    assert.equal(res.status, 201, res.text);
    const row = await one<{ config_secrets: Record<string, string>; config: Record<string, unknown> }>(
      ctx().db,
      sql`select config, config_secrets from payment_methods where id = ${record(res).id}`,
    );
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(CLIENT_SECRET) && !stored.includes('PRIVATE KEY') && !stored.includes(WEBHOOK_TOKEN));
    const keys = new Keyring(Buffer.from(TEST_KEY, 'base64'));
    assert.equal(keys.decrypt(row!.config_secrets.client_secret!), CLIENT_SECRET);
    assert.equal(keys.decrypt(row!.config_secrets.private_key!).trim(), pki.client.privateKey.trim());
  });

  test('the operation log keeps the readable settings and redacts every secret', async () => {
    const res = await (await asAdmin()).client.post('/api/admin/payment-methods', method('pix-api', validConfig()));
    assert.equal(res.status, 201);
    const log = await lastLog(ctx());
    const config = log.payload.config as Record<string, unknown>;
    assert.equal(config.client_id, 'client-id-1');
    for (const field of ['client_secret', 'certificate', 'private_key', 'webhook_token']) assert.equal(config[field], '[redacted]');
    assertNoSecretIn(JSON.stringify(log.payload));
  });

  test('customers see payment methods without any configuration', async () => {
    await (await asAdmin()).client.post('/api/admin/payment-methods', method('pix-api', validConfig()));
    const player = await ctx().player();
    const res = await player.client.get('/api/payment-methods?per_page=100');
    assert.equal(res.status, 200);
    for (const item of (res.json as { data: Record<string, unknown>[] }).data) {
      assert.equal(item.config, undefined);
      assert.equal(item.secrets_set, undefined);
    }
    assertNoSecretIn(res.text);
  });

  test('the sandbox method is as it was: no configuration, top-ups work', async () => {
    const res = await (await asAdmin()).client.get('/api/admin/payment-methods/1');
    assert.deepEqual(
      { gateway: record(res).gateway, config: record(res).config, secrets_set: record(res).secrets_set },
      {
        gateway: 'sandbox',
        config: {},
        secrets_set: [],
      },
    );
    const player = await ctx().player();
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 10 })).status, 201);
  });

  const refusals: [string, string, Record<string, unknown>, string, RegExp][] = [
    ['no base URL', 'pix-api', { base_url: undefined }, 'config.base_url', /is required/],
    ['a plain-HTTP base URL', 'pix-api', { base_url: 'http://pix.example.com/v2' }, 'config.base_url', /https URL/],
    ['a base URL that is not one', 'pix-api', { base_url: 'not a url' }, 'config.base_url', /valid URL/],
    ['a token URL that is not https', 'pix-api', { token_url: 'http://auth.example.com/token' }, 'config.token_url', /https URL/],
    ['no client id', 'pix-api', { client_id: undefined }, 'config.client_id', /is required/],
    ['an efi method without its client secret', 'efi', { client_secret: undefined }, 'config.client_secret', /is required/],
    ['no certificate', 'pix-api', { certificate: undefined }, 'config.certificate', /is required/],
    [
      'a certificate that is not PEM',
      'pix-api',
      { certificate: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A' },
      'config.certificate',
      /PEM certificate/,
    ],
    ['no private key', 'pix-api', { private_key: undefined }, 'config.private_key', /is required/],
    ['a key that is not PEM', 'pix-api', { private_key: 'secret' }, 'config.private_key', /PEM private key/],
    ['a key that is not the certificate’s', 'pix-api', { private_key: other.privateKey }, 'config.private_key', /does not match/],
    ['a CA that is not PEM', 'pix-api', { ca: 'nope' }, 'config.ca', /PEM certificates/],
    ['no PIX key', 'pix-api', { pix_key: undefined }, 'config.pix_key', /is required/],
    ['a PIX key that is none', 'pix-api', { pix_key: 'not a key' }, 'config.pix_key', /PIX key/],
    ['a webhook token unfit for a URL', 'pix-api', { webhook_token: 'short' }, 'config.webhook_token', /16 to 128/],
    ['an expiry under a minute', 'pix-api', { expires_in: 5 }, 'config.expires_in', /at least 60/],
  ];
  for (const [what, gateway, change, field, message] of refusals) {
    test(`a configuration with ${what} is a 422 on ${field} and creates nothing`, async () => {
      const body = method(gateway, validConfig(change));
      const res = await (await asAdmin()).client.post('/api/admin/payment-methods', body);
      assert.equal(res.status, 422, res.text);
      assert.match(errors(res)[field]?.join(' ') ?? '', message, res.text);
      const count = await one<{ n: number }>(
        ctx().db,
        sql`select count(*)::int as n from payment_methods where code = ${body.code as string}`,
      );
      assert.equal(count!.n, 0);
      assertNoSecretIn(res.text);
    });
  }

  test('an expired client certificate is a 422 that says when it expired', async () => {
    const expired = pki.ca.issue({
      commonName: 'old',
      use: 'client',
      notBefore: new Date(Date.now() - 2 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const res = await (
      await asAdmin()
    ).client.post(
      '/api/admin/payment-methods',
      method('pix-api', validConfig({ certificate: expired.certificate, private_key: expired.privateKey })),
    );
    assert.equal(res.status, 422);
    assert.match(errors(res)['config.certificate']!.join(' '), /expired on \d{4}-/);
  });

  test('a key encrypted with a passphrase is a 422 that says to export it without one', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pass' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const res = await (
      await asAdmin()
    ).client.post('/api/admin/payment-methods', method('pix-api', validConfig({ private_key: privateKey })));
    assert.equal(res.status, 422);
    assert.match(errors(res)['config.private_key']!.join(' '), /passphrase/);
  });

  test('an edit that does not resend the secrets keeps them; a sent secret replaces its own', async () => {
    const created = record(await (await asAdmin()).client.post('/api/admin/payment-methods', method('pix-api', validConfig())));
    const readable = Object.fromEntries(
      Object.entries(validConfig()).filter(([field]) => !['client_secret', 'certificate', 'private_key', 'webhook_token'].includes(field)),
    );
    const edited = await admin.client.patch(`/api/admin/payment-methods/${created.id}`, { config: { ...readable, expires_in: 600 } });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(record(edited).config.expires_in, 600);
    assert.deepEqual(record(edited).secrets_set, created.secrets_set);

    const renewed = pki.ca.issue({ commonName: 'renewed', use: 'client' });
    const swapped = await admin.client.patch(`/api/admin/payment-methods/${created.id}`, {
      config: { ...readable, certificate: renewed.certificate, private_key: renewed.privateKey },
    });
    assert.equal(swapped.status, 200, swapped.text);
    // A certificate sent without its key is checked against the stored key.
    const mismatched = await admin.client.patch(`/api/admin/payment-methods/${created.id}`, {
      config: { ...readable, certificate: pki.client.certificate },
    });
    assert.equal(mismatched.status, 422);
    assert.match(errors(mismatched)['config.private_key']!.join(' '), /does not match/);
  });

  test('a sandbox method takes no configuration, and a method moved to the sandbox drops its own', async () => {
    const refused = await (await asAdmin()).client.post('/api/admin/payment-methods', method('sandbox', { base_url: 'https://x.example' }));
    assert.equal(refused.status, 422);
    assert.deepEqual(Object.keys(errors(refused)), ['config']);
    const created = record(await admin.client.post('/api/admin/payment-methods', method('pix-api', validConfig())));
    const moved = await admin.client.patch(`/api/admin/payment-methods/${created.id}`, { gateway: 'sandbox' });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual([record(moved).config, record(moved).secrets_set], [{}, []]);
    const back = await admin.client.patch(`/api/admin/payment-methods/${created.id}`, { gateway: 'pix-api' });
    assert.equal(back.status, 422, 'a method moved back needs its configuration again');
  });
});
