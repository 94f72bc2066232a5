import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { formatLedgerReport, verifyLedger } from '../../src/modules/wallet/verify.ts';
import { openDatabase, rows } from '../../src/platform/db/client.ts';
import { applyLedgerOperation } from '../../src/modules/wallet/ledger.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { useApp } from '../helpers/app.ts';
import { backend } from '../helpers/database.ts';
import { createTopup, NO_GIFTS, NO_REFERRAL, paid, putSettings, referredPlayer, webhook } from './helpers.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

function cli(env: Record<string, string>): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [...NODE_FLAGS, 'bin/croupier.js', 'ledger:verify'], {
    env: { PATH: process.env.PATH ?? '', APP_KEY: Buffer.alloc(32, 7).toString('base64'), LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('ledger:verify', () => {
  const ctx = useApp();

  test('passes after top-ups, gifts, referral rewards and adjustments', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 2, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 1, topped_up_bonus: 0.5, topped_up_bonus_rate: 1 });
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    for (const amount of [10, 20.5, 33.33]) await webhook(t, paid(await createTopup(player.client, amount)));
    const report = await verifyLedger(t.db);
    assert.deepEqual(report.problems, []);
    assert.match(formatLedgerReport(report), /every balance matches its ledger/);
    await putSettings(admin.client, 'topup', NO_GIFTS);
    await putSettings(admin.client, 'referral', NO_REFERRAL);
  });

  test('the CLI exits 0 on a consistent database and 1 with the report on a corrupted one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'croupier-verify-'));
    try {
      if (backend === 'postgres') {
        const t = ctx();
        const env = { DATA_DIR: dir, DATABASE_URL: t.database.url! };
        const ok = cli(env);
        assert.equal(ok.status, 0, ok.output);
        assert.match(ok.output, /every balance matches its ledger/);
        await t.db.execute(sql`update balances set amount = amount + 5 where id = (select min(id) from balances)`);
        const bad = cli(env);
        await t.db.execute(sql`update balances set amount = amount - 5 where id = (select min(id) from balances)`);
        assert.equal(bad.status, 1);
        assert.match(bad.output, /2 difference\(s\)\.\n {2}balance #\d+: stored /);
        return;
      }
      // The embedded database of a data directory, as an operator's would be.
      const database = await openDatabase({ databaseUrl: undefined, dataDir: dir });
      await migrate(database);
      await database.db.execute(sql`insert into users (name, email, password, remember_nonce) values ('a', 'a@example.com', 'x', 'n')`);
      await database.db.execute(sql`insert into balances (user_id, currency) values (1, 'BRL')`);
      await database.close();
      const ok = cli({ DATA_DIR: dir });
      assert.equal(ok.status, 0, ok.output);
      assert.match(ok.output, /every balance matches its ledger/);
      const again = await openDatabase({ databaseUrl: undefined, dataDir: dir });
      await again.db.execute(sql`update balances set amount = 5`);
      await again.close();
      const bad = cli({ DATA_DIR: dir });
      assert.equal(bad.status, 1);
      assert.match(bad.output, /balance #1: stored 0\.05, ledger sum 0\.00/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('fails with a report after a balance is changed behind the ledger’s back', async () => {
    const t = ctx();
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 10)));
    await t.db.execute(sql`update balances set amount = amount + 1 where user_id = ${player.id}`);
    const report = await verifyLedger(t.db);
    assert.ok(report.problems.length >= 1);
    assert.match(formatLedgerReport(report), /stored 10\.01, ledger sum 10\.00/);
    await t.db.execute(sql`update balances set amount = amount - 1 where user_id = ${player.id}`);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('fails when a ledger line was rewritten with the append-only trigger switched off', async () => {
    const t = ctx();
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 10)));
    await t.db.execute(sql`alter table ledger_entries disable trigger ledger_entries_no_update`);
    await t.db.execute(sql`update ledger_entries set amount = 900 where user_id = ${player.id}`);
    await t.db.execute(sql`alter table ledger_entries enable trigger ledger_entries_no_update`);
    const text = formatLedgerReport(await verifyLedger(t.db));
    assert.match(text, /stored 10\.00, ledger sum 9\.00/);
    assert.match(text, /0\.00 \+ 9\.00 ≠ balance_after 10\.00/);
  });

  test('bets raise the bet turnover kept on the balance, and a turnover changed behind the ledger’s back is reported', async () => {
    const t = ctx();
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 10)));
    for (const [key, cents] of [
      ['a', -300n],
      ['b', -150n],
    ] as const) {
      await applyLedgerOperation(t.db, {
        userId: player.id,
        currency: 'BRL',
        type: 'bet',
        amount: cents,
        idempotencyKey: `verify-bet:${player.id}:${key}`,
      });
    }
    // A replayed bet counts once.
    await applyLedgerOperation(t.db, {
      userId: player.id,
      currency: 'BRL',
      type: 'bet',
      amount: -300n,
      idempotencyKey: `verify-bet:${player.id}:a`,
    });
    const [balance] = await rows<{ id: string | number; bet_turnover: string | number }>(
      t.db,
      sql`select id, bet_turnover from balances where user_id = ${player.id}`,
    );
    assert.equal(BigInt(balance!.bet_turnover), 450n);
    // The test before this one leaves another balance corrupted on purpose.
    const ours = async () => (await verifyLedger(t.db)).problems.filter((problem) => problem.balanceId === Number(balance!.id));
    assert.deepEqual(await ours(), []);

    await t.db.execute(sql`update balances set bet_turnover = bet_turnover + 1 where user_id = ${player.id}`);
    assert.deepEqual(await ours(), [
      { balanceId: Number(balance!.id), detail: 'bet turnover 4.51, ledger 4.50 (bets 4.50, bet refunds 0.00)' },
    ]);
    await t.db.execute(sql`update balances set bet_turnover = bet_turnover - 1 where user_id = ${player.id}`);
  });

  test('a bet refund takes its stake back off the bet turnover, never below zero, and ledger:verify checks that rule', async () => {
    const t = ctx();
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 10)));
    const move = (type: 'bet' | 'bet_refund', amount: bigint, key: string) =>
      applyLedgerOperation(t.db, { userId: player.id, currency: 'BRL', type, amount, idempotencyKey: `verify-refund:${player.id}:${key}` });
    const turnover = async () =>
      BigInt(
        (await rows<{ bet_turnover: string }>(t.db, sql`select bet_turnover from balances where user_id = ${player.id}`))[0]!.bet_turnover,
      );

    await move('bet', -1_000n, 'bet');
    assert.equal(await turnover(), 1_000n);
    await move('bet_refund', 1_000n, 'refund');
    assert.equal(await turnover(), 0n, 'the refunded bet no longer counts');
    await move('bet_refund', 1_000n, 'refund');
    assert.equal(await turnover(), 0n, 'a replayed refund moves nothing');
    // A refund larger than what is counted (none is written today) stops at zero, and the next bet counts from there.
    await move('bet', -300n, 'second');
    await move('bet_refund', 500n, 'more-than-counted');
    assert.equal(await turnover(), 0n);
    await move('bet', -200n, 'third');
    assert.equal(await turnover(), 200n);

    const [balance] = await rows<{ id: string }>(t.db, sql`select id from balances where user_id = ${player.id}`);
    const ours = async () => (await verifyLedger(t.db)).problems.filter((problem) => problem.balanceId === Number(balance!.id));
    assert.deepEqual(await ours(), []);
    // A turnover kept as the plain sum of bet lines (the rule before refunds counted) is reported.
    await t.db.execute(sql`update balances set bet_turnover = 1500 where user_id = ${player.id}`);
    assert.deepEqual(await ours(), [
      { balanceId: Number(balance!.id), detail: 'bet turnover 15.00, ledger 2.00 (bets 15.00, bet refunds 15.00)' },
    ]);
    await t.db.execute(sql`update balances set bet_turnover = 200 where user_id = ${player.id}`);
    assert.deepEqual(await ours(), []);
  });
});
