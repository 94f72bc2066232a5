import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentTotp, useApp, type Client } from '../helpers/app.ts';
import { assertFieldError, enableConfirmedTwoFactor, INVALID_CODE, pendingLogin } from './support.ts';

/** The half-done login's session is gone (419), and a fresh session has no pending login either. */
async function assertPendingLoginGone(pending: Client, secret: string): Promise<void> {
  const code = currentTotp(secret, 1);
  assert.equal((await pending.post('/api/two-factor-challenge', { code })).status, 419);
  await pending.csrf();
  assertFieldError(await pending.post('/api/two-factor-challenge', { code }), 'code', INVALID_CODE);
}

describe('a login waiting for its two-factor challenge', () => {
  const ctx = useApp();

  test('ends when the password is changed elsewhere: the right code no longer signs in', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const pending = await pendingLogin(ctx(), user);
    const changed = await user.client.put('/api/user/password', {
      current_password: user.password,
      password: 'changed-password',
      password_confirmation: 'changed-password',
    });
    assert.equal(changed.status, 200);
    await assertPendingLoginGone(pending, secret);
    assert.equal((await pending.get('/api/user')).status, 401);
  });

  test('ends when the password is reset: the right code no longer signs in', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const pending = await pendingLogin(ctx(), user);
    const guest = ctx().client();
    await guest.csrf();
    assert.equal((await guest.post('/api/forgot-password', { email: user.email })).status, 200);
    const mail = await ctx().inbox.next(user.email);
    const token = /password-reset\/([0-9a-f]{64})/.exec(mail.text ?? '')![1]!;
    const reset = await guest.post('/api/reset-password', {
      token,
      email: user.email,
      password: 'reset-password',
      password_confirmation: 'reset-password',
    });
    assert.equal(reset.status, 200);
    await assertPendingLoginGone(pending, secret);
  });
});
