import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rows, sql } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { closedPort } from '../helpers/smtp.ts';

const port = await closedPort();

describe('password reset when the mail server is down', () => {
  const ctx = useApp({ MAIL_URL: `smtp://127.0.0.1:${port}` });

  test('the request fails with a bare 500 and the link it could not send does not hold the one-a-minute slot', async () => {
    const { email } = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    const res = await client.post('/api/forgot-password', { email });
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, { message: 'Server Error.' });
    assert.deepEqual(await rows(ctx().db, sql`select 1 from password_reset_tokens where email = ${email}`), []);
    // Retrying at once is not "Please wait before retrying.": it tries to send again.
    assert.equal((await client.post('/api/forgot-password', { email })).status, 500);
  });
});
