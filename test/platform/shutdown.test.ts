import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

/** An app with a route that waits for the test's go-ahead, then uses the database. */
async function appWithSlowRoute(events: string[]): Promise<{ testApp: TestApp; url: string; started: Promise<void>; go: () => void }> {
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const testApp = await startApp(
    {},
    {
      extraRoutes: (app, ctx) => {
        app.get('/test/slow', { config: { stateless: true } }, async () => {
          markStarted();
          await gate;
          const row = await one<{ answer: number }>(ctx.db, sql`select 42 as answer`);
          events.push(`handler read ${row?.answer}`);
          return { answer: row?.answer };
        });
      },
    },
  );
  await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = testApp.app.server.address() as AddressInfo;
  return { testApp, url: `http://127.0.0.1:${port}`, started, go };
}

describe('graceful shutdown', () => {
  test('a shutdown lets a handler whose client went away finish its database work before closing', async () => {
    const events: string[] = [];
    const { testApp, url, started, go } = await appWithSlowRoute(events);
    const request = http.get(`${url}/test/slow`);
    request.on('error', () => {});
    await started;
    request.destroy();
    const closed = testApp.app.close().then(() => events.push('app closed'));
    setTimeout(go, 200);
    await closed;
    assert.deepEqual(events, ['handler read 42', 'app closed']);
    await testApp.close();
  });

  test('an answer given during shutdown closes its keep-alive connection instead of holding the shutdown', async () => {
    const events: string[] = [];
    const { testApp, url, started, go } = await appWithSlowRoute(events);
    const agent = new http.Agent({ keepAlive: true });
    const answer = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      http
        .get(`${url}/test/slow`, { agent }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
        })
        .on('error', reject);
    });
    await started;
    const closed = testApp.app.close().then(() => events.push('app closed'));
    setTimeout(go, 200);
    const res = await answer;
    assert.equal(res.status, 200);
    assert.equal(res.connection, 'close');
    assert.deepEqual(JSON.parse(res.body), { answer: 42 });
    // With the connection kept alive the close would wait for the 72-second keep-alive timeout.
    await closed;
    assert.deepEqual(events, ['handler read 42', 'app closed']);
    agent.destroy();
    await testApp.close();
  });
});
