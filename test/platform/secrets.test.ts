import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { rows, sql } from '../../src/platform/db/client.ts';
import { signBody } from '../../src/platform/signature.ts';
import { demoDriver, send, type KitCall, type Sent } from '../games/helpers.ts';
import { seat } from '../games/kit.ts';
import { Client, currentTotp, uniqueEmail, useApp, type Response, type SignedIn } from '../helpers/app.ts';

interface Seen {
  method: string;
  url: string;
  res: Response;
}

/** A client that keeps every response it got, to search them for secrets afterwards. */
class RecordingClient extends Client {
  readonly seen: Seen[] = [];

  override async request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const res = await super.request(method, url, body, headers);
    this.seen.push({ method, url, res });
    return res;
  }
}

/** A recording client signed in as `user` (it takes over the user's cookies). */
function recording(app: FastifyInstance, user: SignedIn): RecordingClient {
  const client = new RecordingClient(app);
  for (const [name, value] of user.client.jar) client.jar.set(name, value);
  return client;
}

/** What a response shows besides its Set-Cookie headers (cookies legitimately carry the session id). */
function visible(res: Response): string {
  const headers = Object.entries(res.headers).filter(([name]) => name !== 'set-cookie');
  return `${JSON.stringify(headers)}\n${res.text}`;
}

