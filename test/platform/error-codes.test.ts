import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';

const lines: string[] = [];
const stream = new PassThrough();
stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));

/** The codes logged for the request with this id. */
function codesOf(requestId: string): string[] {
  return lines
    .map((line) => JSON.parse(line) as { reqId?: string; code?: string })
    .filter((entry) => entry.reqId === requestId && typeof entry.code === 'string')
    .map((entry) => entry.code!);
}

describe('error codes', () => {
  const ctx = useApp({ LOG_LEVEL: 'info' }, { logStream: stream });

  test('each refusal logs its stable code while the body keeps the Laravel shape', async () => {
    const client = ctx().client();
    const cases: { send: (id: string) => Promise<{ status: number; json: unknown }>; status: number; code: string; message: string }[] = [
      { send: (id) => client.get('/api/user', { 'x-request-id': id }), status: 401, code: 'unauthenticated', message: 'Unauthenticated.' },
      {
        send: (id) => client.post('/api/login', { email: 'a@example.com', password: 'x' }, { 'x-request-id': id }),
        status: 419,
        code: 'csrf_mismatch',
        message: 'CSRF token mismatch.',
      },
      {
        send: (id) => client.get('/pay/AAAAAAAAAAAAAAAAAAAAAAAA', { 'x-request-id': id }),
        status: 404,
        code: 'not_found',
        message: 'Not found.',
      },
    ];
    cases.push({
      send: (id) => client.post('/api/login', {}, { 'x-request-id': id }),
      status: 422,
      code: 'validation_failed',
      message: 'The email field is required. (and 1 more error)',
    });
    for (const [index, item] of cases.entries()) {
      const id = `codes-${index}`;
      // The last case needs a session: a validation failure comes only after the CSRF check.
      if (item.status === 422) await client.csrf();
      const res = await item.send(id);
      assert.equal(res.status, item.status);
      assert.deepEqual(Object.keys(res.json as object).sort(), item.status === 422 ? ['errors', 'message'] : ['message']);
      assert.equal((res.json as { message: string }).message, item.message);
      assert.deepEqual(codesOf(id), [item.code], `request ${id}`);
    }
  });
});
