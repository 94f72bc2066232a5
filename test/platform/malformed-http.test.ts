import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Every byte the server wrote before it closed the connection. */
  text: string;
}

/** Writes `bytes` to the server as they are and reads what comes back until the server closes. */
function sendRaw(port: number, bytes: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, text });
    });
    socket.end(bytes);
  });
}

describe('a request the HTTP parser refuses', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  const malformed: [string, string | Buffer][] = [
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n'],
    ['a header line without a colon', 'GET /api/user HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n'],
    ['a header name with a space', 'GET /api/user HTTP/1.1\r\nHost: localhost\r\nBad Name: 1\r\n\r\n'],
    ['a control character in a header value', 'GET /api/user HTTP/1.1\r\nHost: localhost\r\nX-Thing: a\u0001b\r\n\r\n'],
    ['a request line with a bare LF and a NUL', Buffer.from('GET /\u0000 HTTP/1.1\nHost: x\n\n', 'latin1')],
    [
      'Content-Length and Transfer-Encoding together',
      'POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'a chunk size that is not hexadecimal',
      'POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['an HTTP version that does not exist', 'GET /api/user HTTP/9.7\r\nHost: localhost\r\n\r\n'],
  ];
  for (const [what, bytes] of malformed) {
    test(`${what}: 400 {"message"} and the connection closes`, async () => {
      const res = await sendRaw(port, bytes);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(JSON.parse(res.body), { message: 'Malformed HTTP request.' });
      assert.match(res.headers['content-type'] ?? '', /^application\/json/);
      assert.equal(res.headers.connection, 'close');
    });
  }

  test('headers over the size limit: 431 {"message"}', async () => {
    const res = await sendRaw(port, `GET /api/user HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(res.status, 431, res.text);
    assert.deepEqual(JSON.parse(res.body), { message: 'The request headers are too large.' });
  });

  test('an HTTP/1.1 request without Host: 400 {"message"}; HTTP/1.0 needs none', async () => {
    const res = await sendRaw(port, 'GET /api/user HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(JSON.parse(res.body), { message: 'Malformed HTTP request.' });
    const old = await sendRaw(port, 'GET /api/user HTTP/1.0\r\n\r\n');
    assert.deepEqual([old.status, JSON.parse(old.body)], [401, { message: 'Unauthenticated.' }]);
  });

  test('an Expect the server cannot meet: 417 {"message"}; 100-continue goes on as usual', async () => {
    const res = await sendRaw(port, 'POST /api/login HTTP/1.1\r\nHost: localhost\r\nExpect: banana\r\nContent-Length: 2\r\n\r\n{}');
    assert.equal(res.status, 417, res.text);
    assert.deepEqual(JSON.parse(res.body), { message: 'Only "Expect: 100-continue" is supported.' });
    const go = await sendRaw(
      port,
      'POST /api/login HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    assert.match(go.text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 419 /);
  });

  test('a well-formed request on the same server still gets its usual answer', async () => {
    const res = await sendRaw(port, 'GET /api/nothing-here HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    assert.equal(res.status, 404);
    assert.deepEqual(JSON.parse(res.body), { message: 'Not found.' });
  });
});
