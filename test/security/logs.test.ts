import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { one } from '../../src/platform/db/client.ts';
import { signBody } from '../../src/platform/signature.ts';
import { loggableError } from '../../src/platform/log-safety.ts';
import { currentTotp, uniqueEmail, useApp } from '../helpers/app.ts';
import * as wallet from '../games/helpers.ts';
import { createGame, createProvider } from '../games/support.ts';
import { fund } from '../withdrawals/helpers.ts';

const lines: string[] = [];
const stream = new PassThrough();
stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));

describe('the log', () => {
  const ctx = useApp({ LOG_LEVEL: 'trace' }, { logStream: stream });

  test('a full account journey leaves no password, hash, session id, token or two-factor secret in the log', async () => {
    const client = ctx().client();
    await client.csrf();
    const email = uniqueEmail('logs');
    const password = 'very-secret-password';
    await client.post('/api/register', { name: 'Log', email, password, password_confirmation: password, agreement: true });
    await client.post('/api/user/confirm-password', { password });
    await client.post('/api/user/two-factor-authentication');
    const secret = ((await client.get('/api/user/two-factor-secret-key')).json as { secretKey: string }).secretKey;
    const codes = (await client.get('/api/user/two-factor-recovery-codes')).json as string[];
    await client.post('/api/user/confirmed-two-factor-authentication', { code: currentTotp(secret) });
    await client.post('/api/login', { email, password: 'wrong-password' });
    await client.post('/api/forgot-password', { email });
    const mail = await ctx().inbox.next(email);
    const token = /password-reset\/([0-9a-f]{64})/.exec(mail.text ?? '')![1]!;
    await client.post('/api/reset-password', { token, email, password: 'another-password', password_confirmation: 'another-password' });

    const stored = (await one<{ password: string; two_factor_secret: string; two_factor_recovery_codes: string }>(
      ctx().db,
      sql`select password, two_factor_secret, two_factor_recovery_codes from users where email = ${email}`,
    ))!;
    const log = lines.join('\n');
    assert.ok(lines.length > 10, 'the journey was logged');
    for (const secretValue of [
      password,
      'another-password',
      stored.password,
      stored.two_factor_secret,
      stored.two_factor_recovery_codes,
      secret,
      token,
      ...codes,
      ...client.jar.values(),
    ]) {
      assert.equal(log.includes(secretValue), false, `the log contains a secret (${secretValue.slice(0, 6)}…)`);
    }
  });

  test('a game launch token never reaches the log, though the demo page is opened with it in its URL', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const provider = await createProvider(admin, { wallet_secret: 'a-wallet-secret-of-the-demo' });
    const game = await createGame(admin, provider.id);
    const player = await ctx().player();
    const launched = await player.client.get(`/api/provider-games/${game.id}/launch`);
    assert.equal(launched.status, 200, launched.text);
    const { url, token } = (launched.json as { data: { url: string; token: string } }).data;
    const page = await player.client.get(new URL(url).pathname + new URL(url).search);
    assert.equal(page.status, 200);
    const log = lines.join('\n');
    assert.ok(log.includes('/games/demo/play?token=[redacted]'), 'the page request was logged, its token redacted');
    assert.equal(log.includes(token), false, 'the log contains the launch token');
  });

  test('a wallet callback’s tokens, signature and body never reach the log, whether it is applied, refused or rejected', async () => {
    const t = ctx();
    // Made through the admin API, as in the test above (whose helpers name providers alike).
    const admin = (await t.withRole('super-admin')).client;
    const secret = 'the-wallet-secret-of-a-provider';
    const created = await createProvider(admin, { wallet_secret: secret });
    const provider = { id: created.id, code: created.code, secret };
    const game = await createGame(admin, provider.id);
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    const launched = await wallet.launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const at = Math.floor(Date.now() / 1000);
    const from = lines.length;
    const call = (made: wallet.KitCall, options: wallet.SendOptions = {}) =>
      wallet.send(t, wallet.demoDriver, provider, made, { at, ...options });
    const session = (await call({ action: 'balance', token: launched.token })).answer!.session!;
    const placed: wallet.KitCall = {
      action: 'bet',
      token: session,
      transactionId: 'log-bet',
      roundId: 'log-round',
      game: game.code,
      amount: 100n,
    };
    const sent = [
      await call(placed),
      await call({ ...placed, transactionId: 'log-too-much', amount: 1_000_000n }),
      await call({ ...placed, amount: 200n }),
      await call({ ...placed, transactionId: 'log-unsigned' }, { secret: 'not-the-secret' }),
      await call({ ...placed, transactionId: 'log-unreadable' }, { raw: JSON.stringify({ token: session, amount: 'lots' }) }),
    ];
    assert.deepEqual(
      sent.map((answer) => answer.answer?.status ?? answer.res.status),
      ['OK', 'INSUFFICIENT_FUNDS', 'DUPLICATE_MISMATCH', 401, 422],
    );
    const log = lines.slice(from).join('\n');
    assert.ok(log.includes('wallet call refused'), 'the refusals were logged');
    for (const [what, value] of [
      ['launch token', launched.token],
      ['session token', session],
      ['wallet secret', provider.secret],
      ...sent.map(({ raw }) => ['signature', signBody(provider.secret, raw, at).split('v1=')[1]!]),
      // A body's key with its value (a refusal's log line may name the field, never its value).
      ['body', '"transaction_id":"'],
      ['body as text', '\\"transaction_id\\":\\"'],
    ]) {
      assert.equal(log.includes(value!), false, `the log contains the ${what}`);
    }
  });

  test('a failed query is logged without its parameters', () => {
    const error = new DrizzleQueryError(
      'insert into users (password) values ($1)',
      ['$argon2id$v=19$secret-hash'],
      Object.assign(new Error('boom'), { code: '23505' }),
    );
    const logged = JSON.stringify(loggableError(error));
    assert.equal(logged.includes('secret-hash'), false);
    assert.match(logged, /23505/);
    assert.match(logged, /insert into users/);
  });
});
