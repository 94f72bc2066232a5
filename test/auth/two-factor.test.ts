import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hash } from '@node-rs/bcrypt';
import { rows, sql } from '../../src/platform/db/client.ts';
import { currentTotp, useApp } from '../helpers/app.ts';
import {
  assertEmptyString,
  assertFieldError,
  assertNoContent,
  CONFIRMATION_REQUIRED,
  confirmPassword,
  enableConfirmedTwoFactor,
  INVALID_CODE,
  INVALID_RECOVERY_CODE,
  login,
  pendingLogin,
  RECOVERY_CODE,
  recoveryCodes,
  UNAUTHENTICATED,
} from './support.ts';

const MANAGEMENT_ROUTES = [
  ['POST', '/api/user/two-factor-authentication'],
  ['DELETE', '/api/user/two-factor-authentication'],
  ['GET', '/api/user/two-factor-qr-code'],
  ['GET', '/api/user/two-factor-secret-key'],
  ['POST', '/api/user/confirmed-two-factor-authentication'],
  ['GET', '/api/user/two-factor-recovery-codes'],
  ['POST', '/api/user/two-factor-recovery-codes'],
] as const;

describe('two-factor management', () => {
  const ctx = useApp();

  test('every management route answers 423 until the password is confirmed, and 401 to a guest first', async () => {
    const { client } = await ctx().player();
    for (const [method, url] of MANAGEMENT_ROUTES) {
      const res = await client.request(method, url, method === 'GET' ? undefined : {});
      assert.equal(res.status, 423, `${method} ${url}`);
      assert.deepEqual(res.json, CONFIRMATION_REQUIRED);
    }
    const guest = ctx().client();
    await guest.csrf();
    for (const [method, url] of MANAGEMENT_ROUTES) {
      const res = await guest.request(method, url, method === 'GET' ? undefined : {});
      assert.equal(res.status, 401, `${method} ${url}`);
      assert.deepEqual(res.json, UNAUTHENTICATED);
    }
  });

  test('while two-factor is off: secret key 404, QR code and recovery codes []', async () => {
    const { client, password } = await ctx().player();
    await confirmPassword(client, password);
    const secret = await client.get('/api/user/two-factor-secret-key');
    assert.equal(secret.status, 404);
    assert.deepEqual(secret.json, { message: 'Two factor authentication has not been enabled.' });
    const qr = await client.get('/api/user/two-factor-qr-code');
    assert.equal(qr.status, 200);
    assert.equal(qr.text, '[]');
    const codes = await client.get('/api/user/two-factor-recovery-codes');
    assert.equal(codes.status, 200);
    assert.equal(codes.text, '[]');
  });

  test('regenerating recovery codes while off answers 200 "" and they stay hidden until enabled', async () => {
    const { client, password } = await ctx().player();
    await confirmPassword(client, password);
    assertEmptyString(await client.post('/api/user/two-factor-recovery-codes'));
    assert.deepEqual(await recoveryCodes(client), []);
    assertEmptyString(await client.post('/api/user/two-factor-authentication'));
    const codes = await recoveryCodes(client);
    assert.equal(codes.length, 8);
    for (const code of codes) assert.match(code, RECOVERY_CODE);
  });

  test('enable answers 200 "" and creates a secret, a matching QR code and 8 recovery codes, unconfirmed', async () => {
    const user = await ctx().player();
    const { client } = user;
    await confirmPassword(client, user.password);
    assertEmptyString(await client.post('/api/user/two-factor-authentication'));

    const secret = await client.get('/api/user/two-factor-secret-key');
    assert.equal(secret.status, 200);
    const { secretKey } = secret.json as { secretKey: string };
    assert.deepEqual(Object.keys(secret.json as object), ['secretKey']);
    assert.match(secretKey, /^[A-Z2-7]{16}$/);

    const qr = await client.get('/api/user/two-factor-qr-code');
    assert.equal(qr.status, 200);
    const { svg, url } = qr.json as { svg: string; url: string };
    assert.deepEqual(Object.keys(qr.json as object).sort(), ['svg', 'url']);
    assert.match(svg, /^<svg[\s\S]*<\/svg>$/);
    assert.equal(
      url,
      `otpauth://totp/croupier:${encodeURIComponent(user.email)}?secret=${secretKey}&issuer=croupier&algorithm=SHA1&digits=6&period=30`,
    );
    assert.equal(new URL(url).searchParams.get('secret'), secretKey);

    const codes = await recoveryCodes(client);
    assert.equal(codes.length, 8);
    assert.equal(new Set(codes).size, 8);
    for (const code of codes) assert.match(code, RECOVERY_CODE);

    // Not confirmed yet: the user record says off, and a login needs no challenge.
    assert.equal(((await client.get('/api/user')).json as { two_factor_enabled: boolean }).two_factor_enabled, false);
    const again = ctx().client();
    assert.deepEqual((await login(again, user.email, user.password)).json, { two_factor: false });
    assert.equal((await again.get('/api/user')).status, 200);
  });

  test('enabling twice keeps the secret; force:true replaces it and the codes', async () => {
    const { client, password } = await ctx().player();
    await confirmPassword(client, password);
    const secretKey = async () => ((await client.get('/api/user/two-factor-secret-key')).json as { secretKey: string }).secretKey;
    assertEmptyString(await client.post('/api/user/two-factor-authentication'));
    const first = await secretKey();
    const firstCodes = await recoveryCodes(client);
    assertEmptyString(await client.post('/api/user/two-factor-authentication', {}));
    assert.equal(await secretKey(), first);
    assert.deepEqual(await recoveryCodes(client), firstCodes);
    for (const force of [false, 'no', 0, {}]) {
      assertEmptyString(await client.post('/api/user/two-factor-authentication', { force }));
      assert.equal(await secretKey(), first);
    }
    assertEmptyString(await client.post('/api/user/two-factor-authentication', { force: true }));
    const forced = await secretKey();
    assert.notEqual(forced, first);
    assert.match(forced, /^[A-Z2-7]{16}$/);
    const forcedCodes = await recoveryCodes(client);
    assert.equal(forcedCodes.filter((code) => firstCodes.includes(code)).length, 0);
  });

  test('a forced new secret must be confirmed again before login asks for a code', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    assertEmptyString(await user.client.post('/api/user/two-factor-authentication', { force: 'true' }));
    assert.equal(((await user.client.get('/api/user')).json as { two_factor_enabled: boolean }).two_factor_enabled, false);
    assert.deepEqual((await login(ctx().client(), user.email, user.password)).json, { two_factor: false });
  });

  test('confirmation with a wrong, empty or non-string code is refused and login stays single-step', async () => {
    const user = await ctx().player();
    await confirmPassword(user.client, user.password);
    assertEmptyString(await user.client.post('/api/user/two-factor-authentication'));
    const url = '/api/user/confirmed-two-factor-authentication';
    assertFieldError(await user.client.post(url, { code: 'invalid-otp' }), 'code', INVALID_CODE);
    assertFieldError(await user.client.post(url, { code: '000000' }), 'code', INVALID_CODE);
    assertFieldError(await user.client.post(url, {}), 'code', INVALID_CODE);
    assertFieldError(await user.client.post(url, { code: '' }), 'code', INVALID_CODE);
    assertFieldError(await user.client.post(url, { code: 123456 }), 'code', 'The code field must be a string.');
    assert.deepEqual((await login(ctx().client(), user.email, user.password)).json, { two_factor: false });
  });

  test('confirmation without a secret is refused', async () => {
    const { client, password } = await ctx().player();
    await confirmPassword(client, password);
    assertFieldError(await client.post('/api/user/confirmed-two-factor-authentication', { code: '123456' }), 'code', INVALID_CODE);
  });

  test('a code from the authenticator confirms two-factor; the user shows it and login then asks for the challenge', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    assert.equal(((await user.client.get('/api/user')).json as { two_factor_enabled: boolean }).two_factor_enabled, true);
    const client = await pendingLogin(ctx(), user);
    const me = await client.get('/api/user');
    assert.equal(me.status, 401);
    assert.deepEqual(me.json, UNAUTHENTICATED);
  });

  test('the code used for confirmation cannot be replayed at the challenge', async () => {
    const user = await ctx().player();
    await confirmPassword(user.client, user.password);
    assertEmptyString(await user.client.post('/api/user/two-factor-authentication'));
    const { secretKey } = (await user.client.get('/api/user/two-factor-secret-key')).json as { secretKey: string };
    const code = currentTotp(secretKey);
    assertEmptyString(await user.client.post('/api/user/confirmed-two-factor-authentication', { code }));
    const client = await pendingLogin(ctx(), user);
    assertFieldError(await client.post('/api/two-factor-challenge', { code }), 'code', INVALID_CODE);
  });

  test('disable answers 200 "" and everything reads as off again; a repeat is still 200', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    assertEmptyString(await user.client.delete('/api/user/two-factor-authentication'));
    const secret = await user.client.get('/api/user/two-factor-secret-key');
    assert.equal(secret.status, 404);
    assert.deepEqual(secret.json, { message: 'Two factor authentication has not been enabled.' });
    assert.equal((await user.client.get('/api/user/two-factor-qr-code')).text, '[]');
    assert.equal((await user.client.get('/api/user/two-factor-recovery-codes')).text, '[]');
    assert.equal(((await user.client.get('/api/user')).json as { two_factor_enabled: boolean }).two_factor_enabled, false);
    assert.deepEqual((await login(ctx().client(), user.email, user.password)).json, { two_factor: false });
    assertEmptyString(await user.client.delete('/api/user/two-factor-authentication'));
  });

  test('regenerating recovery codes replaces all 8', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const before = await recoveryCodes(user.client);
    assertEmptyString(await user.client.post('/api/user/two-factor-recovery-codes'));
    const after = await recoveryCodes(user.client);
    assert.equal(after.length, 8);
    for (const code of after) assert.match(code, RECOVERY_CODE);
    assert.equal(after.filter((code) => before.includes(code)).length, 0);
  });
});

