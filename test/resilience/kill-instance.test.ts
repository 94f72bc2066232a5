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
import { assignRole } from '../../src/modules/access/repository.ts';
import { sandboxSignature } from '../../src/modules/payments/gateways/sandbox.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { Keyring, sha256 } from '../../src/platform/crypto.ts';
import { signBody } from '../../src/platform/signature.ts';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  answersOn,
  freePort,
  postRaw,
  registerPlayer,
  startInstance,
  stopInstance,
  type Answer,
  type Browser,
  type Instance,
} from './instances.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/8';
const SANDBOX_SECRET = 'kill-test-sandbox-secret';
const WALLET_SECRET = 'kill-test-wallet-secret';
const FUNDS = 1_000_000n;
const PLAYERS = 4;
/** Operations in flight at once, across both instances. */
const CONCURRENCY = 12;

const skip =
  backend !== 'postgres'
    ? 'needs PostgreSQL: two processes share one database'
    : !(await answersOn(6379)) && 'Redis is not running on 127.0.0.1:6379';

type Outcome = 'success' | 'refusal';

interface Operation {
  kind: 'top-up webhook' | 'withdrawal' | 'provider bet' | 'admin confirm';
  /** What the operation was built to get; the test checks the client got it. */
  expected: Outcome;
  userId: number;
  /** The balance change it makes when it succeeds. */
  cents: bigint;
  send(baseUrl: string): Promise<Answer>;
  /** The outcome an answer says, or undefined when it is not one (the client resends). */
  read(answer: Answer, resent: boolean): Outcome | undefined;
  /** The ledger key of its movement, known once it succeeded (withdrawals learn their id). */
  ledgerKey?: string;
  attempts: number;
  outcome?: Outcome;
}

interface Slot {
  name: string;
  instance: Instance;
  /** Whether the client routes new requests to it (false from the kill until it is ready again). */
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
      const env = {
        DATABASE_URL: database.url!,
        REDIS_URL,
        DATA_DIR: dataDir,
        APP_KEY: `base64:${appKey.toString('base64')}`,
        PAYMENT_SANDBOX_SECRET: SANDBOX_SECRET,
        PIX_KEY: '123e4567-e12b-12d1-a456-426655440000',
      };
      const ports = [await freePort(), await freePort()];
      const [first, second] = await Promise.all(ports.map((port) => startInstance(port, env)));
      slots.push(
        { name: 'A', instance: first!, up: true, inFlight: 0, answered: 0 },
        { name: 'B', instance: second!, up: true, inFlight: 0, answered: 0 },
      );
      const [a, b] = slots as [Slot, Slot];

      // Players sign up on one instance and play on both: their sessions live in Redis.
      const run = randomBytes(4).toString('hex');
      const players: { browser: Browser; id: number }[] = [];
      for (let i = 0; i < PLAYERS; i++) players.push(await registerPlayer(slots[i % 2]!.instance.url, `kill-${run}-${i}@example.com`));
      const broke = await registerPlayer(a.instance.url, `kill-${run}-broke@example.com`);
      const operator = await registerPlayer(b.instance.url, `kill-${run}-admin@example.com`);
      await assignRole(database.database.db, operator.id, 'super-admin');
      for (const player of players) {
        await admin.query(
          `select ledger_apply($1::bigint, 'BRL', 'adjustment', $2::bigint, null, null, 'test funds', 'kill-fund:' || $3)`,
          [player.id, FUNDS, String(player.id)],
        );
      }

      // A provider with one game and a redeemed session per player, written as the launch would.
      const provider = (
        await admin.query<{ id: string }>(
          `insert into providers (name, code, adapter, wallet_secret) values ('Kill', 'kill', 'demo', $1) returning id`,
          [new Keyring(appKey).encrypt(WALLET_SECRET)],
        )
      ).rows[0]!.id;
      await admin.query(`insert into provider_games (provider_id, name, slug, code) values ($1, 'Kill slot', 'kill-slot', 'kill-slot')`, [
        provider,
      ]);
      const tokens = new Map<number, string>();
      for (const player of [...players, broke]) {
        const token = randomBytes(20).toString('hex');
        tokens.set(player.id, token);
        await admin.query(
          `insert into game_sessions (launch_token_hash, session_token_hash, user_id, provider_id, provider_game_id, currency,
           launch_expires_at, redeemed_at, expires_at)
         select $1, $2, $3, $4, g.id, 'BRL', now(), now(), now() + interval '30 minutes' from provider_games g where g.code = 'kill-slot'`,
          [sha256(`launch-${token}`), sha256(token), player.id, provider],
        );
      }

