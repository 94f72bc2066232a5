// Issue 11, resilience: the PostgreSQL database goes away under a money load — its connections
// terminated again and again, then refused altogether — and comes back, while one real
// `croupier serve` process keeps running.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, read, startInstance, stopInstance, type Answer, type Instance } from './instances.ts';
import { assertBooks, assertNothingHalfWritten, prepareWorkload, sharedEnv, type Operation } from './workload.ts';

const CONCURRENCY = 8;

type Phase = 'serving' | 'terminating' | 'refusing' | 'recovered';

interface Sent {
  op: Operation | undefined;
  what: string;
  /** The phase when the request left and when its answer came. */
  from: Phase;
  to: Phase;
  answer: Answer;
}

/** The shape (docs/api.md section 3) for a database that cannot be reached (section 3). */
function assertUnavailable(sent: Sent): void {
  const label = `${sent.what} sent while ${sent.from}: ${sent.answer.status} ${sent.answer.text}`;
  assert.equal(sent.answer.status, 503, label);
  assert.deepEqual(sent.answer.json, { message: 'Service Unavailable.' }, label);
  assert.ok(Number(sent.answer.retryAfter) > 0, `${label} carries Retry-After`);
}

/** Resolves once `condition` holds, checking after each answer of the load (no fixed sleep). */
class Progress {
  #waiters: { condition: () => boolean; resolve: () => void }[] = [];

  notify(): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.condition()) return true;
      waiter.resolve();
      return false;
    });
  }

  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ condition, resolve }));
  }
}

