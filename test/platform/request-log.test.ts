import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';

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
});

describe('request log lines with LOG_FORMAT=pretty', () => {
  const log = capture();
  const ctx = useApp({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, { logStream: log.stream });

  test('are human lines (not JSON) that still carry the request id and user id, and still redact a token in the URL', async () => {
    const player = await ctx().player();
    await player.client.get('/api/user', { 'x-request-id': 'req-pretty-1' });
    await player.client.get('/games/demo/play?token=pretty-secret-launch-token', { 'x-request-id': 'req-pretty-2' });
    await settle();
    const text = log.lines.join('\n');
    assert.throws(() => JSON.parse(log.lines[0]!), 'a pretty line is not JSON');
    assert.match(text, /INFO.*request completed/);
    assert.match(text, /reqId: "req-pretty-1"/);
    assert.match(text, new RegExp(`userId: ${player.id}\\b`));
    assert.equal(text.includes('pretty-secret-launch-token'), false, 'the launch token reached the log');
    assert.match(text, /token=\[redacted\]/);
  });
});
