// Issue 40, contract section 19: croupier on a real pg_auto_failover formation (monitor, primary,
// two synchronous-quorum standbys) given the formation as a multi-host DATABASE_URL, under a
// money load through a planned switchover and then the loss of the primary's machine. One
// formation for the file: the scenarios run one after the other on it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import type pg from 'pg';
import { openDatabase, type Database } from '../../src/platform/db/client.ts';
import { connectSession } from '../../src/platform/db/primary.ts';
import { backend } from '../helpers/database.ts';
import { run } from '../helpers/cli.ts';
import { Formation, formationUnavailable, type FormationNode } from './formation.ts';
import { freePort, startInstance, stopInstance, type Answer, type Instance } from './instances.ts';
import { assertBooks, prepareWorkload, sharedEnv, type Operation, type Workload } from './workload.ts';

const skip = backend !== 'postgres' ? 'needs PostgreSQL' : formationUnavailable();
/** Operations in flight at once. */
const CONCURRENCY = 6;
/** The contract's bound on any answer during the gap. */
const ANSWER_BOUND_MS = 10_000;
/** The contract's bound from a new primary accepting writes to croupier writing again. */
const RESUME_BOUND_MS = 5_000;

interface Run {
  serverErrors: string[];
  slow: string[];
  unavailable: number;
  withoutRetryAfter: number;
  resent: number;
  /** When each answered success came back (ms since epoch). */
  successes: number[];
}

/** Sends every operation, resending each until its outcome is known, `event` fired once a third is done. */
async function drive(url: string, ops: Operation[], event: () => Promise<void>): Promise<Run> {
  const result: Run = { serverErrors: [], slow: [], unavailable: 0, withoutRetryAfter: 0, resent: 0, successes: [] };
  let next = 0;
  let fired: Promise<void> | undefined;
  const trigger = Math.floor(ops.length / 3);
  const settle = async (op: Operation) => {
    while (op.outcome === undefined) {
      assert.ok(op.attempts < 400, `${op.kind} for user ${op.userId} got no answer in 400 attempts`);
      op.attempts += 1;
      const started = Date.now();
      let answer: Answer;
      try {
        answer = await op.send(url);
      } catch (error) {
        result.slow.push(`${op.kind}: no answer (${String(error)})`);
        continue;
      }
      const took = Date.now() - started;
      if (took > ANSWER_BOUND_MS) result.slow.push(`${op.kind}: ${answer.status} after ${took} ms`);
      if (answer.status === 503) {
        result.unavailable += 1;
        if (answer.retryAfter === null) result.withoutRetryAfter += 1;
        // As a client told Retry-After would, if sooner: the gap is short.
        await new Promise((resolve) => setTimeout(resolve, 100));
      } else if (answer.status >= 500) result.serverErrors.push(`${op.kind}: ${answer.status} ${answer.text}`);
      const outcome = op.read(answer, op.attempts > 1);
      if (outcome === undefined) continue;
      op.outcome = outcome;
      if (answer.status < 300) result.successes.push(Date.now());
    }
    if (op.attempts > 1) result.resent += 1;
  };
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= ops.length) return;
      if (index >= trigger && fired === undefined) fired = event();
      await settle(ops[index]!);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await fired;
  return result;
}

/** The long-held sessions that must follow the primary, as pg_stat_activity names them (docs/production.md). */
const FOLLOWERS = [
  'croupier: cache invalidation',
  'croupier leader: croupier:draw-scheduler',
  'croupier leader: croupier:payout-reconciler',
];

/**
 * Waits until the LISTEN connection and the leader locks of the scheduler and the payout
 * reconciler are on `node` (each lock held there), and answers what is missing after 30 s.
 */
async function followersOn(formation: Formation, node: FormationNode): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = await connectSession(formation.nodeUrl(node), 'failover test');
    let present: string[];
    try {
      const { rows } = await client.query<{ name: string }>(
        `select distinct a.application_name as name from pg_stat_activity a
          where a.application_name = 'croupier: cache invalidation'
             or (a.application_name like 'croupier leader: %'
                 and exists (select 1 from pg_locks l where l.pid = a.pid and l.locktype = 'advisory' and l.granted))`,
      );
      present = rows.map((row) => row.name);
    } finally {
      await client.end();
    }
    const missing = FOLLOWERS.filter((name) => !present.includes(name));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Polls the nodes directly from `since` until one other than `old` commits a write: the moment
 * the new primary accepts writes (after its promotion, once a standby follows it).
 */
