import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { settleDraw } from '../../src/modules/draws/repository.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows, type Db } from '../../src/platform/db/client.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { betOk, count, insertGame, ManualClock, openDraw, winLines, type Bet, type Draw } from './helpers.ts';

/** A fault in the middle of a settlement statement: the insert of this bet's settlement raises. */
async function failAtBet(db: Db, betId: number): Promise<void> {
  await db.execute(
    sql.raw(`create or replace function test_settlement_fault() returns trigger language plpgsql as $$
      begin
        if new.id = ${betId} then raise exception 'simulated crash while settling bet ${betId}'; end if;
        return new;
      end $$`),
  );
  await db.execute(sql`drop trigger if exists test_settlement_fault on draw_settlements`);
  await db.execute(
    sql`create trigger test_settlement_fault before insert on draw_settlements for each row execute function test_settlement_fault()`,
  );
}

async function noFault(db: Db): Promise<void> {
  await db.execute(sql`drop trigger if exists test_settlement_fault on draw_settlements`);
}

describe('settling a draw', () => {
  const clock = new ManualClock('2026-11-25T16:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('a settlement interrupted after a first batch, and again inside the next, resumes and pays each winner once', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double' });
    const players: SignedIn[] = [await t.player(), await t.player(), await t.player()];
    for (const player of players) await fund(t, player.id, 10_000n);
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(players[0]!.client, game.code);
    const placed: { bet: Bet; player: SignedIn }[] = [];
    for (let i = 0; i < 12; i++) {
      const player = players[i % 3]!;
      placed.push({ bet: await betOk(player.client, game.code, ['red', 'black', 'white'][i % 4 === 3 ? 2 : i % 2]!, 1 + i), player });
    }

    // The draw happens, but its settlement statement fails at the 8th bet: nothing of it stays.
    await failAtBet(t.db, placed[7]!.bet.id);
    const failed = await t.app.drawScheduler.tick(clock.set(draw.draw_at));
    assert.deepEqual([failed.drawn, failed.settled, failed.failures], [1, 0, 1]);
    assert.equal(await count(t.db, sql`select count(*) as n from draw_settlements`), 0);
    assert.equal(await count(t.db, sql`select count(*) as n from ledger_entries where type = 'win'`), 0);

    // A first batch of five commits, then the process dies (the rest is never asked for).
    await noFault(t.db);
    const batch = await settleDraw(t.db, draw.id, 5);
    assert.deepEqual([batch.outcome, batch.settled], ['partial', 5]);
    assert.equal(batch.won, await count(t.db, sql`select count(*) as n from draw_settlements where status = 1`));
    assert.equal(batch.paid, (await settleTotals(t.db, draw.id)).paid);
    // The next attempt dies inside its batch, at the 10th bet: the first five stay, nothing else is written.
    await failAtBet(t.db, placed[9]!.bet.id);
    assert.equal((await t.app.drawScheduler.tick(clock.now())).failures, 1);
    assert.equal(await count(t.db, sql`select count(*) as n from draw_settlements`), 5);

    await noFault(t.db);
    const resumed = await t.app.drawScheduler.tick(clock.now());
    assert.deepEqual([resumed.settled, resumed.failures], [7, 0]);
    // Settling a settled draw again moves nothing.
    assert.equal((await settleDraw(t.db, draw.id, 100)).outcome, 'settled_before');

    const shown = (await players[0]!.client.get(`/api/games/${game.code}/draws`)).json as { data: Draw[] };
    const result = shown.data.find((item) => item.id === draw.id)!;
    assert.equal(result.status, 3);
    const colour = result.winning![0]!;
    for (const { bet, player } of placed) {
      const won = bet.selection === colour;
      assert.equal(await winLines(t, bet.id), won ? 1 : 0, `bet ${bet.id} on ${bet.selection}`);
      const settled = ((await player.client.get(`/api/bets?draw_id=${draw.id}`)).json as { data: Bet[] }).data.find(
        (b) => b.id === bet.id,
      )!;
      assert.deepEqual([settled.status, settled.payout], won ? [1, bet.amount * bet.odds] : [2, 0]);
    }
    for (const player of players) {
      const mine = placed.filter((item) => item.player === player).map((item) => item.bet);
      const staked = mine.reduce((sum, bet) => sum + BigInt(bet.amount * 100), 0n);
      const won = mine
        .filter((bet) => bet.selection === colour)
        .reduce((sum, bet) => sum + BigInt(Math.round(bet.amount * bet.odds * 100)), 0n);
      assert.equal(await balanceOf(t.db, player.id), 10_000n - staked + won);
    }
    const totals = await settleTotals(t.db, draw.id);
    assert.deepEqual([totals.count, totals.total], [12, 7_800n]);
    assert.equal(totals.paid, totals.paidByLines);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });
});

async function settleTotals(db: Db, drawId: number) {
  const [row] = await rows<{ bets_count: number; bets_total: string; payout_total: string; lines: string }>(
    db,
    sql`select d.bets_count, d.bets_total, d.payout_total,
      (select coalesce(sum(e.amount), 0) from ledger_entries e join draw_bets b on b.id = e.reference_id
        where e.type = 'win' and e.reference_type = 'draw_bet' and b.draw_id = d.id) as lines
      from draws d where d.id = ${drawId}`,
  );
  return {
    count: Number(row!.bets_count),
    total: BigInt(row!.bets_total),
    paid: BigInt(row!.payout_total),
    paidByLines: BigInt(row!.lines),
  };
}
