import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { saoPauloDate } from '../../src/platform/sao-paulo.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { demoDriver, send } from '../games/helpers.ts';
import { betAt, nextId, seat, type Table } from '../games/kit.ts';
import { createTopup, paid, webhook } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, setLimits, verifiedPlayer } from '../regulation/support.ts';
import { moveLines } from '../helpers/ledger-instants.ts';

// Three São Paulo days (UTC−3) and the instants the test puts its ledger lines at.
const DAYS = ['2026-11-18', '2026-11-19', '2026-11-20'];
const LAST_OF_FIRST = '2026-11-19T02:59:59.999Z';
const FIRST_OF_SECOND = '2026-11-19T03:00:00.000Z';
const MIDDLE_OF_SECOND = '2026-11-19T15:00:00.000Z';
const MIDDLE_OF_THIRD = '2026-11-20T15:00:00.000Z';

interface Figures {
  registrations: number;
  first_depositors: number;
  deposits: number;
  deposits_count: number;
  paid_withdrawals: number;
  paid_withdrawals_count: number;
  net_deposits: number;
  stakes: number;
  wins: number;
  refunds: number;
  ggr: number;
}
interface Ggr {
  source: string;
  provider: string;
  game: string;
  stakes: number;
  wins: number;
  refunds: number;
  ggr: number;
}
interface Stats {
  from: string;
  to: string;
  totals: Figures;
  previous: Figures & { from: string; to: string };
  daily: (Figures & { date: string })[];
  by_game: Ggr[];
  by_provider: Ggr[];
  queues: {
    withdrawals: { count: number; amount: number; oldest_created_at: string | null; oldest_age_seconds: number | null };
    identities: { count: number };
    topups: { count: number; amount: number };
  };
}
interface Daily {
  bets: { count: number; stake: number; win: number; refund: number };
  ggr: number;
  topups: { count: number; amount: number };
  withdrawals: { paid_count: number; paid: number };
}

const cents = (units: number) => Math.round(units * 100);

/** A provider bet of `stake` cents at the table, answered OK. */
async function bet(t: TestApp, table: Table, stake: bigint) {
  const call = betAt(table, stake);
  assert.equal((await send(t, demoDriver, table.provider, call)).answer?.status, 'OK');
  return call;
}

async function statsOf(client: { get(path: string): Promise<{ status: number; text: string; json: unknown }> }, query: string) {
  const res = await client.get(`/api/admin/stats?${query}`);
  assert.equal(res.status, 200, res.text);
  return (res.json as { data: Stats }).data;
}