describe('two-factor challenge', () => {
  const ctx = useApp();

  test('a valid code answers 204, regenerates both cookies and signs in; the pending login is gone', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const client = await pendingLogin(ctx(), user);
    const before = { session: client.jar.get('gp_session'), xsrf: client.xsrf };
    const res = await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) });
    assertNoContent(res);
    assert.ok(res.cookies.some((c) => c.name === 'gp_session'));
    assert.notEqual(client.jar.get('gp_session'), before.session);
    assert.notEqual(client.xsrf, before.xsrf);
    const me = await client.get('/api/user');
    assert.equal(me.status, 200);
    assert.equal((me.json as { email: string }).email, user.email);
    // The old token died with the old session.
    assert.equal((await client.post('/api/logout', {}, { 'x-xsrf-token': before.xsrf! })).status, 419);
    // Signed in now, nothing is pending: a second challenge is an invalid code, not a sign-in.
    assertFieldError(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) }), 'code', INVALID_CODE);
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('a code accepted once is refused when sent again', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const code = currentTotp(secret, 1);
    assertNoContent(await (await pendingLogin(ctx(), user)).post('/api/two-factor-challenge', { code }));
    const second = await pendingLogin(ctx(), user);
    assertFieldError(await second.post('/api/two-factor-challenge', { code }), 'code', INVALID_CODE);
    assert.equal((await second.get('/api/user')).status, 401);
  });

  test('codes outside the ±1 step window are refused and the challenge stays pending', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const client = await pendingLogin(ctx(), user);
    assertFieldError(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 3) }), 'code', INVALID_CODE);
    assertFieldError(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, -3) }), 'code', INVALID_CODE);
    assertFieldError(await client.post('/api/two-factor-challenge', { code: 'abcdef' }), 'code', INVALID_CODE);
    assertFieldError(await client.post('/api/two-factor-challenge', {}), 'code', INVALID_CODE);
    assert.equal((await client.get('/api/user')).status, 401);
    assertNoContent(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) }));
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('a code sent as a JSON number is a 422 "must be a string"', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const client = await pendingLogin(ctx(), user);
    const res = await client.post('/api/two-factor-challenge', { code: 123456 });
    assertFieldError(res, 'code', 'The code field must be a string.');
  });

  test('without a pending login the challenge is an invalid code (or recovery code) and signs nobody in', async () => {
    const client = ctx().client();
    await client.csrf();
    assertFieldError(await client.post('/api/two-factor-challenge', { code: '123456' }), 'code', INVALID_CODE);
    assertFieldError(await client.post('/api/two-factor-challenge', { recovery_code: 'abc' }), 'recovery_code', INVALID_RECOVERY_CODE);
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('a recovery code signs in once, is replaced in place, and fails the second time', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const before = await recoveryCodes(user.client);
    const used = before[3]!;

    const client = await pendingLogin(ctx(), user);
    assertNoContent(await client.post('/api/two-factor-challenge', { recovery_code: used }));
    assert.equal((await client.get('/api/user')).status, 200);

    // A new session needs its own password confirmation to read the codes.
    await confirmPassword(client, user.password);
    const after = await recoveryCodes(client);
    assert.equal(after.length, 8);
    assert.ok(!after.includes(used));
    assert.match(after[3]!, RECOVERY_CODE);
    assert.deepEqual([...after.slice(0, 3), ...after.slice(4)], [...before.slice(0, 3), ...before.slice(4)]);

    const again = await pendingLogin(ctx(), user);
    assertFieldError(await again.post('/api/two-factor-challenge', { recovery_code: used }), 'recovery_code', INVALID_RECOVERY_CODE);
    assert.equal((await again.get('/api/user')).status, 401);
  });

  test('a wrong recovery code is a 422 on recovery_code and the login stays pending', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const [code] = await recoveryCodes(user.client);
    const client = await pendingLogin(ctx(), user);
    assertFieldError(
      await client.post('/api/two-factor-challenge', { recovery_code: 'missing-code' }),
      'recovery_code',
      INVALID_RECOVERY_CODE,
    );
    // Recovery codes are case-sensitive.
    const swapped = [...code!].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    if (swapped !== code) {
      assertFieldError(await client.post('/api/two-factor-challenge', { recovery_code: swapped }), 'recovery_code', INVALID_RECOVERY_CODE);
    }
    assert.equal((await client.get('/api/user')).status, 401);
    assertNoContent(await client.post('/api/two-factor-challenge', { recovery_code: ` ${code!} ` }));
  });

  test('a right code wins over a wrong recovery code sent beside it', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const client = await pendingLogin(ctx(), user);
    assertNoContent(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1), recovery_code: 'wrong-code' }));
  });

  test('the sixth challenge within a minute is throttled, even with the right code', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const client = await pendingLogin(ctx(), user);
    for (let i = 0; i < 5; i++) {
      assertFieldError(await client.post('/api/two-factor-challenge', { code: '000000' }), 'code', INVALID_CODE);
    }
    const res = await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) });
    assert.equal(res.status, 429);
    const { message } = res.json as { message: string };
    assert.deepEqual(Object.keys(res.json as object), ['message']);
    const match = /^Too many attempts\. Please try again in (\d+) seconds\.$/.exec(message);
    assert.ok(match, message);
    assert.equal(res.headers['retry-after'], match[1]);
    assert.ok(Number(match[1]) >= 1 && Number(match[1]) <= 60);
    assert.equal((await client.get('/api/user')).status, 401);
    // The throttle belongs to the pending login, so a second browser for the same user is throttled too.
    const other = await pendingLogin(ctx(), user);
    assert.equal((await other.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) })).status, 429);
  });

  test('a challenge without the XSRF header is a 419 and does not count as a try', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const client = await pendingLogin(ctx(), user);
    for (let i = 0; i < 6; i++) {
      const res = await client.post('/api/two-factor-challenge', { code: '000000' }, { 'x-xsrf-token': '' });
      assert.equal(res.status, 419);
      assert.deepEqual(res.json, { message: 'CSRF token mismatch.' });
    }
    assertNoContent(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) }));
  });

  test('a passed challenge clears the failed-login counter: it completes the login', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const client = ctx().client({ ip: '10.20.0.1' });
    await client.csrf();
    for (let i = 0; i < 4; i++) assert.equal((await client.post('/api/login', { email: user.email, password: 'wrong-pass' })).status, 422);
    const pending = await login(client, user.email, user.password);
    assert.deepEqual(pending.json, { two_factor: true });
    assertNoContent(await client.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) }));
    const other = ctx().client({ ip: '10.20.0.1' });
    await other.csrf();
    assert.equal((await other.post('/api/login', { email: user.email, password: 'wrong-pass' })).status, 422);
    assert.deepEqual((await other.post('/api/login', { email: user.email, password: user.password })).json, { two_factor: true });
  });

  test('issuing the challenge does not clear the failed-login counter', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const client = ctx().client({ ip: '10.20.0.2' });
    await client.csrf();
    for (let i = 0; i < 4; i++) await client.post('/api/login', { email: user.email, password: 'wrong-pass' });
    assert.deepEqual((await client.post('/api/login', { email: user.email, password: user.password })).json, { two_factor: true });
    assert.equal((await client.post('/api/login', { email: user.email, password: 'wrong-pass' })).status, 422);
    assert.equal((await client.post('/api/login', { email: user.email, password: user.password })).status, 429);
  });

  test('a bcrypt hash is rehashed already when the login stops at the challenge', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const legacy = (await hash(user.password, 4)).replace(/^\$2b\$/, '$2y$');
    await ctx().db.execute(sql`update users set password = ${legacy} where id = ${user.id}`);
    await pendingLogin(ctx(), user);
    const [row] = await rows<{ password: string }>(ctx().db, sql`select password from users where id = ${user.id}`);
    assert.match(row!.password, /^\$argon2id\$/);
  });

  test('logging in again while signed in as someone else ends that sign-in, also when a challenge follows', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const other = await ctx().player();
    const res = await login(other.client, user.email, user.password);
    assert.deepEqual(res.json, { two_factor: true });
    assert.equal((await other.client.get('/api/user')).status, 401);
  });
});
