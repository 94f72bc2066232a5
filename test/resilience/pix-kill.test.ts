// Issue 21: a `croupier serve` process killed with SIGKILL between the PSP's confirmation of a
// payment and our commit of its credit. The credit is held back by a lock on the top-up's row (a
// test connection holds it), so the kill lands exactly there: the PSP has answered GET
// /pix/{e2eid}, the credit's transaction waits. After a restart the payment is credited once:
// by the leader's first reconciliation pass (or by the dead process's statement, which PostgreSQL
// may still finish), and not again by the PSP's retry of the notification.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { assignRole } from '../../src/modules/access/repository.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { CLIENT, KEY, PAYER, pixApiConfig, pki } from '../pix/helpers.ts';
import { PspSimulator } from '../pix/simulator/psp.ts';
import { freePort, postRaw, registerPlayer, startInstance, stopInstance, type Instance } from './instances.ts';

const skip = backend !== 'postgres' && 'needs PostgreSQL: the test holds a row lock from a connection of its own';

/** Polls `check` until it answers true, failing after `ms`: the wait ends as soon as the state is reached. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a server killed between the PSP’s confirmation and the credit’s commit', { skip }, () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let locker: pg.Client;
  let dataDir: string;
  let sim: PspSimulator;
  let instance: Instance | undefined;

  before(async () => {
    database = await freshDatabase();
    admin = new pg.Client({ connectionString: database.url });
    locker = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await locker.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'croupier-pix-kill-'));
    sim = await PspSimulator.start({ pki: pki(), keys: [KEY], client: CLIENT });
  });
  after(async () => {
    await stopInstance(instance);
    await locker?.end();
    await admin?.end();
    await database?.drop();
    await sim?.stop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the payment is credited once after the restart, and the ledger verifies', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const env = { DATABASE_URL: database.url!, DATA_DIR: dataDir, APP_KEY: `base64:${randomBytes(32).toString('base64')}` };
    instance = await startInstance(port, { ...env, PIX_RECONCILE_S: '0' });

    const operator = await registerPlayer(instance.url, 'operator@example.com');
    await assignRole(database.database.db, operator.id, 'super-admin');
    const method = await operator.browser.call(instance.url, 'POST', '/api/admin/payment-methods', {
      name: 'PSP',
      code: 'pix-psp',
      gateway: 'pix-api',
      min_amount: 1,
      max_amount: 1000,
      config: pixApiConfig(sim),
    });
    assert.equal(method.status, 201, method.text);
    const methodId = (method.json as { data: { id: number } }).data.id;

    const player = await registerPlayer(instance.url, 'player@example.com');
    const created = await player.browser.call(instance.url, 'POST', '/api/topups', { payment_method_id: methodId, amount: 42 });
    assert.equal(created.status, 201, created.text);
    const topup = (created.json as { data: { id: number; gateway_payment_id: string } }).data;
    const paid = sim.pay(topup.gateway_payment_id, PAYER);
    const notification = JSON.stringify(sim.notification([paid.endToEndId]));
    const url = (base: string) => `${base}/api/webhooks/pix/pix-psp/pix`;

    // The credit will wait for this lock; the PSP's confirmation will not.
    await locker.query('begin');
    await locker.query('select id from topups where id = $1 for update', [topup.id]);
    const answered = postRaw(url(instance.url), notification, {}).catch((error: unknown) => error);
    await until('the PSP confirmed the payment', 30_000, async () =>
      sim.calls.some((call) => call.method === 'GET' && call.path === `/v2/pix/${paid.endToEndId}` && call.status === 200),
    );
    await until('the credit waits on the lock', 30_000, async () => {
      const { rows } = await admin.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return rows[0]!.n > 0;
    });
    instance.kill('SIGKILL');
    assert.equal(await instance.exited, 'SIGKILL');
    assert.ok((await answered) instanceof Error, 'the PSP saw its notification fail, as it does when a server dies');
    await locker.query('rollback');

    const state = async () => {
      const { rows } = await admin.query<{ status: number; lines: number; payments: number; balance: string | null }>(
        `select t.status,
           (select count(*)::int from ledger_entries l where l.user_id = t.user_id) as lines,
           (select count(*)::int from pix_payments p where p.topup_id = t.id) as payments,
           (select amount::text from balances b where b.user_id = t.user_id) as balance
         from topups t where t.id = $1`,
        [topup.id],
      );
      return rows[0]!;
    };
    // The killed process's statement was already sent: PostgreSQL may run it to its end once the
    // lock is free (it learns that its client is gone only when it answers). Either way the credit
    // is whole or absent, never part of it.
    const afterKill = await state();
    assert.ok(
      [
        JSON.stringify({ status: 0, lines: 0, payments: 0, balance: null }),
        JSON.stringify({ status: 1, lines: 1, payments: 1, balance: '4200' }),
      ].includes(JSON.stringify(afterKill)),
      `the credit committed whole or not at all: ${JSON.stringify(afterKill)}`,
    );

    // The restarted instance leads, and its first reconciliation pass finds the payment.
    instance = await startInstance(port, { ...env, PIX_RECONCILE_S: '300' });
    await until('the restarted instance credits the payment', 60_000, async () => (await state()).status === 1);
    // The PSP retries its notification: nothing more moves.
    const retried = await postRaw(url(instance.url), notification, {});
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual(await state(), { status: 1, lines: 1, payments: 1, balance: '4200' });
    assert.deepEqual((await verifyLedger(database.database.db)).problems, []);
    assert.deepEqual(sim.drift, []);
  });
});
