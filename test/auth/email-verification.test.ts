import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import { signedUrl } from '../../src/platform/signed-url.ts';
import { startApp, TEST_KEY, uniqueEmail, useApp, type Client, type SignedIn, type TestApp } from '../helpers/app.ts';
import { Browser, freePort } from '../resilience/instances.ts';
import { assertEmptyString, assertNoContent, UNAUTHENTICATED, verificationLink } from './support.ts';

const FRONTEND_URL = 'http://localhost:3000';
const INVALID_SIGNATURE = { message: 'Invalid signature.' };
const UNAUTHORIZED = { message: 'This action is unauthorized.' };
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

interface Me {
  id: number;
  email: string;
  email_verified_at: string | null;
}

async function me(client: Client): Promise<Me> {
  const res = await client.get('/api/user');
  assert.equal(res.status, 200, res.text);
  return res.json as Me;
}

function mailsTo(t: TestApp, email: string): number {
  return t.inbox.messages.filter((mail) => [mail.to].flat().some((to) => to?.text.toLowerCase() === email.toLowerCase())).length;
}

describe('breeze-next’s verification flow, over HTTP', () => {
  let t: TestApp | undefined;
  let base = '';

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startApp({ APP_URL: base, FRONTEND_URL });
    await t.app.listen({ host: '127.0.0.1', port });
  });
  after(() => t?.close());

  test('register → the verify page sees no email_verified_at → resend → the mail’s link → the dashboard, verified', async () => {
    const browser = new Browser();
    const call = (method: string, path: string, body?: unknown) => browser.call(base, method, path, body);
    const email = uniqueEmail('Breeze');
    const password = 'a long enough password';

    // hooks/auth.js: the CSRF cookie, then register, then the user it redirects on.
    assert.equal((await call('GET', '/api/csrf-cookie')).status, 204);
    const registered = await call('POST', '/api/register', {
      name: 'Breeze',
      email,
      password,
      password_confirmation: password,
      agreement: true,
    });
    assert.equal(registered.status, 201, registered.text);
    const user = (await call('GET', '/api/user')).json as Me;
    assert.equal(user.email_verified_at, null, 'the user goes to the verify-email page');

    // The page's "Resend Verification Email" button.
    const resent = await call('POST', '/api/email/verification-notification');
    assert.deepEqual([resent.status, resent.text], [202, '""']);
    const link = await verificationLink(t!, email);
    const shape = new RegExp(
      `^${escape(base)}/api/email/verify/${user.id}/${sha1(email.toLowerCase())}\\?expires=(\\d+)&signature=[0-9a-f]{64}$`,
    );
    const expires = Number(shape.exec(link)?.[1]);
    assert.ok(expires > 0, `the link has the contract's shape: ${link}`);
    const left = expires - Date.now() / 1000;
    assert.ok(left > 59 * 60 && left <= 60 * 60, `valid for 60 minutes (${left} s left)`);

    // The player opens the link from the mail: a navigation in the signed-in browser.
    const open = () =>
      fetch(link, {
        headers: { cookie: browser.headers().cookie!, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' },
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
    const opened = await open();
    assert.equal(opened.status, 302);
    assert.equal(opened.headers.get('location'), `${FRONTEND_URL}/dashboard?verified=1`);

    const verified = (await call('GET', '/api/user')).json as Me;
    assert.match(verified.email_verified_at ?? '', ISO_TIME);
    const again = await call('POST', '/api/email/verification-notification');
    assert.deepEqual([again.status, again.text], [204, '']);
    assert.equal(mailsTo(t!, email), 1, 'one mail: the one asked for');

    // The link opened twice verifies once.
    assert.equal((await open()).status, 302);
    assert.equal(((await call('GET', '/api/user')).json as Me).email_verified_at, verified.email_verified_at);
  });
});

describe('the verification link and notification', () => {
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const ctx = useApp({ LOG_LEVEL: 'info' }, { logStream });

  /** The path and query of the link in a fresh verification mail to `user`. */
  async function requestLink(user: SignedIn): Promise<string> {
    assertEmptyString(await user.client.post('/api/email/verification-notification'), 202);
    const link = await verificationLink(ctx(), user.email);
    assert.ok(link.startsWith(`${ctx().config.appUrl}/api/email/verify/`), link);
    return link.slice(ctx().config.appUrl.length);
  }

  test('asked for JSON, the link answers 204 and verifies the user', async () => {
    const user = await ctx().player();
    const path = await requestLink(user);
    assertNoContent(await user.client.get(path));
    assert.match((await me(user.client)).email_verified_at ?? '', ISO_TIME);
    assertNoContent(await user.client.get(path));
  });

  test('a link changed in any part is 403 "Invalid signature." and verifies nothing', async () => {
    const user = await ctx().player();
    const path = await requestLink(user);
    const [, id, hash, expires, signature] = /^\/api\/email\/verify\/(\d+)\/([0-9a-f]+)\?expires=(\d+)&signature=([0-9a-f]+)$/.exec(path)!;
    const flipped = signature!.slice(0, -1) + (signature!.endsWith('0') ? '1' : '0');
    const other = await ctx().player();
    const altered = [
      `/api/email/verify/${id}/${hash}?expires=${expires}&signature=${flipped}`,
      `/api/email/verify/${id}/${hash}?expires=${expires}&signature=${signature!.toUpperCase()}`,
      `/api/email/verify/${id}/${hash}?expires=${Number(expires) + 3600}&signature=${signature}`,
      `/api/email/verify/${id}/${hash}?signature=${signature}`,
      `/api/email/verify/${id}/${hash}?expires=${expires}`,
      `/api/email/verify/${id}/${hash}`,
      `/api/email/verify/${id}/${hash}?expires=${expires}&signature=${signature}&next=/admin`,
      `/api/email/verify/${id}/${hash}/?expires=${expires}&signature=${signature}`,
      `/api/email/verify/${other.id}/${sha1(other.email)}?expires=${expires}&signature=${signature}`,
    ];
    for (const url of altered) {
      const res = await user.client.get(url);
      assert.equal(res.status, 403, `${url} → ${res.status} ${res.text}`);
      assert.deepEqual(res.json, INVALID_SIGNATURE, url);
    }
    assert.equal((await me(user.client)).email_verified_at, null);
    assertNoContent(await user.client.get(path));
  });

  test('a link past its 60 minutes is 403 "Invalid signature."; the same link still in time verifies', async () => {
    const user = await ctx().player();
    const keys = new Keyring(ctx().config.appKey);
    const url = `${ctx().config.appUrl}/api/email/verify/${user.id}/${sha1(user.email)}`;
    const made = (expiresAt: Date) => signedUrl(keys, url, expiresAt).slice(ctx().config.appUrl.length);
    const expired = await user.client.get(made(new Date(Date.now() - 2000)));
    assert.equal(expired.status, 403);
    assert.deepEqual(expired.json, INVALID_SIGNATURE);
    assert.equal((await me(user.client)).email_verified_at, null);
    assertNoContent(await user.client.get(made(new Date(Date.now() + 60_000))));
    assert.notEqual((await me(user.client)).email_verified_at, null);
  });

  test('another user’s link is 403 and verifies neither of them; a guest following a link is 401', async () => {
    const owner = await ctx().player();
    const intruder = await ctx().player();
    const path = await requestLink(owner);
    const res = await intruder.client.get(path);
    assert.equal(res.status, 403);
    assert.deepEqual(res.json, UNAUTHORIZED);
    const guest = await ctx().client().get(path);
    assert.equal(guest.status, 401);
    assert.deepEqual(guest.json, UNAUTHENTICATED);
    assert.equal((await me(owner.client)).email_verified_at, null);
    assert.equal((await me(intruder.client)).email_verified_at, null);
  });

  test('a new e-mail is unverified again, and the link made for the old one is 403', async () => {
    const user = await ctx().player();
    const oldLink = await requestLink(user);
    const email = uniqueEmail('moved');
    assertEmptyString(await user.client.put('/api/user/profile-information', { name: 'Moved', email }));
    const refused = await user.client.get(oldLink);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json, UNAUTHORIZED);
    assert.equal((await me(user.client)).email_verified_at, null);

    assertNoContent(await user.client.get(await requestLink({ ...user, email })));
    assert.notEqual((await me(user.client)).email_verified_at, null);
    // Saving the profile with the same address keeps it verified; another address does not.
    assertEmptyString(await user.client.put('/api/user/profile-information', { name: 'Same', email: email.toUpperCase() }));
    assert.notEqual((await me(user.client)).email_verified_at, null);
    assertEmptyString(await user.client.put('/api/user/profile-information', { name: 'Again', email: uniqueEmail('again') }));
    assert.equal((await me(user.client)).email_verified_at, null);
  });

  test('the notification: six a minute per user, then 429 with Retry-After; each sent one is a mail', async () => {
    const user = await ctx().player();
    for (let i = 0; i < 6; i += 1) assertEmptyString(await user.client.post('/api/email/verification-notification'), 202);
    const refused = await user.client.post('/api/email/verification-notification');
    assert.equal(refused.status, 429);
    assert.match((refused.json as { message: string }).message, /^Too many attempts\. Please try again in \d+ seconds\.$/);
    assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 60);
    for (let i = 0; i < 6; i += 1) await verificationLink(ctx(), user.email);
    assert.equal(mailsTo(ctx(), user.email), 6);
    const other = await ctx().player();
    assertEmptyString(await other.client.post('/api/email/verification-notification'), 202);
  });

  test('the notification needs the session’s XSRF token (419) and a signed-in user (401)', async () => {
    const user = await ctx().player();
    const noToken = await user.client.post('/api/email/verification-notification', undefined, { 'x-xsrf-token': '' });
    assert.deepEqual([noToken.status, noToken.json], [419, { message: 'CSRF token mismatch.' }]);
    const guest = ctx().client();
    await guest.csrf();
    const res = await guest.post('/api/email/verification-notification');
    assert.deepEqual([res.status, res.json], [401, UNAUTHENTICATED]);
    assert.equal(mailsTo(ctx(), user.email), 0);
  });

  test('operators see email_verified_at on users, and an e-mail they change is unverified again', async () => {
    const admin = await ctx().withRole('super-admin');
    const user = await ctx().player();
    assertNoContent(await user.client.get(await requestLink(user)));
    const verifiedAt = (await me(user.client)).email_verified_at;
    const shown = await admin.client.get(`/api/admin/users/${user.id}`);
    assert.equal((shown.json as { data: Me }).data.email_verified_at, verifiedAt);
    const listed = await admin.client.get(`/api/admin/users?email=${encodeURIComponent(user.email)}`);
    assert.deepEqual(
      (listed.json as { data: Me[] }).data.map((row) => row.email_verified_at),
      [verifiedAt],
    );
    assert.equal((await admin.client.put(`/api/admin/users/${user.id}`, { name: 'Renamed' })).status, 200);
    assert.equal((await me(user.client)).email_verified_at, verifiedAt, 'another change keeps it');
    assert.equal((await admin.client.put(`/api/admin/users/${user.id}`, { email: uniqueEmail('ops') })).status, 200);
    assert.equal((await me(user.client)).email_verified_at, null);
  });

  test('the link’s signature never reaches the log', async () => {
    const user = await ctx().player();
    const path = await requestLink(user);
    assertNoContent(await user.client.get(path));
    const signature = /signature=([0-9a-f]{64})/.exec(path)![1]!;
    const log = lines.join('\n');
    assert.ok(log.includes('/api/email/verify/') && log.includes('signature=[redacted]'), 'the visit was logged, redacted');
    assert.equal(log.includes(signature), false);
  });
});

test('EMAIL_VERIFICATION is on or off; anything else stops the start naming it', () => {
  const base = { APP_KEY: TEST_KEY, DATA_DIR: '/tmp/croupier-test-data' };
  assert.equal(loadConfig(base).emailVerification, false);
  assert.equal(loadConfig({ ...base, EMAIL_VERIFICATION: 'on' }).emailVerification, true);
  assert.throws(
    () => loadConfig({ ...base, EMAIL_VERIFICATION: 'yes' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError && error.message.includes('EMAIL_VERIFICATION'), String(error));
      return true;
    },
  );
});
