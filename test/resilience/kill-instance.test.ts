// Issue 11, resilience: two `croupier serve` processes on one PostgreSQL database and one Redis
// take a mixed money load; one is killed with SIGKILL in the middle and started again, and the
// client resends everything it did not see answered, as a load balancer's client would.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { answersOn, freePort, startInstance, stopInstance, type Answer, type Instance } from './instances.ts';
import { assertBooks, prepareWorkload, sharedEnv, type Operation } from './workload.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/8';
/** Operations in flight at once, across both instances. */
const CONCURRENCY = 12;

const skip =
  backend !== 'postgres'
    ? 'needs PostgreSQL: two processes share one database'
    : !(await answersOn(6379)) && 'Redis is not running on 127.0.0.1:6379';

interface Slot {
  name: string;
  instance: Instance;
  /**
   * Whether the client routes new requests to it: as a load balancer does, it learns of the
   * death from the first request that fails there, and routes there again once it is ready.
   */
  up: boolean;
  inFlight: number;
  answered: number;
}

describe('two instances on PostgreSQL and Redis, one killed with SIGKILL under a money load', { skip }, () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let dataDir: string;
  const slots: Slot[] = [];

  before(async () => {
    database = await freshDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'croupier-kill-'));
  });
  after(async () => {
    for (const slot of slots) await stopInstance(slot.instance);
    await admin?.end();
    await database?.drop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  test(
    'every operation the client saw succeed is in the ledger once, none it saw refused moved money, and the ledger verifies',
    { timeout: 300_000 },
    async (t) => {
      const appKey = randomBytes(32);
      const env = { DATABASE_URL: database.url!, REDIS_URL, DATA_DIR: dataDir, ...sharedEnv(appKey) };
      const ports = [await freePort(), await freePort()];
      const [first, second] = await Promise.all(ports.map((port) => startInstance(port, env)));
      slots.push(
        { name: 'A', instance: first!, up: true, inFlight: 0, answered: 0 },
        { name: 'B', instance: second!, up: true, inFlight: 0, answered: 0 },
      );
      const [a, b] = slots as [Slot, Slot];

      const workload = await prepareWorkload(
        admin,
        database.database.db,
        slots.map((slot) => slot.instance.url),
        appKey,
        { webhooks: 100, withdrawals: 100, bets: 100, confirms: 40 },
      );
      const { ops } = workload;

      // The load: the first 60 % with the kill at about a third, the rest once the instance is back.
      const killAt = Math.floor(ops.length / 3);
      const phaseTwo = Math.floor((ops.length * 3) / 5);
      let next = 0;
      let rotation = 0;
      let attempts = 0;
      let unanswered = 0;
      let inFlightAtKill = -1;
      let killedAt = new Date(0);
      let answeredByRestarted = 0;
      const serverErrors: string[] = [];
      let markRestarted!: () => void;
      let failRestart!: (error: unknown) => void;
      const restarted = new Promise<void>((resolve, reject) => {
        markRestarted = resolve;
        failRestart = reject;
      });
      // Failures surface where it is awaited; until then it must not count as unhandled.
      restarted.catch(() => undefined);

      const kill = () => {
        inFlightAtKill = b.inFlight;
        killedAt = new Date();
        process.kill(b.instance.pid, 'SIGKILL');
        void (async () => {
          const signal = await b.instance.exited;
          assert.equal(signal, 'SIGKILL');
          b.instance = await startInstance(ports[1]!, env);
          b.up = true;
          markRestarted();
        })().catch(failRestart);
      };

      const pick = (): Slot => {
        const live = slots.filter((slot) => slot.up);
        return live[rotation++ % live.length]!;
      };

      const settle = async (op: Operation) => {
        while (op.outcome === undefined) {
          assert.ok(op.attempts < 50, `${op.kind} for user ${op.userId} got no answer in 50 attempts`);
          const slot = pick();
          const instance = slot.instance;
          op.attempts += 1;
          attempts += 1;
          slot.inFlight += 1;
          let answer: Answer | undefined;
          try {
            answer = await op.send(instance.url);
          } catch {
            // The connection died with the process (or never opened): resend.
            unanswered += 1;
            if (slot === b && instance === second && b.instance === second) b.up = false;
          } finally {
            slot.inFlight -= 1;
          }
          if (answer === undefined) continue;
          if (answer.status >= 500) serverErrors.push(`${op.kind}: ${answer.status} ${answer.text}`);
          const outcome = op.read(answer, op.attempts > 1);
          if (outcome === undefined) continue;
          op.outcome = outcome;
          slot.answered += 1;
          if (slot === b && instance !== second) answeredByRestarted += 1;
        }
      };

      const worker = async () => {
        for (;;) {
          const index = next++;
          if (index >= ops.length) return;
          if (inFlightAtKill < 0 && index >= killAt && (b.inFlight >= 2 || index >= phaseTwo)) kill();
          if (index >= phaseTwo) await restarted;
          await settle(ops[index]!);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      // What the client saw.
      assert.deepEqual(serverErrors, [], 'no answer is a 5xx');
      const resent = ops.filter((op) => op.attempts > 1);
      assert.ok(inFlightAtKill > 0, 'the kill caught requests in flight');
      assert.ok(resent.length > 0, 'some operations went unanswered and were resent');
      assert.ok(answeredByRestarted > 0, 'the restarted instance served again');
      // What the database holds.
      const { lines, report } = await assertBooks(admin, database.database.db, workload);
      const succeeded = ops.filter((op) => op.outcome === 'success');

      // A resent operation whose line is dated before the kill had been applied by the killed
      // instance without the client hearing of it: the case the resend must not double.
      const early = await admin.query<{ n: number }>(
        'select count(*)::int as n from ledger_entries where idempotency_key = any($1) and created_at < $2',
        [resent.filter((op) => op.ledgerKey !== undefined).map((op) => op.ledgerKey!), killedAt],
      );

      const figures = [
        `operations sent: ${ops.length} (${succeeded.length} acknowledged as done, ${ops.length - succeeded.length} refused as built to be)`,
        `requests: ${attempts} (${unanswered} unanswered, ${resent.length} operations resent, ${inFlightAtKill} in flight on the killed instance)`,
        `resent operations the killed instance had already applied: ${early.rows[0]!.n}`,
        `answered by A: ${a.answered}, by B: ${b.answered} (${answeredByRestarted} after its restart)`,
        `ledger lines: ${lines} (${workload.fundingLines} funding + ${succeeded.length} from the load), ledger:verify clean over ${report.balances} balances`,
      ];
      for (const line of figures) t.diagnostic(line);
    },
  );
});