async function promotion(formation: Formation, old: FormationNode, since: number): Promise<{ node: FormationNode; at: number }> {
  for (;;) {
    const node = await formation.writableNode();
    if (node !== undefined && node !== old && (await formation.acceptsWrites(node))) return { node, at: Date.now() };
    assert.ok(Date.now() - since < 120_000, 'a standby was promoted within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe(
  'croupier on a pg_auto_failover formation, through a switchover and the loss of the primary (contract section 19)',
  { skip },
  () => {
    let formation: Formation;
    let dataDir: string;
    let instance: Instance | undefined;
    let database: Database;
    let appKey: Buffer;
    let env: Record<string, string>;
    let workload: Workload;
    let admin: pg.Client;

    before(async () => {
      const started = Date.now();
      formation = await Formation.create();
      const built = Date.now() - started;
      dataDir = mkdtempSync(join(tmpdir(), 'croupier-failover-'));
      appKey = randomBytes(32);
      // No Redis: the instance hears invalidations by LISTEN on the primary, which must follow it.
      env = { DATABASE_URL: formation.url(), DATA_DIR: dataDir, ...sharedEnv(appKey), DRAW_SCHEDULER: 'on', PIX_PAYOUT_RECONCILE_S: '1' };
      const migrated = await run(['migrate'], env);
      assert.equal(migrated.code, 0, `migrate on the multi-host URL: ${migrated.stdout}${migrated.stderr}`);
      database = await openDatabase({ databaseUrl: formation.url(), dataDir });
      instance = await startInstance(await freePort(), env);
      // One load for both scenarios (its provider and players made once), sent half in each.
      admin = await connectSession(formation.url(), 'failover test');
      workload = await prepareWorkload(admin, database.db, [instance.url], appKey, {
        webhooks: 80,
        withdrawals: 60,
        bets: 80,
        confirms: 20,
      });
      await admin.end();
      console.log(`# formation healthy (monitor, primary, two standbys) in ${(built / 1000).toFixed(1)} s`);
    });
    after(async () => {
      await stopInstance(instance);
      await database?.close();
      await formation?.destroy();
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    });

    /** The load with `event` a third of the way in; the books checked after, through the new primary. */
    async function scenario(t: TestContext, half: 0 | 1, event: (old: FormationNode) => Promise<void>, what: string): Promise<void> {
      const old = (await formation.writableNode())!;
      const middle = Math.floor(workload.ops.length / 2);
      const ops = half === 0 ? workload.ops.slice(0, middle) : workload.ops.slice(middle);
      let promoted: { node: FormationNode; at: number } | undefined;
      let eventAt = 0;
      {
        const result = await drive(instance!.url, ops, async () => {
          eventAt = Date.now();
          const watching = promotion(formation, old, eventAt);
          await event(old);
          promoted = await watching;
        });
        assert.deepEqual(result.serverErrors, [], 'no answer is a 500');
        assert.deepEqual(result.slow, [], `every answer within ${ANSWER_BOUND_MS / 1000} s`);
        assert.equal(result.withoutRetryAfter, 0, 'every 503 carries Retry-After');
        assert.ok(promoted !== undefined && promoted.node !== old, 'another node became the primary');
        const resumed = result.successes.filter((at) => at >= promoted!.at).sort((a, b) => a - b)[0];
        assert.ok(resumed !== undefined, 'writes succeeded after the promotion');
        const resumeMs = resumed - promoted.at;
        assert.ok(resumeMs <= RESUME_BOUND_MS, `writes resumed ${resumeMs} ms after the promotion`);
        // Through the new primary: every success once, every resend applied once, ledger:verify clean.
        const fresh = await connectSession(formation.url(), 'failover test');
        try {
          await assertBooks(fresh, database.db, { ...workload, ops: workload.ops.slice(0, half === 0 ? middle : undefined) });
        } finally {
          await fresh.end();
        }
        assert.deepEqual(await followersOn(formation, promoted.node), [], 'LISTEN and the leader locks moved to the new primary');
        const verify = await run(['ledger:verify'], env);
        assert.equal(verify.code, 0, `ledger:verify on the multi-host URL: ${verify.stdout}${verify.stderr}`);
        t.diagnostic(
          `${what}: promotion ${((promoted.at - eventAt) / 1000).toFixed(1)} s after the event, writes resumed ${resumeMs} ms after it; ` +
            `${ops.length} operations, ${result.unavailable} answers 503 with Retry-After, ${result.resent} operations resent`,
        );
      }
    }

    test(
      'a planned switchover: 503s with Retry-After in the gap, never a 500, writes resume within 5 s, every money operation once',
      { timeout: 240_000 },
      async (t) => {
        await scenario(t, 0, () => formation.switchover(), 'switchover');
        await formation.waitHealthy(2);
      },
    );

    test(
      'the loss of the primary machine (kill -9 of its pg_autoctl and postmaster): the same, on the remaining two nodes',
      { timeout: 240_000 },
      async (t) => {
        await scenario(t, 1, async (old) => formation.killNode(old), 'primary lost');
      },
    );
  },
);
