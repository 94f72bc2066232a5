import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { DATABASE_COMMANDS, Transcript, type Opener } from '../../src/commands.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { betOk, insertGame, ManualClock, openDraw } from '../draws/helpers.ts';
import { demoDriver, send } from '../games/helpers.ts';
import { betAt, nextId, seat } from '../games/kit.ts';
import { createTopup, paid, webhook } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, setLimits, verifiedPlayer } from './support.ts';
import { moveLines } from '../helpers/ledger-instants.ts';

// The day under report, in São Paulo (UTC−3): [2026-11-20T03:00Z, 2026-11-21T03:00Z).
const DAY = '2026-11-20';
const FIRST_INSTANT = '2026-11-20T03:00:00.000Z';
const LAST_INSTANT = '2026-11-21T02:59:59.999Z';
const NEXT_DAY = '2026-11-21T03:00:00.000Z';
const DAY_BEFORE = '2026-11-20T02:59:59.999Z';
const MIDDAY = '2026-11-20T15:00:00.000Z';

interface Totals {
  bettors: number;
  bets: { count: number; stake: number; win: number; refund: number };
  ggr: number;
  topups: { count: number; amount: number; gift: number };
  withdrawals: { count: number; requested: number; returned: number };
  returned_payments: { count: number; amount: number };
  games: { source: string; provider: string; game: string; stake: number; win: number; refund: number; ggr: number }[];
  other_lines: Record<string, number>;
  from: string;
  to: string;
}

/** What the ledger says for [from, to), by line type, in cents: computed here without the report's code. */
async function ledgerSums(t: TestApp, from: string, to: string): Promise<Record<string, number>> {
  const found = await rows<{ type: string; total: string }>(
    t.db,
    sql`select type, sum(amount)::text as total from ledger_entries
      where created_at >= ${from}::timestamptz and created_at < ${to}::timestamptz group by type`,
  );
  return Object.fromEntries(found.map((row) => [row.type, Number(row.total)]));
}

const cents = (units: number) => Math.round(units * 100);