describe('no secret in any response', () => {
  const ctx = useApp();

  test('hashes, 2FA secrets, recovery codes, session ids and reset tokens appear only where they belong', async () => {
    const client = new RecordingClient(ctx().app);
    const email = uniqueEmail('secret');
    const password = 'first-password';
    const sessionIds = new Set<string>();
    const track = () => sessionIds.add(client.jar.get('gp_session') ?? '');

    await client.csrf();
    track();
    await client.post('/api/register', { name: 'S', email, password, password_confirmation: password, agreement: true });
    track();
    await client.get('/api/user');
    await client.post('/api/user/confirm-password', { password: 'wrong-password' });
    await client.post('/api/user/confirm-password', { password });
    await client.post('/api/user/two-factor-authentication');
    const { secretKey } = (await client.get('/api/user/two-factor-secret-key')).json as { secretKey: string };
    await client.get('/api/user/two-factor-qr-code');
    const codes = (await client.get('/api/user/two-factor-recovery-codes')).json as string[];
    await client.post('/api/user/confirmed-two-factor-authentication', { code: '000000' });
    assert.equal((await client.post('/api/user/confirmed-two-factor-authentication', { code: currentTotp(secretKey) })).status, 200);
    await client.get('/api/user');
    await client.post('/api/logout');
    track();
    await client.post('/api/login', { email, password: 'wrong-password' });
    await client.post('/api/login', { email, password, remember: true });
    await client.post('/api/two-factor-challenge', { recovery_code: 'nope' });
    assert.equal((await client.post('/api/two-factor-challenge', { recovery_code: codes[0] })).status, 204);
    track();
    await client.get('/api/user');
    await client.put('/api/user/profile-information', { name: 'Renamed' });
    await client.put('/api/user/password', {
      current_password: password,
      password: 'second-password',
      password_confirmation: 'second-password',
    });
    await client.post('/api/forgot-password', { email });
    const mail = await ctx().inbox.next(email);
    const token = /password-reset\/([0-9a-f]{64})/.exec(mail.text ?? '')![1]!;
    await client.post('/api/reset-password', {
      token: 'x'.repeat(64),
      email,
      password: 'third-password',
      password_confirmation: 'third-password',
    });
    assert.equal(
      (await client.post('/api/reset-password', { token, email, password: 'third-password', password_confirmation: 'third-password' }))
        .status,
      200,
    );
    await client.get('/api/user');
    await client.get('/docs/json');

    const [user] = await rows<{ password: string; two_factor_secret: string; two_factor_recovery_codes: string; remember_nonce: string }>(
      ctx().db,
      sql`select password, two_factor_secret, two_factor_recovery_codes, remember_nonce from users where email = ${email}`,
    );
    const stored = await rows<{ id_hash: string; csrf_token: string }>(ctx().db, sql`select id_hash, csrf_token from sessions`);
    const everywhere: [string, string][] = [
      ['password hash', user!.password],
      ['encrypted 2FA secret', user!.two_factor_secret],
      ['encrypted recovery codes', user!.two_factor_recovery_codes],
      ['remember nonce', user!.remember_nonce],
      ['reset token', token],
      ['plain password', password],
      ...[...sessionIds].filter((id) => id !== '').map((id): [string, string] => ['session id', id]),
      ...stored.map((row): [string, string] => ['session id hash', row.id_hash]),
    ];
    const bySecretEndpoints = (url: string) => url === '/api/user/two-factor-secret-key' || url === '/api/user/two-factor-qr-code';
    assert.ok(client.seen.length >= 25, String(client.seen.length));
    for (const { method, url, res } of client.seen) {
      const text = visible(res);
      for (const [what, value] of everywhere) assert.ok(!text.includes(value), `${what} in ${method} ${url}`);
      if (!bySecretEndpoints(url)) assert.ok(!text.includes(secretKey), `2FA secret in ${method} ${url}`);
      if (url !== '/api/user/two-factor-recovery-codes' || method !== 'GET') {
        for (const code of codes) assert.ok(!text.includes(code), `recovery code in ${method} ${url}`);
      }
    }
  });

  test('secrets are stored encrypted or hashed, never in the clear', async () => {
    const { client, password, email } = await ctx().player({ password: 'Distinctive-Pass-42' });
    await client.post('/api/user/confirm-password', { password });
    await client.post('/api/user/two-factor-authentication');
    const { secretKey } = (await client.get('/api/user/two-factor-secret-key')).json as { secretKey: string };
    const codes = (await client.get('/api/user/two-factor-recovery-codes')).json as string[];
    const [row] = await rows<Record<string, string>>(ctx().db, sql`select * from users where email = ${email}`);
    const dump = JSON.stringify(row);
    assert.ok(!dump.includes(secretKey));
    for (const code of codes) assert.ok(!dump.includes(code));
    assert.ok(!dump.includes(password));
    assert.match(row!.password!, /^\$argon2id\$/);
  });

  test('a wallet callback’s launch token, session token and signature, and the provider’s wallet secret, appear in no provider-bet view', async () => {
    const t = ctx();
    const { provider, game, player, launched, session } = await seat(t, demoDriver);
    const at = Math.floor(Date.now() / 1000);
    const sent: Sent[] = [];
    const call = async (made: KitCall) => {
      const answered = await send(t, demoDriver, provider, made, { at });
      assert.equal(answered.res.status, 200, answered.res.text);
      sent.push(answered);
      return answered;
    };
    const bet = (round: string, amount: bigint) =>
      call({ action: 'bet', token: session, transactionId: `${round}-bet`, roundId: round, game: game.code, amount });
    await bet('won', 1_000n);
    await call({ action: 'win', transactionId: 'won-win', betTransactionId: 'won-bet', roundId: 'won', amount: 2_000n, roundClosed: true });
    await bet('refunded', 500n);
    await call({ action: 'refund', transactionId: 'refunded-refund', betTransactionId: 'refunded-bet' });
    await bet('open', 300n);
    assert.equal((await bet('refused', 1_000_000n)).answer?.status, 'INSUFFICIENT_FUNDS');

    const admin = recording(t.app, await t.withRole('admin'));
    const own = recording(t.app, player);
    await own.get('/api/provider-bets');
    const rounds = ((await admin.get(`/api/admin/provider-bets?user_id=${player.id}`)).json as { data: { id: number }[] }).data;
    assert.equal(rounds.length, 3);
    await admin.get('/api/admin/provider-bets');
    for (const round of rounds) await admin.get(`/api/admin/provider-bets/${round.id}`);
    await admin.get(`/api/admin/providers/${provider.id}`);

    const secrets: [string, string][] = [
      ['launch token', launched.token],
      ['session token', session],
      ['wallet secret', provider.secret],
      ...sent.map(({ raw }): [string, string] => ['signature', signBody(provider.secret, raw, at).split('v1=')[1]!]),
    ];
    const seen = [...own.seen, ...admin.seen];
    assert.ok(seen.every(({ res }) => res.status === 200));
    assert.ok(
      seen.some(({ res }) => res.text.includes('"payload":{')),
      'the views showed the calls’ bodies',
    );
    for (const { method, url, res } of seen) {
      for (const [what, value] of secrets) assert.ok(!visible(res).includes(value), `${what} in ${method} ${url}`);
    }
  });
});
