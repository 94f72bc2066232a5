import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { assertEmptyString, assertFieldError, CONFIRMATION_REQUIRED, UNAUTHENTICATED } from './support.ts';

const INCORRECT = 'The provided password was incorrect.';

describe('password confirmation', () => {
  const ctx = useApp();

  test('a fresh sign-in is not confirmed and carries no X-Retry-After', async () => {
    const { client } = await ctx().player();
    const res = await client.get('/api/user/confirmed-password-status');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { confirmed: false });
    assert.equal(res.headers['x-retry-after'], undefined);
  });

  test('the right password answers 201 "" and the status turns true with the seconds elapsed', async () => {
    const { client, password } = await ctx().player();
    assertEmptyString(await client.post('/api/user/confirm-password', { password }), 201);
    const res = await client.get('/api/user/confirmed-password-status');
    assert.deepEqual(res.json, { confirmed: true });
    assert.match(String(res.headers['x-retry-after']), /^\d+$/);
    assert.ok(Number(res.headers['x-retry-after']) <= 2);
    // A `seconds` shorter than the time since the confirmation reads as not confirmed.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const strict = await client.get('/api/user/confirmed-password-status?seconds=1');
    assert.deepEqual(strict.json, { confirmed: false });
    assert.equal(strict.headers['x-retry-after'], undefined);
  });

  test('a wrong, missing, null or non-string password is a 422 on password and confirms nothing', async () => {
    const { client } = await ctx().player();
    for (const body of [
      { password: 'invalid' },
      {},
      { password: null },
      { password: '' },
      { password: 12345678 },
      { password: ['password'] },
    ]) {
      assertFieldError(await client.post('/api/user/confirm-password', body), 'password', INCORRECT);
    }
    assert.deepEqual((await client.get('/api/user/confirmed-password-status')).json, { confirmed: false });
    assert.equal((await client.post('/api/user/two-factor-authentication')).status, 423);
  });

  test('the password is not trimmed: surrounding spaces make it wrong', async () => {
    const { client, password } = await ctx().player();
    assertFieldError(await client.post('/api/user/confirm-password', { password: ` ${password} ` }), 'password', INCORRECT);
  });

  test('a confirmation belongs to its session: a second sign-in must confirm again', async () => {
    const user = await ctx().player();
    assertEmptyString(await user.client.post('/api/user/confirm-password', { password: user.password }), 201);
    const other = ctx().client();
    await other.csrf();
    await other.post('/api/login', { email: user.email, password: user.password });
    const res = await other.post('/api/user/two-factor-authentication');
    assert.equal(res.status, 423);
    assert.deepEqual(res.json, CONFIRMATION_REQUIRED);
  });

  test('a new login in the same browser forgets the confirmation', async () => {
    const user = await ctx().player();
    assertEmptyString(await user.client.post('/api/user/confirm-password', { password: user.password }), 201);
    await user.client.post('/api/login', { email: user.email, password: user.password });
    assert.deepEqual((await user.client.get('/api/user/confirmed-password-status')).json, { confirmed: false });
  });

  test('guests get 401 on both routes', async () => {
    const client = ctx().client();
    await client.csrf();
    assert.deepEqual((await client.get('/api/user/confirmed-password-status')).json, UNAUTHENTICATED);
    const res = await client.post('/api/user/confirm-password', { password: 'password' });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, UNAUTHENTICATED);
  });
});