describe('REGULATION=br: the daily report reconciles with the ledger', () => {
  const clock = new ManualClock('2026-11-20T12:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br' }, { clock });

  test('bets, wins, refunds, top-ups and withdrawals of one São Paulo day, its midnights on both sides', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const alice = await verifiedPlayer(t, admin.client);
    await fund(t, alice.id, 50_000n);

    // Provider: a bet won, a bet refunded (the seated player verified first).
    const table = await seat(t, demoDriver, 20_000n);
    assert.equal((await table.player.client.put('/api/user/identity', identityBody())).status, 200);
    assert.equal((await admin.client.post(`/api/admin/users/${table.player.id}/identity/approve`)).status, 200);
    await setLimits(table.player.client);
    const won = betAt(table, 1_000n);
    assert.equal((await send(t, demoDriver, table.provider, won)).answer?.status, 'OK');
    const winCall = {
      action: 'win',
      transactionId: nextId('win'),
      betTransactionId: won.transactionId,
      roundId: won.roundId,
      amount: 2_500n,
      roundClosed: true,
    } as const;
    assert.equal((await send(t, demoDriver, table.provider, winCall)).answer?.status, 'OK');
    const refunded = betAt(table, 700n);
    assert.equal((await send(t, demoDriver, table.provider, refunded)).answer?.status, 'OK');
    const refundCall = { action: 'refund', transactionId: nextId('refund'), betTransactionId: refunded.transactionId } as const;
    assert.equal((await send(t, demoDriver, table.provider, refundCall)).answer?.status, 'OK');

    // Draws: one settled with a bet on each colour (one of them wins), one cancelled (refunded).
    const wheel = await insertGame(t.db, { type: 'double' });
    const dice = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const settled = await openDraw(alice.client, wheel.code);
    const cancelled = await openDraw(alice.client, dice.code);
    for (const [selection, amount] of [
      ['red', 1],
      ['black', 2],
      ['white', 3],
    ] as const)
      await betOk(alice.client, wheel.code, selection, amount);
    await betOk(alice.client, dice.code, 'big', 4);
    assert.equal((await admin.client.post(`/api/admin/draws/${cancelled.id}/cancel`, { reason: 'Table closed' })).status, 200);
    await t.app.drawScheduler.tick(clock.set(settled.draw_at));

    // Money in and out: a top-up paid, a withdrawal held then rejected, another held.
    const topup = await createTopup(alice.client, 30);
    assert.equal((await webhook(t, { ...paid(topup), payer_cpf: alice.cpf })).status, 200);
    const withdraw = (amount: number) =>
      alice.client.post('/api/withdrawals', { payee_name: alice.fullName, account_type: 'CPF', payee_account: alice.cpf, amount });
    const rejected = (await withdraw(40)).json as { data: { id: number } };
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${rejected.data.id}/reject`, { reason: 'No.' })).status, 200);
    assert.equal((await withdraw(15)).status, 201);

    // A third party's PIX for another top-up, returned (status 4) and never credited: the ledger
    // has nothing of it, the report's own file has it.
    const unpaid = await createTopup(alice.client, 12);
    await t.db.execute(sql`update topups set status = 4, reason = 'third party' where id = ${unpaid.id}`);
    await t.db
      .execute(sql`insert into pix_payments (end_to_end_id, payment_method_id, txid, topup_id, amount, paid_at, payer_cpf, outcome, reason, return_id, return_status, created_at)
      select 'E00000000202611201500RETURNED01', payment_method_id, 'txid-returned', id, 1200, ${MIDDAY}::timestamptz, '52998224725', 'returned', 'third_party_payer', 'DE00000000202611201500RETURNED01', 'requested', ${MIDDAY}::timestamptz
      from topups where id = ${unpaid.id}`);

    // The day's edges: the provider's win lands on the next day's first instant, its refunded
    // stake on this day's first; the top-up on this day's last millisecond; the withdrawal's
    // refund on the day before's last.
    await moveLines(t, MIDDAY, [
      [sql`type = 'win' and reference_type = 'provider_bet'`, NEXT_DAY],
      [sql`type = 'bet' and idempotency_key like ${`%:bet:${refunded.transactionId}`}`, FIRST_INSTANT],
      [sql`type = 'topup'`, LAST_INSTANT],
      [sql`type = 'withdrawal_refund'`, DAY_BEFORE],
    ]);

    const res = await admin.client.get(`/api/admin/reports/daily?date=${DAY}`);
    assert.equal(res.status, 200, res.text);
    const totals = (res.json as { data: Totals }).data;
    assert.deepEqual([totals.from, totals.to], [FIRST_INSTANT, NEXT_DAY]);

    const ledger = await ledgerSums(t, FIRST_INSTANT, NEXT_DAY);
    assert.equal(cents(totals.bets.stake), -ledger.bet!);
    assert.equal(cents(totals.bets.win), ledger.win ?? 0);
    assert.equal(cents(totals.bets.refund), ledger.bet_refund!);
    assert.equal(cents(totals.topups.amount), ledger.topup!);
    assert.equal(cents(totals.topups.gift), ledger.topup_gift ?? 0);
    assert.equal(cents(totals.withdrawals.requested), -ledger.withdrawal!);
    assert.equal(cents(totals.withdrawals.returned), ledger.withdrawal_refund ?? 0);
    assert.equal(cents(totals.other_lines.adjustment ?? 0), ledger.adjustment!);
    assert.deepEqual(totals.returned_payments, { count: 1, amount: 12 });
    assert.equal(cents(totals.ggr), -ledger.bet! - (ledger.win ?? 0) - ledger.bet_refund!);
    // What the edges mean: the provider's win is not this day's, the top-up and the refunded stake are, the
    // withdrawal's refund is not.
    assert.equal(totals.withdrawals.returned, 0);
    assert.equal(totals.topups.amount, 30);
    const provider = totals.games.find((game) => game.source === 'provider')!;
    assert.deepEqual([provider.stake, provider.win, provider.refund, provider.ggr], [17, 0, 7, 10]);
    assert.equal(totals.bettors, 2);
    const draws = totals.games.filter((game) => game.source === 'draw');
    assert.deepEqual(
      draws.map((game) => [game.game, game.stake, game.refund]).sort(),
      [
        [dice.code, 4, 4],
        [wheel.code, 6, 0],
      ].sort(),
    );
    // Red (1 at 2.00), black (2 at 2.00) or white (3 at 14.00): docs/draws.md's table.
    assert.ok([2, 4, 42].includes(draws.find((game) => game.game === wheel.code)!.win * 1), 'one colour won at its odds');

    // The next day's report has the win, and only it, of these bets.
    const next = ((await admin.client.get('/api/admin/reports/daily?date=2026-11-21')).json as { data: Totals }).data;
    assert.deepEqual([next.bets.stake, next.bets.win, next.bets.refund, next.ggr], [0, 25, 0, -25]);
    const before = ((await admin.client.get('/api/admin/reports/daily?date=2026-11-19')).json as { data: Totals }).data;
    assert.equal(before.withdrawals.returned, 40);

    // The command writes the same day as CSV files with a manifest of their rows and digests.
    const dir = join(await mkdtemp(join(tmpdir(), 'croupier-report-')), 'out');
    const open: Opener = (work) => work({ config: t.config, database: t.database.database, publish: async () => {} });
    const out = new Transcript();
    assert.equal(await DATABASE_COMMANDS['report:daily']!(['--date', DAY, '--out', dir], open, out), 0, out.stderr);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
      date: string;
      files: { name: string; rows: number; sha256: string }[];
    };
    assert.equal(manifest.date, DAY);
    assert.deepEqual(
      manifest.files.map((file) => file.name),
      ['bettors.csv', 'bets.csv', 'topups.csv', 'withdrawals.csv', 'ggr.csv', 'other_lines.csv', 'returned_payments.csv'],
    );
    const csvOf = async (name: string) => {
      const bytes = await readFile(join(dir, name));
      const file = manifest.files.find((entry) => entry.name === name)!;
      assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256, name);
      const [header, ...data] = bytes.toString('utf8').trimEnd().split('\r\n');
      assert.equal(data.length, file.rows, name);
      const columns = header!.split(',');
      return data.map((line) => Object.fromEntries(line.split(',').map((value, index) => [columns[index]!, value])));
    };
    const bets = await csvOf('bets.csv');
    const column = (list: Record<string, string>[], name: string) => list.reduce((total, row) => total + cents(Number(row[name])), 0);
    assert.equal(bets.length, totals.bets.count);
    assert.equal(column(bets, 'stake'), cents(totals.bets.stake));
    assert.equal(column(bets, 'win'), cents(totals.bets.win));
    assert.equal(column(bets, 'refund'), cents(totals.bets.refund));
    const bettors = await csvOf('bettors.csv');
    assert.deepEqual(
      bettors.map((row) => [Number(row.user_id), row.cpf]),
      [
        [alice.id, alice.cpf],
        [table.player.id, bettors.find((row) => Number(row.user_id) === table.player.id)!.cpf],
      ].sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    assert.equal(column(await csvOf('ggr.csv'), 'ggr'), cents(totals.ggr));
    assert.equal(column(await csvOf('topups.csv'), 'amount'), cents(totals.topups.amount));
    const withdrawals = await csvOf('withdrawals.csv');
    assert.equal(column(withdrawals, 'requested'), cents(totals.withdrawals.requested));
    assert.equal(withdrawals.length, 2);
    // Every other ledger line of the day, one by one: their sums are the API's other_lines.
    const others = await csvOf('other_lines.csv');
    const byType: Record<string, number> = {};
    for (const row of others) byType[row.type!] = (byType[row.type!] ?? 0) + cents(Number(row.amount));
    assert.deepEqual(byType, Object.fromEntries(Object.entries(totals.other_lines).map(([type, units]) => [type, cents(units)])));
    assert.ok(others.some((row) => row.type === 'adjustment' && Number(row.user_id) === alice.id));
    const returned = await csvOf('returned_payments.csv');
    assert.deepEqual(
      returned.map((row) => [row.end_to_end_id, Number(row.topup_id), Number(row.user_id), row.amount, row.reason, row.return_status]),
      [['E00000000202611201500RETURNED01', unpaid.id, alice.id, '12.00', 'third_party_payer', 'requested']],
    );

    // A range answers each day's totals, in order, each the same as that day's own answer.
    const range = await admin.client.get('/api/admin/reports/daily?from=2026-11-19&to=2026-11-21');
    assert.equal(range.status, 200, range.text);
    const days = (range.json as { data: Totals[] }).data;
    assert.deepEqual(
      days.map((day) => (day as Totals & { date: string }).date),
      ['2026-11-19', DAY, '2026-11-21'],
    );
    assert.deepEqual(days[1], totals);
    assert.deepEqual(days[2], next);
    assert.deepEqual(days[0], before);
  });

  test('the totals need reports.view, and a date that is not a calendar day is a 422', async () => {
    const t = ctx();
    const player = await t.player();
    assert.equal((await player.client.get(`/api/admin/reports/daily?date=${DAY}`)).status, 403);
    const admin = (await t.withRole('admin')).client;
    for (const date of ['2026-02-30', '20-11-2026', '', '9999-12-31', '0000-01-01']) {
      assert.equal((await admin.get(`/api/admin/reports/daily?date=${date}`)).status, 422, date);
    }
    assert.equal((await admin.get('/api/admin/reports/daily')).status, 422);
    for (const [query, field] of [
      ['from=2026-11-01&to=2026-12-02', 'to'],
      ['from=2026-11-20&to=2026-11-19', 'to'],
      ['from=2026-11-20', 'to'],
      ['to=2026-11-20', 'from'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['date=2026-11-20&from=2026-11-19&to=2026-11-21', 'date'],
    ] as const) {
      const res = await admin.get(`/api/admin/reports/daily?${query}`);
      assert.equal(res.status, 422, query);
      assert.deepEqual(Object.keys((res.json as { errors: Record<string, unknown> }).errors), [field], query);
    }
    const month = await admin.get('/api/admin/reports/daily?from=2026-11-01&to=2026-12-01');
    assert.equal(month.status, 200, 'the 31 days of a range at most');
    assert.equal((month.json as { data: unknown[] }).data.length, 31);
  });
});
