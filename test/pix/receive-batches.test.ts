// PIX payments that arrive while others are being written go together, one statement for the
// batch (src/modules/pix/receive.ts): each is still credited once, with its own top-up's lines,
// and one that the database refuses, or that meets replaced settings, has an outcome of its own.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import pino from 'pino';
import type { ReceivedPix } from '../../src/modules/payments/pix-api/wire.ts';
import { batchParameters, PixReceiver, prepareReceivePixPayments, type ReceiveInput } from '../../src/modules/pix/receive.ts';
import { SettingsInForce } from '../../src/modules/topups/mark-paid.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { backend } from '../helpers/database.ts';
import { fund } from '../withdrawals/helpers.ts';
import { balanceOf, createTopup, ledgerOf, NO_GIFTS, NO_REFERRAL, putSettings, referredPlayer, type Topup } from '../wallet/helpers.ts';

/** The sandbox method: receive_pix_payment finds a top-up by its method, gateway and txid, whichever gateway made it. */
const SANDBOX = { methodId: 1, gateway: 'sandbox' };

let serial = 0;
/** A payment the PSP confirmed for `topup`: a new endToEndId each time unless one is given. */
function paymentFor(topup: Topup, overrides: Partial<ReceivedPix> = {}): ReceiveInput {
  serial += 1;
  return {
    ...SANDBOX,
    refusal: undefined,
    payment: {
      endToEndId: `E09089356202611291200BATCH${String(serial).padStart(5, '0')}`,
      txid: topup.gateway_payment_id!,
      amount: BigInt(Math.round(Number(topup.amount) * 100)),
      at: new Date(),
      payer: { cpf: '12345678909', cnpj: undefined, name: 'Fulano de Tal' },
      returns: [],
      ...overrides,
    },
  };
}

