// Issue 34, item 2: what one PIX notification may make us ask the PSP. Each distinct payment is
// asked about once, at most 100 a notification, within the method's look-up budget a minute
// (PIX_NOTIFICATION_LOOKUPS_PER_MIN, counted across instances); the rest is logged and left to
// reconciliation, which credits the real ones. And a method without a webhook token is named at start.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, type Topup } from '../wallet/helpers.ts';
import { deliver, notify, PAYER, pixWorld, type PixWorld } from './helpers.ts';

/** The budget of this file's app: 50 shares of 5 look-ups a method. */
const BUDGET = 250;

interface LogLine {
  level: number;
  msg: string;
  code?: string;
  paymentMethodId?: number;
  made?: number;
  overBound?: number;
  overBudget?: number;
  left?: string[];
}

/** A log stream whose lines the test reads. */
function captured() {
  const lines: LogLine[] = [];
  const text: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      text.push(line);
      lines.push(JSON.parse(line) as LogLine);
    }
  });
  return { stream, lines, text };
}

let invented = 0;
/** Items for payments no payer made, each a new endToEndId (well formed: the PSP is asked, and knows none). */
function inventedItems(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, () => {
    invented += 1;
    return {
      endToEndId: `E09089356202611281200${String(invented).padStart(11, '0')}`,
      valor: '10.00',
      horario: new Date().toISOString(),
    };
  });
}

/** A pending top-up of `amount` paid at the PSP (its notification not delivered yet). */
async function paidTopup(t: TestApp, world: PixWorld, amount: number) {
  const player = await t.player();
  const topup = await createTopup(player.client, amount, world.methodId);
  const payment = world.sim.pay(topup.gateway_payment_id!, PAYER);
  return { player, topup, payment };
}

/** The top-up's status as its player reads it. */
async function statusOf(player: SignedIn, id: number): Promise<number> {
  const res = await player.client.get('/api/topups?per_page=100');
  return (res.json as { data: Topup[] }).data.find((topup) => topup.id === id)!.status;
}