      // Pending top-ups as the gateway left them, paid by webhook or confirmed by the operator.
      const topup = async (userId: number, cents: number, reference: string) =>
        Number(
          (
            await admin.query<{ id: string }>(
              `insert into topups (public_id, user_id, payment_method_id, amount, currency, gateway, gateway_payment_id, qr_code)
             values ($1, $2, 1, $3, 'BRL', 'sandbox', $4, 'qr') returning id`,
              [randomBytes(16).toString('hex'), userId, cents, reference],
            )
          ).rows[0]!.id,
        );

      const ops: Operation[] = [];
      const status = (answer: Answer) => answer.status;
      const lists: Operation[][] = [[], [], [], []];
      for (let i = 0; i < 100; i++) {
        const player = players[i % PLAYERS]!;
        const cents = 1000 + i;
        const reference = `KILL-${run}-${i}`;
        const id = await topup(player.id, cents, reference);
        // One webhook in ten reports another amount: a refusal that must move nothing.
        const wrong = i % 10 === 9;
        const raw = JSON.stringify({ payment_id: reference, status: 'paid', amount: (wrong ? cents + 1 : cents) / 100 });
        lists[0]!.push({
          kind: 'top-up webhook',
          expected: wrong ? 'refusal' : 'success',
          userId: player.id,
          cents: BigInt(cents),
          ledgerKey: `topup:${id}`,
          attempts: 0,
          send: (url) =>
            postRaw(`${url}/api/webhooks/payments/sandbox`, raw, {
              'x-signature': sandboxSignature(SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
            }),
          read: (answer) => (status(answer) === 200 ? 'success' : status(answer) === 422 ? 'refusal' : undefined),
        });
      }
      for (let i = 0; i < 100; i++) {
        // One in ten comes from the player with no money: a refusal.
        const poor = i % 10 === 9;
        const player = poor ? broke : players[i % PLAYERS]!;
        const key = `kill-${run}-withdrawal-${i}`;
        const op: Operation = {
          kind: 'withdrawal',
          expected: poor ? 'refusal' : 'success',
          userId: player.id,
          cents: -BigInt(100 + i),
          attempts: 0,
          send: (url) =>
            player.browser.call(
              url,
              'POST',
              '/api/withdrawals',
              { payee_name: 'Maria Silva', account_type: 'CPF', payee_account: '12345678909', amount: (100 + i) / 100 },
              { 'idempotency-key': key },
            ),
          read: (answer) => {
            if (answer.status === 201) {
              op.ledgerKey = `withdrawal:${(answer.json as { data: { id: number } }).data.id}`;
              return 'success';
            }
            return answer.status === 422 ? 'refusal' : undefined;
          },
        };
        lists[1]!.push(op);
      }
      for (let i = 0; i < 100; i++) {
        const poor = i % 10 === 9;
        const player = poor ? broke : players[i % PLAYERS]!;
        const transaction = `kill-${run}-bet-${i}`;
        const raw = JSON.stringify({
          token: tokens.get(player.id),
          transaction_id: transaction,
          round_id: `kill-${run}-round-${i}`,
          game: 'kill-slot',
          amount: (50 + i) / 100,
          currency: 'BRL',
        });
        lists[2]!.push({
          kind: 'provider bet',
          expected: poor ? 'refusal' : 'success',
          userId: player.id,
          cents: -BigInt(50 + i),
          ledgerKey: `provider:${provider}:bet:${transaction}`,
          attempts: 0,
          send: (url) =>
            postRaw(`${url}/api/providers/${provider}/wallet/bet`, raw, {
              'x-signature': signBody(WALLET_SECRET, raw, Math.floor(Date.now() / 1000)),
            }),
          read: (answer) => {
            if (answer.status !== 200) return undefined;
            return (answer.json as { status: string }).status === 'OK' ? 'success' : 'refusal';
          },
        });
      }
      for (let i = 0; i < 40; i++) {
        const player = players[i % PLAYERS]!;
        const cents = 2000 + i;
        const id = await topup(player.id, cents, `KILL-${run}-confirm-${i}`);
        lists[3]!.push({
          kind: 'admin confirm',
          expected: 'success',
          userId: player.id,
          cents: BigInt(cents),
          ledgerKey: `topup:${id}`,
          attempts: 0,
          send: (url) => operator.browser.call(url, 'POST', `/api/admin/topups/${id}/confirm`),
          read: (answer, resent) => {
            if (answer.status === 200) return 'success';
            // A resent confirm finds the top-up its unanswered first attempt paid: the client's goal holds.
            if (resent && answer.status === 409 && (answer.json as { message?: string }).message === 'The top-up is already paid.') {
              return 'success';
            }
            return answer.status < 500 ? 'refusal' : undefined;
          },
        });
      }
      // Interleaved, so the kill meets every kind in flight.
      for (let i = 0; ops.length < lists.reduce((n, list) => n + list.length, 0); i++) {
        for (const list of lists) if (i < list.length) ops.push(list[i]!);
      }
      const fundingLines = Number((await admin.query<{ n: number }>('select count(*)::int as n from ledger_entries')).rows[0]!.n);

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
        b.up = false;
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
      for (const op of ops) assert.equal(op.outcome, op.expected, `${op.kind} for user ${op.userId}`);
      const succeeded = ops.filter((op) => op.outcome === 'success');
      const refused = ops.filter((op) => op.outcome === 'refusal');
      const resent = ops.filter((op) => op.attempts > 1);
      assert.ok(inFlightAtKill > 0, 'the kill caught requests in flight');
      assert.ok(resent.length > 0, 'some operations went unanswered and were resent');
      assert.ok(answeredByRestarted > 0, 'the restarted instance served again');

      // What the database holds: each success exactly once under its key, no refusal's movement.
      const keys = succeeded.map((op) => op.ledgerKey!);
      const found = await admin.query<{ key: string; n: number }>(
        'select idempotency_key as key, count(*)::int as n from ledger_entries where idempotency_key = any($1) group by 1',
        [keys],
      );
      const lines = new Map(found.rows.map((row) => [row.key, row.n]));
      for (const op of succeeded) assert.equal(lines.get(op.ledgerKey!), 1, `${op.kind} ${op.ledgerKey} is in the ledger once`);
      const refusedKeys = refused.filter((op) => op.ledgerKey !== undefined).map((op) => op.ledgerKey!);
      const leaked = await admin.query('select idempotency_key from ledger_entries where idempotency_key = any($1)', [refusedKeys]);
      assert.deepEqual(leaked.rows, [], 'a refused webhook or bet moved no money');
      const withdrawalRows = await admin.query<{ key: string; n: number }>(
        `select request_key as key, count(*)::int as n from withdrawals where request_key like $1 group by 1`,
        [`kill-${run}-withdrawal-%`],
      );
      const perKey = new Map(withdrawalRows.rows.map((row) => [row.key, row.n]));
      for (const [i, op] of lists[1]!.entries()) {
        assert.equal(perKey.get(`kill-${run}-withdrawal-${i}`) ?? 0, op.outcome === 'success' ? 1 : 0, `withdrawal ${i}: one row per key`);
      }
      const total = Number((await admin.query<{ n: number }>('select count(*)::int as n from ledger_entries')).rows[0]!.n);
      assert.equal(total, fundingLines + succeeded.length, 'the ledger holds the funding and one line per success, nothing else');
      for (const player of [...players, broke]) {
        const expected = ops.filter((op) => op.outcome === 'success' && op.userId === player.id).reduce((sum, op) => sum + op.cents, 0n);
        const balance = await admin.query<{ amount: string }>(`select amount from balances where user_id = $1 and currency = 'BRL'`, [
          player.id,
        ]);
        const funded = player === broke ? 0n : FUNDS;
        assert.equal(BigInt(balance.rows[0]?.amount ?? 0), funded + expected, `balance of user ${player.id}`);
      }
      // A resent operation whose line is dated before the kill had been applied by the killed
      // instance without the client hearing of it: the case the resend must not double.
      const early = await admin.query<{ n: number }>(
        'select count(*)::int as n from ledger_entries where idempotency_key = any($1) and created_at < $2',
        [resent.filter((op) => op.ledgerKey !== undefined).map((op) => op.ledgerKey!), killedAt],
      );
      const report = await verifyLedger(database.database.db);
      assert.deepEqual(report.problems, [], 'ledger:verify is clean');

      const figures = [
        `operations sent: ${ops.length} (${succeeded.length} acknowledged as done, ${refused.length} refused as built to be)`,
        `requests: ${attempts} (${unanswered} unanswered, ${resent.length} operations resent, ${inFlightAtKill} in flight on the killed instance)`,
        `resent operations the killed instance had already applied: ${early.rows[0]!.n}`,
        `answered by A: ${a.answered}, by B: ${b.answered} (${answeredByRestarted} after its restart)`,
        `ledger lines: ${total} (${fundingLines} funding + ${succeeded.length} from the load), ledger:verify clean over ${report.balances} balances`,
      ];
      for (const line of figures) t.diagnostic(line);
    },
  );
});
