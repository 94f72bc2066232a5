import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { createGame, createProvider, launch } from '../games/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';

function capture(): { stream: PassThrough; lines: string[] } {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  return { stream, lines };
}

/** Log writes may land a tick after the reply. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('request log lines (JSON)', () => {
  const log = capture();
  const ctx = useApp({ LOG_LEVEL: 'info' }, { logStream: log.stream });

  test('a signed-in request is logged with its request id and, from the sign-in check on, the user id', async () => {
    const player = await ctx().player();
    const res = await player.client.get('/api/user', { 'x-request-id': 'req-signed-in-1' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-request-id'], 'req-signed-in-1');
    await settle();
    const mine = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.reqId === 'req-signed-in-1');
    const completed = mine.find((line) => line.msg === 'request completed');
    assert.ok(completed !== undefined, log.lines.join('\n'));
    assert.equal(completed.userId, player.id);
    assert.equal(completed.level, 30);
  });

  test('signing in names the user in the rest of that request, and a guest request names none', async () => {
    const player = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    const login = await client.post('/api/login', { email: player.email, password: player.password }, { 'x-request-id': 'req-login-1' });
    assert.equal(login.status, 200, login.text);
    // The next request on that session is named by the sign-in check.
    await client.get('/api/topup-options', { 'x-request-id': 'req-after-login-1' });
    const guest = await ctx().client().get('/api/csrf-cookie', { 'x-request-id': 'req-guest-2' });
    assert.equal(guest.status, 204);
    await settle();
    const parsed = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = (id: string) => parsed.find((line) => line.reqId === id && line.msg === 'request completed');
    assert.equal(completed('req-login-1')?.userId, player.id);
    assert.equal(completed('req-after-login-1')?.userId, player.id);
    assert.ok(completed('req-guest-2') !== undefined);
    assert.equal('userId' in completed('req-guest-2')!, false);
  });
  test('every line is one JSON object, and each line of a request carries its id', async () => {
    const player = await ctx().player();
    await player.client.get('/api/user', { 'x-request-id': 'req-json-lines-1' });
    await settle();
    const parsed = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const mine = parsed.filter((line) => JSON.stringify(line).includes('req-json-lines-1'));
    assert.deepEqual(
      mine.map((line) => [line.reqId, line.msg]),
      [
        ['req-json-lines-1', 'incoming request'],
        ['req-json-lines-1', 'request completed'],
      ],
    );
  });

  test('a 422 is logged with the names of the fields that failed, never their values', async () => {
    const client = ctx().client();
    await client.csrf();
    const email = 'Not-An-Email-Value-7731';
    const password = 'Secret-Short';
    const res = await client.post(
      '/api/register',
      { name: 'N', email, password, password_confirmation: 'Other-Confirmation-Value' },
      { 'x-request-id': 'req-invalid-1' },
    );
    assert.equal(res.status, 422);
    await settle();
    const refused = log.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.reqId === 'req-invalid-1' && line.msg === 'request refused');
    assert.ok(refused !== undefined, log.lines.join('\n'));
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.fields, Object.keys((res.json as { errors: Record<string, unknown> }).errors));
    assert.ok(refused.fields.includes('email'));
    const mine = log.lines.filter((line) => line.includes('req-invalid-1')).join('\n');
    for (const value of [email, password, 'Other-Confirmation-Value']) assert.ok(!mine.includes(value), `${value} reached the log`);
  });

  test("the demo game's wallet calls are logged under the request id of the spin that made them", async () => {
    const t = ctx();
    const provider = await createProvider(t, { adapter: 'demo' });
    const game = await createGame(t, provider.id);
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const client = ctx().client();
    const opened = await client.post('/games/demo/open', { token: launched.token }, { 'x-request-id': 'req-demo-open-1' });
    assert.equal(opened.status, 200, opened.text);
    const session = (opened.json as { session: string }).session;
    const spun = await client.post('/games/demo/spin', { session, stake: 1 }, { 'x-request-id': 'req-demo-spin-1' });
    assert.equal((spun.json as { status: string }).status, 'OK', spun.text);
    await settle();
    const parsed = log.lines.map((line) => JSON.parse(line) as { reqId?: string; msg?: string; req?: { url?: string } });
    const urls = (id: string) => parsed.filter((line) => line.reqId === id && line.msg === 'incoming request').map((line) => line.req?.url);
    assert.deepEqual(urls('req-demo-open-1'), ['/games/demo/open', `/api/providers/${provider.id}/wallet/balance`]);
    assert.deepEqual(urls('req-demo-spin-1'), [
      '/games/demo/spin',
      `/api/providers/${provider.id}/wallet/bet`,
      `/api/providers/${provider.id}/wallet/win`,
    ]);
  });
});

describe('request log lines with LOG_FORMAT=pretty', () => {
  const log = capture();
  const ctx = useApp({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, { logStream: log.stream });

  test('are human lines (not JSON), two for an ordinary request, that still carry the request id and user id, and redact a token in the URL', async () => {
    const player = await ctx().player();
    await player.client.get('/api/user', { 'x-request-id': 'req-pretty-1' });
    await player.client.get('/games/demo/play?token=pretty-secret-launch-token', { 'x-request-id': 'req-pretty-2' });
    await settle();
    const text = log.lines.join('\n');
    assert.throws(() => JSON.parse(log.lines[0]!), 'a pretty line is not JSON');
    const first = log.lines.filter((line) => line.includes('req-pretty-1'));
    assert.equal(first.length, 2, text);
    assert.match(first[0]!, /INFO: incoming request GET \/api\/user \{"reqId":"req-pretty-1"\}$/);
    assert.match(first[1]!, new RegExp(`INFO: request completed 200 in \\d+\\.\\d ms \\{"reqId":"req-pretty-1","userId":${player.id}\\}$`));
    assert.equal(text.includes('pretty-secret-launch-token'), false, 'the launch token reached the log');
    assert.match(text, /token=\[redacted\]/);
  });
});