describe('a PostgreSQL database that goes away under load and comes back', { skip: backend !== 'postgres' && 'needs PostgreSQL' }, () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let server: pg.Client;
  let dataDir: string;
  let instance: Instance | undefined;
  let name = '';

  before(async () => {
    database = await freshDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    // Statements about the test database run from the server's maintenance database.
    const url = new URL(database.url!);
    name = url.pathname.slice(1);
    url.pathname = '/postgres';
    server = new pg.Client({ connectionString: url.toString() });
    await server.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'croupier-outage-'));
  });
  after(async () => {
    await stopInstance(instance);
    await server?.query(`alter database ${name} allow_connections true`).catch(() => undefined);
    await server?.end();
    await admin?.end().catch(() => undefined);
    await database?.drop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Ends every session on the test database, the app's and the test's own alike. */
  async function terminateAll(): Promise<number> {
    const { rows } = await server.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
      [name],
    );
    return rows[0]!.n;
  }

  /**
   * Refuses new connections and ends every one the database has, until none is left: a connection
   * that passed its start-up check just before the refusal (the app's listening connection comes
   * back 250 ms after each loss) shows in pg_stat_activity only a moment later, and a terminated
   * one stays there until its process has said goodbye to the client. Answers how many it ended.
   */
  async function refuseAll(): Promise<number> {
    await server.query(`alter database ${name} allow_connections false`);
    let ended = 0;
    for (let quiet = 0; quiet < 3;) {
      const { rows } = await server.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = $1`, [name]);
      if (rows[0]!.n > 0) {
        quiet = 0;
        ended += await terminateAll();
      } else {
        quiet += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return ended;
  }

  test(
    'while it is unreachable /ready and every request are 503 in the contract shape; nothing is half-written; it serves again by itself',
    { timeout: 300_000 },
    async (t) => {
      const appKey = randomBytes(32);
      instance = await startInstance(await freePort(), { DATABASE_URL: database.url!, DATA_DIR: dataDir, ...sharedEnv(appKey) });
      const running = instance;
      let exited = false;
      void running.exited.then(() => (exited = true));
      const workload = await prepareWorkload(admin, database.database.db, [running.url], appKey, {
        webhooks: 60,
        withdrawals: 60,
        bets: 60,
        confirms: 30,
      });
      const { ops } = workload;
      // The test's own connection goes with the others; it reconnects once the database is back.
      await admin.end();

      let phase: Phase = 'serving';
      const sent: Sent[] = [];
      const progress = new Progress();
      const send = async (what: string, op: Operation | undefined, call: () => Promise<Answer>): Promise<Sent> => {
        const from = phase;
        // The process must answer every request: one that does not is reported with its output.
        const answer = await call().catch((error: unknown) => {
          throw new Error(`${what} got no answer (${String(error)}); the server said:\n${running.output().slice(-4000)}`);
        });
        const record = { op, what, from, to: phase, answer };
        sent.push(record);
        progress.notify();
        return record;
      };
      const player = workload.players[0]!;
      const probe = async () => [
        await send('GET /ready', undefined, () => fetchAnswer(`${running.url}/ready`)),
        await send('GET /api/user', undefined, () => player.browser.call(running.url, 'GET', '/api/user')),
        await send('GET /api/user/balance', undefined, () => player.browser.call(running.url, 'GET', '/api/user/balance')),
      ];

      // Gates: the first 40 % of the operations meet the terminations, the next 30 % the refused
      // connections, the rest the recovered database.
      const refusingFrom = Math.floor((ops.length * 2) / 5);
      const recoveredFrom = Math.floor((ops.length * 7) / 10);
      let markRefusing!: () => void;
      let markRecovered!: () => void;
      const refusing = new Promise<void>((resolve) => (markRefusing = resolve));
      const recovered = new Promise<void>((resolve) => (markRecovered = resolve));
      let next = 0;
      const worker = async () => {
        for (;;) {
          const index = next++;
          if (index >= ops.length) return;
          if (index >= refusingFrom) await refusing;
          if (index >= recoveredFrom) await recovered;
          const op = ops[index]!;
          op.attempts += 1;
          const { answer } = await send(op.kind, op, () => op.send(running.url));
          op.outcome = op.read(answer, false);
        }
      };
      const load = Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const answered = () => sent.filter((s) => s.op !== undefined).length;
      // A load that fails (or ends) before the condition holds ends the wait instead of hanging it.
      const until = (condition: () => boolean) =>
        Promise.race([progress.until(condition), load.then(() => assert.ok(condition(), 'the load ended before the outage was over'))]);

      // Connections terminated under running requests, three times.
      await until(() => answered() >= ops.length / 10);
      phase = 'terminating';
      let terminated = 0;
      for (let round = 1; round <= 3; round++) {
        terminated += await terminateAll();
        await until(() => answered() >= (ops.length * (1 + round)) / 10);
      }

      // Then no connection at all: the database refuses new ones and loses the ones it had.
      terminated += await refuseAll();
      // A session is served from memory while the instance's invalidation bus is live (the cache
      // can miss nothing then), and the instance learns that its listening connection is gone
      // when it reads the termination: on a loaded machine that can come after the database has
      // none left. Wait (bounded) until the signed-in user is no longer served; an instance that
      // never noticed fails the probes below.
      const noticeBy = Date.now() + 10_000;
      while (Date.now() < noticeBy && (await player.browser.call(running.url, 'GET', '/api/user')).status === 200) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      phase = 'refusing';
      const duringOutage = await probe();
      markRefusing();
      await until(() => answered() >= recoveredFrom);
      duringOutage.push(...(await probe()));

      // Back: nothing restarts; the pool connects again on the next request.
      await server.query(`alter database ${name} allow_connections true`);
      const readyAgain = await waitForReady(running.url);
      phase = 'recovered';
      markRecovered();
      await load;
      const afterOutage = await probe();

      // What the client saw.
      assert.equal(exited, false, 'the process never stopped');
      const statuses = sent.map((s) => s.answer.status);
      assert.equal(statuses.filter((status) => status >= 500 && status !== 503).length, 0, `no 5xx but 503: ${statuses.join(',')}`);
      for (const s of sent.filter((s) => s.answer.status === 503)) assertUnavailable(s);
      const outage = sent.filter((s) => s.from === 'refusing' && s.to === 'refusing');
      const outageOps = outage.filter((s) => s.op !== undefined).length;
      assert.ok(outageOps >= recoveredFrom - refusingFrom, 'the load kept coming during the outage');
      for (const s of [...outage, ...duringOutage]) assertUnavailable(s);
      for (const s of afterOutage) assert.equal(s.answer.status, 200, `${s.what} after the outage: ${s.answer.text}`);
      for (const s of sent.filter((s) => s.from === 'recovered' && s.op !== undefined)) {
        assert.equal(s.op!.outcome, s.op!.expected, `${s.what} after the outage: ${s.answer.status} ${s.answer.text}`);
      }
      const interrupted = sent.filter((s) => s.from === 'terminating' && s.answer.status === 503).length;

      // What the database holds, before anyone retries: every record with its line or neither.
      admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await assertNothingHalfWritten(admin);

      // The client resends what was answered 503, as the contract's Retry-After invites it to.
      const unanswered = ops.filter((op) => op.outcome === undefined);
      for (const op of unanswered) {
        op.attempts += 1;
        const answer = await op.send(running.url);
        op.outcome = op.read(answer, true);
        assert.notEqual(op.outcome, undefined, `${op.kind} resent after the outage: ${answer.status} ${answer.text}`);
      }
      const { lines, report } = await assertBooks(admin, database.database.db, workload);

      for (const line of [
        `operations: ${ops.length}; answered 503: ${interrupted} while connections were being terminated (${terminated} sessions ended), ${outageOps} while connections were refused (and ${outage.length - outageOps} probes of /ready and reads)`,
        `resent after recovery: ${unanswered.length}; /ready answered 200 again after ${readyAgain} probe(s) without a restart`,
        `ledger lines: ${lines}, ledger:verify clean over ${report.balances} balances`,
      ]) {
        t.diagnostic(line);
      }
    },
  );
});

async function fetchAnswer(url: string): Promise<Answer> {
  return read(await fetch(url, { signal: AbortSignal.timeout(30_000) }));
}

/** Probes /ready until it answers 200; answers how many probes it took. */
async function waitForReady(url: string): Promise<number> {
  for (let probes = 1; ; probes++) {
    const res = await fetchAnswer(`${url}/ready`);
    if (res.status === 200) return probes;
    assert.ok(probes < 200, `/ready still answers ${res.status} after the database came back`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