/** A logger whose lines the test reads. */
function capturedLog() {
  const lines: { level: number; msg: string; payments?: string[] }[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

/** The transactions that wrote these payments' records: payments written together share one. */
async function transactionsOf(t: TestApp, endToEndIds: string[]): Promise<number> {
  const found = await rows<{ n: number }>(
    t.db,
    sql`select count(distinct xmin::text)::int as n from pix_payments where end_to_end_id in ${endToEndIds}`,
  );
  return found[0]!.n;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PIX payments written together', () => {
  const ctx = useApp();

  test('payments that arrive together are each credited once, with their own top-up’s gift and referral lines', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 2, topped_up_bonus_rate: 1 });
    try {
      const referrer = await t.player();
      const players = [await referredPlayer(t, referrer.id), await referredPlayer(t, referrer.id), await t.player(), await t.player()];
      const amounts = [100, 20, 30, 40];
      const topups = await Promise.all(players.map((player, index) => createTopup(player.client, amounts[index]!)));
      const payments = topups.map((topup) => paymentFor(topup));
      // The second payment's notification again, in the same batch.
      const replay = { ...payments[1]! };
      const { log, lines } = capturedLog();
      const receiver = new PixReceiver(t.db, new SettingsInForce(t.db));

      // The first goes alone; the others arrive while it is written and go together.
      const answers = await Promise.all([...payments, replay].map((input) => receiver.receive(input, log)));
      assert.deepEqual(
        answers.map((answer) => answer.outcome),
        ['credited', 'credited', 'credited', 'credited', 'replayed'],
      );
      assert.deepEqual(
        answers.map((answer) => answer.topupId),
        [...topups.map((topup) => topup.id), topups[1]!.id],
      );
      assert.equal(
        await transactionsOf(
          t,
          payments.map((input) => input.payment.endToEndId),
        ),
        2,
        'one transaction alone, one for the rest',
      );

      for (const [index, player] of players.entries()) {
        const cents = BigInt(amounts[index]! * 100);
        assert.deepEqual(
          (await ledgerOf(t.db, player.id)).map((line) => [line.type, line.amount]),
          [
            ['topup', cents],
            ['topup_gift', cents / 10n],
          ],
        );
        assert.equal(await balanceOf(t.db, player.id), cents + cents / 10n);
      }
      // Two referred players: 2.00 + 1 % of 100.00, and 2.00 + 1 % of 20.00.
      assert.deepEqual(
        (await ledgerOf(t.db, referrer.id)).map((line) => [line.type, line.amount]),
        [
          ['referral_bonus', 300n],
          ['referral_bonus', 220n],
        ],
      );
      await settle();
      assert.deepEqual(
        lines.filter((line) => line.level >= 40),
        [],
        'no batch failed',
      );
    } finally {
      await putSettings(admin.client, 'topup', NO_GIFTS);
      await putSettings(admin.client, 'referral', NO_REFERRAL);
    }
  });

  test('a payment the database refuses does not take the others of its batch with it', async () => {
    const t = ctx();
    const players = [await t.player(), await t.player(), await t.player(), await t.player()];
    const topups = await Promise.all(players.map((player) => createTopup(player.client, 15)));
    // An amount no BIGINT holds: the batch's statement fails, and so does this payment's own.
    const refused = paymentFor(topups[1]!, { amount: 2n ** 63n });
    const inputs = [paymentFor(topups[0]!), refused, paymentFor(topups[2]!), paymentFor(topups[3]!)];
    const { log, lines } = capturedLog();
    const receiver = new PixReceiver(t.db, new SettingsInForce(t.db));

    const settled = await Promise.allSettled(inputs.map((input) => receiver.receive(input, log)));
    assert.deepEqual(
      settled.map((result) => (result.status === 'fulfilled' ? result.value.outcome : 'failed')),
      ['credited', 'failed', 'credited', 'credited'],
    );
    assert.deepEqual(await Promise.all(players.map((player) => balanceOf(t.db, player.id))), [1500n, 0n, 1500n, 1500n]);
    await settle();
    const warned = lines.filter((line) => line.level === 40);
    assert.deepEqual(
      warned.map((line) => [line.msg, line.payments]),
      [['PIX payments written together failed as one; writing each on its own', inputs.slice(1).map((input) => input.payment.endToEndId)]],
    );
  });

  test('settings replaced while payments wait together: each is credited with the settings in force', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const settings = new SettingsInForce(t.db);
    await settings.get();
    // Replaced after the receiver read them.
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    try {
      const players = [await t.player(), await t.player(), await t.player()];
      const topups = await Promise.all(players.map((player) => createTopup(player.client, 50)));
      const receiver = new PixReceiver(t.db, settings);
      const { log } = capturedLog();
      // The first is no charge of ours: answered without looking at the settings, so the two
      // after it, together, are the first to meet the replaced ones.
      const answers = await Promise.all(
        [paymentFor(topups[0]!, { txid: 'crpnosuchcharge0000000000000' }), paymentFor(topups[1]!), paymentFor(topups[2]!)].map((input) =>
          receiver.receive(input, log),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => [answer.outcome, answer.gift]),
        [
          ['unknown', null],
          ['credited', 500n],
          ['credited', 500n],
        ],
      );
      assert.deepEqual(await Promise.all(players.map((player) => balanceOf(t.db, player.id))), [0n, 5500n, 5500n]);
    } finally {
      await putSettings(admin.client, 'topup', NO_GIFTS);
    }
  });

  test(
    'a batch locks the balances it may credit in id order first, so a transaction that locks them in that order never meets it in a cycle',
    { skip: backend !== 'postgres' && 'needs PostgreSQL: two transactions at once' },
    async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 2, topped_up_bonus_rate: 1 });
      const other = new pg.Client({ connectionString: t.database.url });
      await other.connect();
      try {
        // The referrer signed up first: its balance has the lower id.
        const referrer = await t.player();
        const player = await referredPlayer(t, referrer.id);
        await fund(t, referrer.id, 100n);
        await fund(t, player.id, 100n);
        const topup = await createTopup(player.client, 10);
        const settings = await new SettingsInForce(t.db).get();

        // Another transaction takes the referrer's balance, as settle_draw would: lowest id first.
        await other.query('begin');
        await other.query('select 1 from balances where user_id = $1 for update', [referrer.id]);
        // Sent now (drizzle runs a query when it is awaited).
        const batch = Promise.resolve(prepareReceivePixPayments(t.db).execute(batchParameters([paymentFor(topup)], settings)));
        // The batch waits for the referrer's balance before it has taken anything else.
        for (let waited = 0; ; waited += 1) {
          // Activity is read once a transaction unless cleared.
          await other.query('select pg_stat_clear_snapshot()');
          const waiting = await other.query(
            `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%receive_pix_payments(%' and pid <> pg_backend_pid()`,
          );
          if (waiting.rowCount === 1) break;
          assert.ok(waited < 500, 'the batch never waited for the balance');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        // The same transaction then takes the player's balance (the higher id): free, no deadlock.
        await other.query('select 1 from balances where user_id = $1 for update', [player.id]);
        await other.query('commit');

        const [row] = await batch;
        assert.deepEqual([row!.outcome, row!.referralReward, row!.ordinal], ['credited', 210n, 1]);
        assert.equal(await balanceOf(t.db, player.id), 1100n);
        assert.equal(await balanceOf(t.db, referrer.id), 310n);
      } finally {
        await other.query('rollback').catch(() => undefined);
        await other.end();
        await putSettings(admin.client, 'referral', NO_REFERRAL);
      }
    },
  );
});
