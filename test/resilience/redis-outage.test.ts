// Issue 18, production hardening: the Redis that holds the sessions and rate limits goes away
// (killed, then paused as behind a network partition) under real `croupier serve` processes, and
// comes back without its data.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { Browser, freePort, postRaw, read, registerPlayer, startInstance, stopInstance, type Answer, type Instance } from './instances.ts';
import { RedisServer, redisServerInstalled } from './redis-server.ts';
import { sandboxSignature } from '../../src/modules/payments/gateways/sandbox.ts';
import { SANDBOX_SECRET, sharedEnv } from './workload.ts';

/** What the issue demands of every request a lost Redis refuses. */
const ANSWER_WITHIN_MS = 2000;
const PASSWORD = 'a long enough password';

interface Timed {
  what: string;
  answer: Answer;
  ms: number;
}

async function timed(what: string, call: () => Promise<Answer>): Promise<Timed> {
  const started = performance.now();
  const answer = await call();
  return { what, answer, ms: performance.now() - started };
}

function label(t: Timed): string {
  return `${t.what}: ${t.answer.status} ${t.answer.text} after ${Math.round(t.ms)} ms`;
}

/** Every answer that is not the 503 of docs/api.md section 3 within the bound, each described. */
function notUnavailable(answers: Timed[]): string[] {
  return answers
    .filter(
      (t) =>
        t.answer.status !== 503 ||
        JSON.stringify(t.answer.json) !== '{"message":"Service Unavailable."}' ||
        !(Number(t.answer.retryAfter) > 0) ||
        t.ms >= ANSWER_WITHIN_MS,
    )
    .map((t) => `${label(t)}, Retry-After ${t.answer.retryAfter}`);
}

function get(url: string, path: string): Promise<Answer> {
  return fetch(url + path, { signal: AbortSignal.timeout(30_000) }).then(read);
}

/** A PIX top-up started by the player and paid by the sandbox gateway's signed webhook. */
async function startTopup(browser: Browser, url: string, amount: number): Promise<string> {
  const res = await browser.call(url, 'POST', '/api/topups', { payment_method_id: 1, amount });
  assert.equal(res.status, 201, `top-up: ${res.text}`);
  return (res.json as { data: { gateway_payment_id: string } }).data.gateway_payment_id;
}