describe('what a PIX notification may make us ask the PSP', () => {
  const log = captured();
  const ctx = useApp({ LOG_LEVEL: 'warn', PIX_NOTIFICATION_LOOKUPS_PER_MIN: String(BUDGET) }, { logStream: log.stream });
  const worlds: PixWorld[] = [];
  /** A simulator and a method of its own: each test starts with the method's whole budget. */
  const world = async (options: Parameters<typeof pixWorld>[1] = {}) => {
    const made = await pixWorld(ctx(), options);
    worlds.push(made);
    return made;
  };
  after(async () => {
    for (const made of worlds) await made.sim.stop();
  });

  test('1,000 copies of one payment in a notification: one question to the PSP, one credit', async () => {
    const t = ctx();
    const w = await world();
    const { player, topup, payment } = await paidTopup(t, w, 20);
    const [item] = w.sim.notification([payment.endToEndId]).pix;
    const res = await deliver(t, w.sim, { pix: Array.from({ length: 1000 }, () => item) });
    assert.equal(res.status, 200, res.text);
    assert.equal(w.sim.paymentLookups(), 1);
    assert.equal(await statusOf(player, topup.id), 1);
    assert.equal(await balanceOf(t.db, player.id), 2000n);
    assert.equal((await ledgerOf(t.db, player.id)).length, 1);
  });

  test('1,000 invented payments: at most 100 questions; a real payment past them is logged, and credited by reconciliation', async () => {
    const t = ctx();
    const w = await world();
    const { player, topup, payment } = await paidTopup(t, w, 15);
    const res = await deliver(t, w.sim, { pix: [...inventedItems(999), ...w.sim.notification([payment.endToEndId]).pix] });
    assert.equal(res.status, 200, res.text);
    assert.equal(w.sim.paymentLookups(), 100);
    assert.equal(await statusOf(player, topup.id), 0, 'past the bound: not asked about');
    const line = log.lines.find((entry) => entry.code === w.code && entry.overBound !== undefined);
    assert.deepEqual([line?.level, line?.made, line?.overBound, line?.overBudget], [40, 100, 900, 0]);

    const report = await t.app.pixReconciler.run();
    assert.equal(report.failures, 0);
    assert.equal(await statusOf(player, topup.id), 1);
    assert.equal(await balanceOf(t.db, player.id), 1500n);
    assert.equal(w.sim.paymentLookups(), 100, 'reconciliation reads the PSP’s list, not each payment');
  });

  test('past PIX_NOTIFICATION_LOOKUPS_PER_MIN a method’s notifications ask nothing more; what they bring is logged and credited by reconciliation', async () => {
    const t = ctx();
    const w = await world();
    for (let n = 0; n < 3; n++) assert.equal((await deliver(t, w.sim, { pix: inventedItems(100) })).status, 200);
    assert.equal(w.sim.paymentLookups(), BUDGET, '100, 100, then the 50 left of the minute’s budget');

    const first = await paidTopup(t, w, 11);
    const second = await paidTopup(t, w, 12);
    assert.equal((await notify(t, w.sim, [first.payment.endToEndId, second.payment.endToEndId])).status, 200);
    assert.equal(w.sim.paymentLookups(), BUDGET);
    assert.equal(await statusOf(first.player, first.topup.id), 0);
    const line = log.lines.find((entry) => entry.code === w.code && entry.overBudget === 2);
    assert.deepEqual([line?.level, line?.made, line?.left], [40, 0, [first.payment.endToEndId, second.payment.endToEndId]]);

    // Another method has a budget of its own.
    const other = await world();
    const elsewhere = await paidTopup(t, other, 13);
    assert.equal((await notify(t, other.sim, [elsewhere.payment.endToEndId])).status, 200);
    assert.equal(other.sim.paymentLookups(), 1);
    assert.equal(await balanceOf(t.db, elsewhere.player.id), 1300n);

    assert.equal((await t.app.pixReconciler.run()).failures, 0);
    assert.equal(await balanceOf(t.db, first.player.id), 1100n);
    assert.equal(await balanceOf(t.db, second.player.id), 1200n);
    assert.equal(w.sim.paymentLookups(), BUDGET);
  });

  test('the budget is one for every instance: notifications to two instances ask the PSP at most PIX_NOTIFICATION_LOOKUPS_PER_MIN times', async () => {
    const t = ctx();
    const w = await world();
    let second: FastifyInstance | undefined;
    try {
      second = await buildApp(t.config, {
        database: t.database.database,
        hashing: { memoryCost: 1024, timeCost: 1 },
        logStream: captured().stream,
      });
      await second.ready();
      const url = new URL(w.sim.notificationUrl());
      const toSecond = async (pix: unknown[]) =>
        (
          await second!.inject({
            method: 'POST',
            url: `${url.pathname}${url.search}`,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify({ pix }),
          })
        ).statusCode;
      assert.equal((await deliver(t, w.sim, { pix: inventedItems(100) })).status, 200);
      assert.equal(await toSecond(inventedItems(100)), 200);
      assert.equal((await deliver(t, w.sim, { pix: inventedItems(100) })).status, 200);
      assert.equal(await toSecond(inventedItems(100)), 200);
      assert.equal(w.sim.paymentLookups(), BUDGET);
    } finally {
      await second?.close();
    }
  });

  test('at start, each method without a webhook_token is named in one warning, and no secret is', async () => {
    const t = ctx();
    const open = await world({ webhookToken: null });
    const guarded = await world();
    const start = captured();
    const app = await buildApp(
      { ...t.config, logLevel: 'info' },
      { database: t.database.database, hashing: { memoryCost: 1024, timeCost: 1 }, logStream: start.stream },
    );
    try {
      await app.ready();
    } finally {
      await app.close();
    }
    const warnings = start.lines.filter((line) => line.msg.includes('webhook_token'));
    assert.deepEqual(
      warnings.map((line) => [line.level, line.code, line.paymentMethodId]),
      [[40, open.code, open.methodId]],
    );
    assert.match(warnings[0]!.msg, new RegExp(`PIX payment method ${open.code} has no webhook_token`));
    const everything = start.text.join('\n');
    assert.ok(!everything.includes(guarded.webhookToken!), 'no token in the start log');
    assert.ok(!everything.includes('client-secret-0123456789'), 'no client secret in the start log');
  });

  test('the simulators never left the spec', () => {
    for (const made of worlds) assert.deepEqual(made.sim.drift, []);
  });
});