describe('GET /api/admin/stats: the dashboard, each day equal to its daily report', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('bets, wins, refunds, top-ups and withdrawals over three days across São Paulo midnights', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const alice = await verifiedPlayer(t, admin.client);
    await fund(t, alice.id, 50_000n);

    // Two providers, one table each; the seated players verified first.
    const first = await seat(t, demoDriver, 20_000n);
    const second = await seat(t, demoDriver, 20_000n);
    for (const table of [first, second]) {
      assert.equal((await table.player.client.put('/api/user/identity', identityBody())).status, 200);
      assert.equal((await admin.client.post(`/api/admin/users/${table.player.id}/identity/approve`)).status, 200);
      await setLimits(table.player.client);
    }
    const won = await bet(t, first, 1_000n);
    const win = {
      action: 'win',
      transactionId: nextId('win'),
      betTransactionId: won.transactionId,
      roundId: won.roundId,
      amount: 2_500n,
      roundClosed: true,
    } as const;
    assert.equal((await send(t, demoDriver, first.provider, win)).answer?.status, 'OK');
    const refunded = await bet(t, first, 700n);
    const refund = { action: 'refund', transactionId: nextId('refund'), betTransactionId: refunded.transactionId } as const;
    assert.equal((await send(t, demoDriver, first.provider, refund)).answer?.status, 'OK');
    await bet(t, second, 300n);

    // Money in and out: a top-up paid, a withdrawal rejected, one paid out, one left for review.
    const topup = await createTopup(alice.client, 30);
    assert.equal((await webhook(t, { ...paid(topup), payer_cpf: alice.cpf })).status, 200);
    const withdraw = async (amount: number) => {
      const res = await alice.client.post('/api/withdrawals', {
        payee_name: alice.fullName,
        account_type: 'CPF',
        payee_account: alice.cpf,
        amount,
      });
      assert.equal(res.status, 201, res.text);
      return (res.json as { data: { id: number } }).data.id;
    };
    const rejected = await withdraw(40);
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${rejected}/reject`, { reason: 'No.' })).status, 200);
    const paidOut = await withdraw(15);
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${paidOut}/approve`)).status, 200);
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${paidOut}/complete`)).status, 200);
    await withdraw(5);
    // What waits on staff: that withdrawal, an identity, a top-up not paid yet.
    const waiting = await t.player();
    assert.equal((await waiting.client.put('/api/user/identity', identityBody())).status, 200);
    await createTopup(alice.client, 12);

    // The won bet's stake on the first day's last millisecond and its win on the second's first
    // instant; the refunded bet's stake on the second day, its refund on the third; the top-up on
    // the first day; the rejected withdrawal held on the first day and given back on the third,
    // the paid one paid on the third; alice registered on the first day.
    await moveLines(t, MIDDLE_OF_SECOND, [
      [sql`type = 'bet' and idempotency_key like ${`%:bet:${won.transactionId}`}`, LAST_OF_FIRST],
      [sql`type = 'win'`, FIRST_OF_SECOND],
      [sql`type = 'bet_refund'`, MIDDLE_OF_THIRD],
      [sql`type = 'topup'`, LAST_OF_FIRST],
      [sql`type = 'withdrawal' and reference_id = ${rejected}`, LAST_OF_FIRST],
      [sql`type = 'withdrawal_refund'`, MIDDLE_OF_THIRD],
    ]);
    await t.db.execute(sql`update withdrawals set paid_at = ${MIDDLE_OF_THIRD}::timestamptz where id = ${paidOut}`);
    await t.db.execute(sql`update users set created_at = ${LAST_OF_FIRST}::timestamptz where id = ${alice.id}`);

    const stats = await statsOf(admin.client, `from=${DAYS[0]}&to=${DAYS[2]}`);
    assert.deepEqual(
      stats.daily.map((day) => day.date),
      DAYS,
    );
    // Each day's money is its daily report's.
    for (const day of stats.daily) {
      const res = await admin.client.get(`/api/admin/reports/daily?date=${day.date}`);
      assert.equal(res.status, 200, res.text);
      const report = (res.json as { data: Daily }).data;
      assert.deepEqual(
        [day.stakes, day.wins, day.refunds, day.ggr, day.deposits, day.deposits_count, day.paid_withdrawals, day.paid_withdrawals_count],
        [
          report.bets.stake,
          report.bets.win,
          report.bets.refund,
          report.ggr,
          report.topups.amount,
          report.topups.count,
          report.withdrawals.paid,
          report.withdrawals.paid_count,
        ],
        day.date,
      );
    }
    // What the days hold, by the moves above.
    const [one, two, three] = stats.daily as unknown as [Figures, Figures, Figures];
    assert.deepEqual([one.stakes, one.wins, one.refunds, one.ggr, one.deposits, one.registrations], [10, 0, 0, 10, 30, 1]);
    assert.equal(one.first_depositors, 1);
    assert.deepEqual([two.stakes, two.wins, two.refunds, two.ggr], [10, 25, 0, -15]);
    assert.deepEqual([three.stakes, three.refunds, three.ggr, three.paid_withdrawals, three.net_deposits], [0, 7, -7, 15, -15]);

    // The totals are the days' sums, and agree with the ledger's own lines over the range.
    const [ledger] = await rows<{ stakes: string; wins: string; refunds: string; topups: string }>(
      t.db,
      sql`select -coalesce(sum(amount) filter (where type = 'bet'), 0) as stakes, coalesce(sum(amount) filter (where type = 'win'), 0) as wins,
          coalesce(sum(amount) filter (where type = 'bet_refund'), 0) as refunds, coalesce(sum(amount) filter (where type = 'topup'), 0) as topups
        from ledger_entries where created_at >= '2026-11-18T03:00:00Z' and created_at < '2026-11-21T03:00:00Z'`,
    );
    assert.deepEqual(
      [cents(stats.totals.stakes), cents(stats.totals.wins), cents(stats.totals.refunds), cents(stats.totals.deposits)],
      [Number(ledger!.stakes), Number(ledger!.wins), Number(ledger!.refunds), Number(ledger!.topups)],
    );
    assert.deepEqual(stats.totals, {
      registrations: 1,
      first_depositors: 1,
      deposits: 30,
      deposits_count: 1,
      paid_withdrawals: 15,
      paid_withdrawals_count: 1,
      net_deposits: 15,
      stakes: 20,
      wins: 25,
      refunds: 7,
      ggr: -12,
    });
    // The previous three days had nothing.
    assert.deepEqual(
      [stats.previous.from, stats.previous.to, stats.previous.stakes, stats.previous.deposits],
      ['2026-11-15', '2026-11-17', 0, 0],
    );

    // GGR by game and by provider: the second provider's 3.00 kept, the first's −15.00.
    assert.deepEqual(
      stats.by_provider.map((row) => [row.provider, row.stakes, row.wins, row.refunds, row.ggr]),
      [
        [second.provider.code, 3, 0, 0, 3],
        [first.provider.code, 17, 25, 7, -15],
      ],
    );
    assert.deepEqual(
      stats.by_game.map((row) => [row.provider, row.game, row.ggr]),
      [
        [second.provider.code, second.game.code, 3],
        [first.provider.code, first.game.code, -15],
      ],
    );
    assert.equal(
      stats.by_game.reduce((total, row) => total + cents(row.ggr), 0),
      cents(stats.totals.ggr),
    );

    // The queues, as they stand now.
    assert.equal(stats.queues.withdrawals.count, 1);
    assert.equal(stats.queues.withdrawals.amount, 5);
    assert.ok(stats.queues.withdrawals.oldest_created_at !== null && stats.queues.withdrawals.oldest_age_seconds! >= 0);
    assert.deepEqual(stats.queues.identities, { count: 1 });
    assert.deepEqual(stats.queues.topups, { count: 1, amount: 12 });

    // The previous period of a later range is this range: the same figures.
    const later = await statsOf(admin.client, 'from=2026-11-21&to=2026-11-23');
    assert.deepEqual({ ...later.previous, from: undefined, to: undefined }, { ...stats.totals, from: undefined, to: undefined });
  });

  test('today is read live: a top-up paid now is in it at once', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const bob = await verifiedPlayer(t, admin.client);
    const today = saoPauloDate(new Date());
    const before = (await statsOf(admin.client, `from=${today}&to=${today}`)).totals.deposits;
    const topup = await createTopup(bob.client, 20);
    assert.equal((await webhook(t, { ...paid(topup), payer_cpf: bob.cpf })).status, 200);
    const after = await statsOf(admin.client, `from=${today}&to=${today}`);
    assert.equal(after.totals.deposits, before + 20);
    const report = (await admin.client.get(`/api/admin/reports/daily?date=${today}`)).json as { data: Daily };
    assert.equal(report.data.topups.amount, after.totals.deposits);
  });

  test('a closed day is kept, and computed again once report_day_totals.sql changes', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const day = '2026-10-05';
    const read = async () => (await statsOf(admin.client, `from=${day}&to=${day}`)).totals.deposits;
    const truth = await read();
    // What is kept is what the next request reads: a kept row changed by hand shows.
    await t.db.execute(sql`update report_days set totals = jsonb_set(totals, '{topups,amount}', '"123400"') where day = ${day}::date`);
    assert.equal(await read(), 1234);
    assert.equal(((await admin.client.get(`/api/admin/reports/daily?date=${day}`)).json as { data: Daily }).data.topups.amount, 1234);
    // A new text of the function (another hash in schema_functions) voids every kept day.
    await t.db.execute(sql`update schema_functions set hash = 'another' where name = 'report_day_totals'`);
    assert.equal(await read(), truth);
  });

  test('reports.view is needed, and bad, missing or reversed dates or a range over 366 days are 422s', async () => {
    const t = ctx();
    const player = await t.player();
    assert.equal((await player.client.get(`/api/admin/stats?from=${DAYS[0]}&to=${DAYS[2]}`)).status, 403);
    const admin = (await t.withRole('admin')).client;
    for (const [query, field] of [
      ['', 'from'],
      ['to=2026-11-20', 'from'],
      ['from=2026-11-20', 'to'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=20-11-2026&to=2026-11-21', 'from'],
      ['from=2026-11-20&to=9999-12-31', 'to'],
      ['from=2026-11-20&to=2026-11-19', 'to'],
      ['from=2025-01-01&to=2026-01-02', 'to'],
    ] as const) {
      const res = await admin.get(`/api/admin/stats?${query}`);
      assert.equal(res.status, 422, query);
      const body = res.json as { message: string; errors: Record<string, string[]> };
      assert.deepEqual(Object.keys(body.errors), [field], query);
      assert.equal(body.message, body.errors[field]![0], query);
    }
    assert.equal((await admin.get('/api/admin/stats?from=2025-01-01&to=2026-01-01')).status, 200, 'a year of 366 days at most');
  });
});