function payTopup(url: string, paymentId: string, amount: number): Promise<Answer> {
  const raw = JSON.stringify({ payment_id: paymentId, status: 'paid', amount });
  return postRaw(`${url}/api/webhooks/payments/sandbox`, raw, {
    'x-signature': sandboxSignature(SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
  });
}

function withdraw(browser: Browser, url: string, key: string): Promise<Answer> {
  const body = { payee_name: 'Maria Silva', account_type: 'CPF', payee_account: '12345678909', amount: 10 };
  return browser.call(url, 'POST', '/api/withdrawals', body, { 'idempotency-key': key });
}

async function balance(browser: Browser, url: string): Promise<number> {
  const res = await browser.call(url, 'GET', '/api/user/balance');
  assert.equal(res.status, 200, `balance: ${res.text}`);
  return (res.json as { data: { amount: number } }).data.amount;
}

/** Polls /ready until it answers 200; answers how long that took. */
async function readyAgain(url: string, since: number): Promise<number> {
  for (;;) {
    const res = await get(url, '/ready');
    if (res.status === 200) return performance.now() - since;
    // A guard against a hang, not a bound: the figure is printed.
    assert.ok(performance.now() - since < 60_000, `/ready still answers ${res.status} a minute after Redis came back`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const skip = !redisServerInstalled() && 'redis-server is not installed';

describe('a Redis that goes away under running instances and comes back empty', { skip }, () => {
  let database: TestDatabase | undefined;
  const dataDirs: string[] = [];
  const instances: Instance[] = [];
  let redis: RedisServer;

  before(async () => {
    redis = new RedisServer(await freePort());
    await redis.start();
    // PostgreSQL: two instances on one database. The embedded database belongs to one process,
    // so there one instance keeps it in its own DATA_DIR.
    if (backend === 'postgres') database = await freshDatabase();
  });
  after(async () => {
    for (const instance of instances) await stopInstance(instance);
    redis?.resume();
    await redis?.kill();
    await database?.drop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  test(
    'while it is gone session requests and /ready answer 503 with Retry-After within 2 s, nothing answers 500, and it all serves again by itself',
    { timeout: 300_000 },
    async (t) => {
      const appKey = randomBytes(32);
      const count = database === undefined ? 1 : 2;
      for (let i = 0; i < count; i++) {
        const dataDir = mkdtempSync(join(tmpdir(), 'croupier-redis-outage-'));
        dataDirs.push(dataDir);
        const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, ...sharedEnv(appKey), ...(database ? { DATABASE_URL: database.url! } : {}) };
        instances.push(await startInstance(await freePort(), env));
      }
      const urls = instances.map((instance) => instance.url);
      const [first] = urls as [string];
      const last = urls.at(-1)!;

      // A player with money, a top-up waiting for its payment and a guest about to sign in.
      const email = `redis-${randomBytes(4).toString('hex')}@example.com`;
      const { browser } = await registerPlayer(first, email);
      assert.equal((await payTopup(first, await startTopup(browser, first, 100), 100)).status, 200);
      const pending = await startTopup(browser, last, 50);
      assert.equal((await browser.call(last, 'GET', '/api/user')).status, 200, 'the session works on every instance');
      const guest = new Browser();
      assert.equal((await guest.call(last, 'GET', '/api/csrf-cookie')).status, 204);
      const remembered = new Browser();
      await remembered.call(first, 'GET', '/api/csrf-cookie');
      const rememberMe = await remembered.call(first, 'POST', '/api/login', { email, password: PASSWORD, remember: true });
      assert.equal(rememberMe.status, 200, rememberMe.text);

      // Killed: connections reset, every session and counter gone with it.
      await redis.kill();
      const refused: Timed[] = [];
      const others: Timed[] = [];
      for (const url of urls) {
        const fresh = new Browser();
        refused.push(
          await timed('GET /ready', () => get(url, '/ready')),
          await timed('GET /api/user', () => browser.call(url, 'GET', '/api/user')),
          await timed('GET /api/user/balance', () => browser.call(url, 'GET', '/api/user/balance')),
          await timed('POST /api/withdrawals', () => withdraw(browser, url, `outage-${url}`)),
          await timed('POST /api/topups', () => browser.call(url, 'POST', '/api/topups', { payment_method_id: 1, amount: 20 })),
          await timed('GET /api/csrf-cookie (new visitor)', () => fresh.call(url, 'GET', '/api/csrf-cookie')),
          await timed('GET /api/csrf-cookie (signed in)', () => browser.call(url, 'GET', '/api/csrf-cookie')),
          await timed('POST /api/login (guest session)', () => guest.call(url, 'POST', '/api/login', { email, password: PASSWORD })),
          await timed('POST /api/logout', () => browser.call(url, 'POST', '/api/logout')),
        );
        others.push(await timed('GET /health', () => get(url, '/health')));
      }
      // What needs no session does not need Redis: the gateway's payment is taken.
      others.push(await timed('POST /api/webhooks/payments/sandbox', () => payTopup(last, pending, 50)));
      assert.deepEqual(notUnavailable(refused), [], `503 with Retry-After within ${ANSWER_WITHIN_MS} ms`);
      for (const r of others) assert.equal(r.answer.status, 200, label(r));

      // Back on the same port, empty: each instance reconnects by itself.
      await redis.start();
      const back = performance.now();
      const recovery = await Promise.all(urls.map((url) => readyAgain(url, back)));
      const lost = await browser.call(first, 'GET', '/api/user');
      assert.equal(lost.status, 401, `the session died with the Redis that held it: ${lost.text}`);
      const revived = await remembered.call(last, 'GET', '/api/user');
      assert.equal(revived.status, 200, `a remember-me cookie (kept in the database) signs in again: ${revived.text}`);
      const player = new Browser();
      assert.equal((await player.call(last, 'GET', '/api/csrf-cookie')).status, 204);
      const login = await player.call(last, 'POST', '/api/login', { email, password: PASSWORD });
      assert.equal(login.status, 200, `sign-in after the outage: ${login.text}`);
      for (const url of urls) assert.equal((await player.call(url, 'GET', '/api/user')).status, 200, 'signed in everywhere');
      assert.equal(await balance(player, first), 150, 'the top-up and the payment taken during the outage');
      const withdrawal = await withdraw(player, first, 'after-the-outage');
      assert.equal(withdrawal.status, 201, `withdrawal after the outage: ${withdrawal.text}`);
      await payTopup(first, await startTopup(player, last, 30), 30);
      assert.equal(await balance(player, last), 170);

      // Paused: the connections stay open and nothing answers. A session still in an instance's
      // memory may be answered until the instance notices; then everything is refused as above.
      await player.call(first, 'GET', '/api/user');
      redis.pause();
      const paused = performance.now();
      // Sent at once: each waits on a connection that Redis no longer answers, until it is given
      // up; meanwhile the player's session, in the instance's memory, is asked for again and again.
      let servedFor = 0;
      const pollSession = async () => {
        const polled: Timed[] = [];
        for (;;) {
          const r = await timed('GET /api/user (paused)', () => player.call(first, 'GET', '/api/user'));
          polled.push(r);
          assert.ok([200, 503].includes(r.answer.status), label(r));
          if (r.answer.status === 503) return polled;
          servedFor = performance.now() - paused;
          assert.ok(servedFor < 60_000, 'a paused Redis is noticed');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const [polled, ...stuck] = await Promise.all([
        pollSession(),
        ...urls.flatMap((url) => [
          timed('GET /ready (paused)', () => get(url, '/ready')),
          timed('GET /api/csrf-cookie (paused, new visitor)', () => new Browser().call(url, 'GET', '/api/csrf-cookie')),
        ]),
      ]);
      const refusedPaused: Timed[] = [];
      for (const url of urls) {
        refusedPaused.push(
          await timed('GET /ready (paused)', () => get(url, '/ready')),
          await timed('GET /api/user (paused)', () => player.call(url, 'GET', '/api/user')),
          await timed('POST /api/withdrawals (paused)', () => withdraw(player, url, `paused-${url}`)),
          await timed('GET /api/csrf-cookie (paused)', () => new Browser().call(url, 'GET', '/api/csrf-cookie')),
        );
      }
      assert.deepEqual(notUnavailable([...stuck, ...polled.filter((p) => p.answer.status === 503), ...refusedPaused]), []);
      for (const r of polled) assert.ok(r.ms < ANSWER_WITHIN_MS, label(r));
      redis.resume();
      const resumed = performance.now();
      const recoveryPaused = await Promise.all(urls.map((url) => readyAgain(url, resumed)));
      assert.equal((await player.call(last, 'GET', '/api/user')).status, 200, 'a paused Redis keeps its sessions');
      assert.equal((await withdraw(player, last, 'after-the-pause')).status, 201);
      assert.equal(await balance(player, first), 160);

      // Stopped while Redis is gone: it drains and exits cleanly, not waiting on Redis.
      await redis.kill();
      for (const instance of instances) {
        instance.kill('SIGTERM');
        const guard = setTimeout(() => instance.kill('SIGKILL'), 20_000);
        assert.equal(await instance.exited, '0', `exit code of an instance stopped without Redis:\n${instance.output().slice(-2000)}`);
        clearTimeout(guard);
      }
      for (const instance of instances) assert.doesNotMatch(instance.output(), /"level":50[^\n]*unhandled error/, 'no unhandled error');
      const max = (list: Timed[]) => Math.round(Math.max(...list.map((r) => r.ms)));
      for (const line of [
        `${count} instance(s) on ${backend}`,
        `killed: ${refused.length} refusals, all 503, the slowest after ${max(refused)} ms; /ready 200 again ${recovery.map(Math.round).join(', ')} ms after Redis was back`,
        `paused: requests waiting on it refused after ${max(stuck)} ms at most; sessions in memory served for ${Math.round(servedFor)} ms (${polled.length - 1} answers), then ${refusedPaused.length} refusals, the slowest after ${max([...polled, ...refusedPaused])} ms; /ready 200 again ${recoveryPaused.map(Math.round).join(', ')} ms after it resumed`,
      ]) {
        t.diagnostic(line);
      }
    },
  );
});
