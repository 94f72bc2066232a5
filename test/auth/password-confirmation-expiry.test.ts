import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { assertEmptyString, CONFIRMATION_REQUIRED } from './support.ts';

describe('password confirmation expiry (PASSWORD_TIMEOUT_S=1)', () => {
  const ctx = useApp({ PASSWORD_TIMEOUT_S: '1' });

  test('a confirmation older than PASSWORD_TIMEOUT_S is required again (423) and the status reads false', async () => {
    const { client, password } = await ctx().player();
    assertEmptyString(await client.post('/api/user/confirm-password', { password }), 201);
    assertEmptyString(await client.post('/api/user/two-factor-authentication'));
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const res = await client.post('/api/user/two-factor-authentication');
    assert.equal(res.status, 423);
    assert.deepEqual(res.json, CONFIRMATION_REQUIRED);
    assert.equal((await client.get('/api/user/two-factor-secret-key')).status, 423);
    const status = await client.get('/api/user/confirmed-password-status');
    assert.deepEqual(status.json, { confirmed: false });
    assert.equal(status.headers['x-retry-after'], undefined);
    assertEmptyString(await client.post('/api/user/confirm-password', { password }), 201);
    assertEmptyString(await client.post('/api/user/two-factor-authentication'));
  });
});
