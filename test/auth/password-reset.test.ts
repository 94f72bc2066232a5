import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rows } from '../../src/platform/db/client.ts';
import { uniqueEmail, useApp, type Client } from '../helpers/app.ts';
import { assertFieldError, exec, login, REMEMBER_COOKIE, sql, UNAUTHENTICATED } from './support.ts';

const SENT = { message: 'We have emailed your password reset link.' };
const RESET = { message: 'Your password has been reset.' };
const INVALID_TOKEN = 'This password reset token is invalid.';
const UNKNOWN = "We can't find a user with that email address.";

describe('password reset', () => {
  const ctx = useApp();

  async function guest(): Promise<Client> {
    const client = ctx().client();
    await client.csrf();
    return client;
  }

  /** Requests a link and reads its token from the mail the SMTP server received. */
  async function requestLink(email: string): Promise<string> {
    const res = await (await guest()).post('/api/forgot-password', { email });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, SENT);
    const mail = await ctx().inbox.next(email.toLowerCase());
    return /\/password-reset\/([0-9a-f]{64})\?/.exec(mail.text ?? '')![1]!;
  }

  async function reset(email: string, token: string, password = 'brand-new-password', confirmation = password) {
    return (await guest()).post('/api/reset-password', { token, email, password, password_confirmation: confirmation });
  }

  /** Makes the user's reset token look `minutes` old. */
  async function age(email: string, minutes: number): Promise<void> {
    await exec(ctx(), sql`update password_reset_tokens set created_at = now() - make_interval(mins => ${minutes}) where email = ${email}`);
  }

  test('the e-mail links to the front end with a 64-hex token and the encoded e-mail', async () => {
    const email = `reset+${uniqueEmail('link')}`;
    await ctx().player({ email });
    const res = await (await guest()).post('/api/forgot-password', { email });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, SENT);
    const mail = await ctx().inbox.next(email);
    assert.equal(mail.subject, 'Reset Password Notification');
    const link = /(\S*\/password-reset\/\S*)/.exec(mail.text ?? '')![1]!;
    assert.match(
      link,
      new RegExp(`^http://localhost:5173/password-reset/[0-9a-f]{64}\\?email=${encodeURIComponent(email).replace(/[.+]/g, '\\$&')}$`),
    );
    assert.ok(email.includes('+') && link.includes('%2B'));
    assert.ok(String(mail.html).includes('/password-reset/'));
    assert.match(mail.text ?? '', /expire in 60 minutes/);
  });

  test('the e-mail is matched case-insensitively', async () => {
    const { email } = await ctx().player();
    const res = await (await guest()).post('/api/forgot-password', { email: `  ${email.toUpperCase()}  ` });
    assert.deepEqual(res.json, SENT);
    await ctx().inbox.next(email);
  });

  test('an unknown, missing or malformed e-mail is a 422 on email', async () => {
    const client = await guest();
    assertFieldError(await client.post('/api/forgot-password', { email: 'nobody@example.com' }), 'email', UNKNOWN);
    assertFieldError(await client.post('/api/forgot-password', {}), 'email', 'The email field is required.');
    assertFieldError(
      await client.post('/api/forgot-password', { email: 'nope' }),
      'email',
      'The email field must be a valid email address.',
    );
  });

  test('a second request within 60 s is refused and sends nothing', async () => {
    const { email } = await ctx().player();
    await requestLink(email);
    const again = await (await guest()).post('/api/forgot-password', { email });
    assertFieldError(again, 'email', 'Please wait before retrying.');
    await assert.rejects(ctx().inbox.next(email, 500));
  });

  test('a reset answers 200, signs nobody in, and only the new password works afterwards', async () => {
    const { email, password } = await ctx().player();
    const token = await requestLink(email);
    const client = await guest();
    const res = await client.post('/api/reset-password', {
      token,
      email,
      password: 'brand-new-password',
      password_confirmation: 'brand-new-password',
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, RESET);
    assert.equal((await client.get('/api/user')).status, 401);
    assert.deepEqual((await login(ctx().client(), email, 'brand-new-password')).json, { two_factor: false });
    assertFieldError(await login(ctx().client(), email, password), 'email', 'These credentials do not match our records.');
  });

  test('a used token is invalid the second time', async () => {
    const { email } = await ctx().player();
    const token = await requestLink(email);
    assert.deepEqual((await reset(email, token)).json, RESET);
    assertFieldError(await reset(email, token, 'another-password'), 'email', INVALID_TOKEN);
  });

  test('a newer link supersedes the older one', async () => {
    const { email } = await ctx().player();
    const first = await requestLink(email);
    await age(email, 2);
    const second = await requestLink(email);
    assert.notEqual(first, second);
    assertFieldError(await reset(email, first), 'email', INVALID_TOKEN);
    assert.deepEqual((await reset(email, second)).json, RESET);
  });

  test('a token older than 60 minutes is invalid; one just under is fine', async () => {
    const { email } = await ctx().player();
    const token = await requestLink(email);
    await age(email, 61);
    assertFieldError(await reset(email, token), 'email', INVALID_TOKEN);
    const fresh = await requestLink(email);
    await age(email, 59);
    assert.deepEqual((await reset(email, fresh)).json, RESET);
  });

  test('a wrong token, or the token of another user, is invalid; an unknown e-mail is unknown', async () => {
    const a = await ctx().player();
    const b = await ctx().player();
    const tokenA = await requestLink(a.email);
    await requestLink(b.email);
    assertFieldError(await reset(a.email, '0'.repeat(64)), 'email', INVALID_TOKEN);
    assertFieldError(await reset(b.email, tokenA), 'email', INVALID_TOKEN);
    assertFieldError(await reset('nobody@example.com', tokenA), 'email', UNKNOWN);
    assert.deepEqual((await reset(a.email.toUpperCase(), tokenA)).json, RESET);
  });

  test('a weak or unconfirmed password is refused without using up the token', async () => {
    const { email } = await ctx().player();
    const token = await requestLink(email);
    const weak = await reset(email, token, 'short', 'other');
    assert.equal(weak.status, 422);
    assert.deepEqual(weak.json, {
      message: 'The password field must be at least 8 characters. (and 1 more error)',
      errors: { password: ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'] },
    });
    assert.deepEqual((await reset(email, token)).json, RESET);
  });

  test('a reset without a password names only the password; the token is stored hashed', async () => {
    const { email } = await ctx().player();
    const token = await requestLink(email);
    const stored = await rows<{ token_hash: string }>(ctx().db, sql`select token_hash from password_reset_tokens where email = ${email}`);
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.token_hash, token);
    assertFieldError(await (await guest()).post('/api/reset-password', { token, email }), 'password', 'The password field is required.');
    assert.deepEqual((await reset(email, token)).json, RESET);
    assert.equal((await rows(ctx().db, sql`select 1 from password_reset_tokens where email = ${email}`)).length, 0);
  });

  test('missing fields are each required', async () => {
    const res = await (await guest()).post('/api/reset-password', {});
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The token field is required. (and 2 more errors)',
      errors: {
        token: ['The token field is required.'],
        email: ['The email field is required.'],
        password: ['The password field is required.'],
      },
    });
  });

  test('a completed reset ends every session and remember-me cookie of the user', async () => {
    const user = await ctx().player();
    const remembered = ctx().client();
    await login(remembered, user.email, user.password, { remember: true });
    const rememberCookie = remembered.jar.get(REMEMBER_COOKIE)!;
    const token = await requestLink(user.email);
    assert.deepEqual((await reset(user.email, token)).json, RESET);
    assert.deepEqual((await user.client.get('/api/user')).json, UNAUTHENTICATED);
    assert.equal((await remembered.get('/api/user')).status, 401);
    const onlyRemember = ctx().client();
    onlyRemember.jar.set(REMEMBER_COOKIE, rememberCookie);
    assert.equal((await onlyRemember.get('/api/user')).status, 401);
  });

  test('a signed-in user may ask for a link and reset like anyone', async () => {
    const user = await ctx().player();
    assert.deepEqual((await user.client.post('/api/forgot-password', { email: user.email })).json, SENT);
    const mail = await ctx().inbox.next(user.email);
    const token = /\/password-reset\/([0-9a-f]{64})\?/.exec(mail.text ?? '')![1]!;
    const res = await user.client.post('/api/reset-password', {
      token,
      email: user.email,
      password: 'brand-new-password',
      password_confirmation: 'brand-new-password',
    });
    assert.deepEqual(res.json, RESET);
    assert.equal((await user.client.get('/api/user')).status, 401);
  });

  test('forgot-password and reset-password need the XSRF header', async () => {
    const client = await guest();
    assert.equal((await client.post('/api/forgot-password', { email: 'a@b.co' }, { 'x-xsrf-token': '' })).status, 419);
    assert.equal((await client.post('/api/reset-password', {}, { 'x-xsrf-token': '' })).status, 419);
  });
});
