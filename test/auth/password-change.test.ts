import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { assertEmptyString, assertFieldError, login, UNAUTHENTICATED } from './support.ts';

const WRONG_CURRENT = 'The provided password does not match your current password.';

describe('password change', () => {
  const ctx = useApp();

  test('200 "": other sessions end, this one stays signed in, and only the new password works', async () => {
    const user = await ctx().player();
    const other = ctx().client();
    await login(other, user.email, user.password);
    assert.equal((await other.get('/api/user')).status, 200);

    const res = await user.client.put('/api/user/password', {
      current_password: user.password,
      password: 'new-password',
      password_confirmation: 'new-password',
    });
    assertEmptyString(res);
    assert.equal((await user.client.get('/api/user')).status, 200);
    const kicked = await other.get('/api/user');
    assert.equal(kicked.status, 401);
    assert.deepEqual(kicked.json, UNAUTHENTICATED);

    assert.deepEqual((await login(ctx().client(), user.email, 'new-password')).json, { two_factor: false });
    assertFieldError(await login(ctx().client(), user.email, user.password), 'email', 'These credentials do not match our records.');
  });

  test('an empty body names both required fields', async () => {
    const { client } = await ctx().player();
    const res = await client.put('/api/user/password', {});
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The current password field is required. (and 1 more error)',
      errors: { current_password: ['The current password field is required.'], password: ['The password field is required.'] },
    });
  });

  test('a wrong current password is a 422 on current_password and changes nothing', async () => {
    const user = await ctx().player();
    const res = await user.client.put('/api/user/password', {
      current_password: 'invalid-password',
      password: 'new-password',
      password_confirmation: 'new-password',
    });
    assertFieldError(res, 'current_password', WRONG_CURRENT);
    assert.deepEqual((await login(ctx().client(), user.email, user.password)).json, { two_factor: false });
  });

  test('a short, unconfirmed new password gives both messages on password, beside a wrong current one', async () => {
    const user = await ctx().player();
    const weak = await user.client.put('/api/user/password', {
      current_password: user.password,
      password: 'short',
      password_confirmation: 'other',
    });
    assert.equal(weak.status, 422);
    assert.deepEqual(weak.json, {
      message: 'The password field must be at least 8 characters. (and 1 more error)',
      errors: { password: ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'] },
    });
    const both = await user.client.put('/api/user/password', { current_password: 'nope-nope', password: 'short' });
    assert.deepEqual(both.json, {
      message: `${WRONG_CURRENT} (and 2 more errors)`,
      errors: {
        current_password: [WRONG_CURRENT],
        password: ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'],
      },
    });
    assert.deepEqual((await login(ctx().client(), user.email, user.password)).json, { two_factor: false });
  });

  test('a pending password-reset link dies with the old password', async () => {
    const user = await ctx().player();
    const guest = ctx().client();
    await guest.csrf();
    assert.equal((await guest.post('/api/forgot-password', { email: user.email })).status, 200);
    const mail = await ctx().inbox.next(user.email);
    const token = /password-reset\/([0-9a-f]{64})/.exec(mail.text ?? '')![1]!;
    assertEmptyString(
      await user.client.put('/api/user/password', {
        current_password: user.password,
        password: 'new-password',
        password_confirmation: 'new-password',
      }),
    );
    const res = await guest.post('/api/reset-password', {
      token,
      email: user.email,
      password: 'third-password',
      password_confirmation: 'third-password',
    });
    assertFieldError(res, 'email', 'This password reset token is invalid.');
  });

  test('a guest gets 401', async () => {
    const client = ctx().client();
    await client.csrf();
    const res = await client.put('/api/user/password', {
      current_password: 'x',
      password: 'new-password',
      password_confirmation: 'new-password',
    });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, UNAUTHENTICATED);
  });
});

describe('profile information', () => {
  const ctx = useApp();

  test('200 "" and /api/user shows the new name and lower-cased e-mail', async () => {
    const { client } = await ctx().player();
    const email = `Taylor.${Date.now()}@Laravel.COM`;
    assertEmptyString(await client.put('/api/user/profile-information', { name: '  Taylor Otwell ', email }));
    const me = (await client.get('/api/user')).json as { name: string; email: string };
    assert.equal(me.name, 'Taylor Otwell');
    assert.equal(me.email, email.toLowerCase());
  });

  test('the e-mail is optional: a name alone keeps the e-mail', async () => {
    const user = await ctx().player();
    assertEmptyString(await user.client.put('/api/user/profile-information', { name: 'Only Name' }));
    const me = (await user.client.get('/api/user')).json as { name: string; email: string };
    assert.deepEqual([me.name, me.email], ['Only Name', user.email]);
  });

  test('a missing name is a 422 on name', async () => {
    const { client } = await ctx().player();
    assertFieldError(await client.put('/api/user/profile-information', {}), 'name', 'The name field is required.');
    assertFieldError(await client.put('/api/user/profile-information', { name: '   ' }), 'name', 'The name field is required.');
    assertFieldError(
      await client.put('/api/user/profile-information', { name: 'x'.repeat(256) }),
      'name',
      'The name field must not be greater than 255 characters.',
    );
  });

  test('an e-mail of another user (any case) is taken; one’s own is fine; a bad one is invalid', async () => {
    const first = await ctx().player();
    const second = await ctx().player();
    assertFieldError(
      await second.client.put('/api/user/profile-information', { name: 'Second', email: first.email.toUpperCase() }),
      'email',
      'The email has already been taken.',
    );
    assertEmptyString(await second.client.put('/api/user/profile-information', { name: 'Second', email: second.email.toUpperCase() }));
    assertFieldError(
      await second.client.put('/api/user/profile-information', { name: 'Second', email: 'not-an-email' }),
      'email',
      'The email field must be a valid email address.',
    );
    const me = (await second.client.get('/api/user')).json as { name: string; email: string };
    assert.equal(me.email, second.email);
  });

  test('a guest gets 401', async () => {
    const client = ctx().client();
    await client.csrf();
    const res = await client.put('/api/user/profile-information', { name: 'x' });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, UNAUTHENTICATED);
  });
});
