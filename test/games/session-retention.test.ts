import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { createGame, createProvider, demoDriver, endSession, launch, send, type Launched, type TestProvider } from './helpers.ts';

/** Moves a session's whole life back by `days` (launched, redeemed and ended that long ago). */
async function age(t: TestApp, session: Launched, days: number): Promise<void> {
  const back = sql`make_interval(days => ${days})`;
  await t.db.execute(sql`update game_sessions set created_at = created_at - ${back}, launch_expires_at = launch_expires_at - ${back},
    redeemed_at = redeemed_at - ${back}, expires_at = expires_at - ${back} where id = ${session.id}`);
}

async function kept(t: TestApp, sessions: Launched[]): Promise<number[]> {
  const ids = sessions.map((session) => session.id);
  const found = await rows<{ id: string }>(t.db, sql`select id from game_sessions where id = any(${sql.param(ids)}::bigint[]) order by id`);
  return found.map((row) => Number(row.id));
}

let calls = 0;
const id = (what: string) => `${what}-${process.pid}-${++calls}`;

describe('game sessions housekeeping', () => {
  const ctx = useApp();

  /** A launch redeemed by the provider, and one bet of `cents` through its session: the round's and the bet's ids. */
  async function play(t: TestApp, provider: TestProvider, game: { id: number; code: string }, userId: number, cents: bigint) {
    const launched = await launch(t, { userId, providerId: provider.id, gameId: game.id });
    const session = (await send(t, demoDriver, provider, { action: 'balance', token: launched.token })).answer!.session!;
    const bet = { action: 'bet', token: session, transactionId: id('bet'), roundId: id('round'), game: game.code, amount: cents } as const;
    assert.equal((await send(t, demoDriver, provider, bet)).answer?.status, 'OK');
    return { launched, bet };
  }

  test('sessions that ended over 90 days ago are deleted, recent and live ones are kept, and wins for their rounds are still paid', async () => {
    const t = ctx();
    const provider = await createProvider(t);
    const game = await createGame(t, provider.id);
    const player = await t.player();
    await fund(t, player.id, 10_000n);

    const oldest = await play(t, provider, game, player.id, 1_000n);
    const older = await play(t, provider, game, player.id, 500n);
    const unredeemed = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const demo = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id, demo: true });
    const endedYesterday = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const endedAtTheLimit = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const live = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const playedForMonths = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    for (const session of [oldest.launched, older.launched, unredeemed, demo]) {
      await endSession(t, session.id);
      await age(t, session, 120);
    }
    await endSession(t, endedYesterday.id);
    await age(t, endedYesterday, 1);
    await endSession(t, endedAtTheLimit.id);
    await age(t, endedAtTheLimit, 89);
    // Launched long ago and still going (each bet moves its end): not over, so not pruned.
    await t.db.execute(sql`update game_sessions set created_at = now() - interval '120 days' where id = ${playedForMonths.id}`);

    await t.app.housekeeping();

    assert.deepEqual(
      await kept(t, [oldest.launched, older.launched, unredeemed, demo, endedYesterday, endedAtTheLimit, live, playedForMonths]),
      // The newest money session of the game stays, however old: it keeps the game its rounds name from being deleted.
      [older.launched.id, endedYesterday.id, endedAtTheLimit.id, live.id, playedForMonths.id],
    );
    assert.deepEqual(await kept(t, [live]), [live.id], 'a sweep with nothing left to prune keeps everything');

    // The provider settles the pruned session's round months later: the win is paid, once.
    const win = {
      action: 'win',
      transactionId: id('win'),
      betTransactionId: oldest.bet.transactionId,
      roundId: oldest.bet.roundId,
      amount: 2_500n,
      roundClosed: true,
    } as const;
    const paid = await send(t, demoDriver, provider, win);
    assert.deepEqual([paid.answer?.status, paid.answer?.balance], ['OK', 11_000n]);
    assert.deepEqual((await send(t, demoDriver, provider, win)).answer?.status, 'OK');
    // A refund of the other old round gives its stake back. A bet of the pruned session sent
    // again moves nothing: its token no longer shows whose it is, so it is refused as a mismatch
    // (a replay must come from the recorded bet's player), without anyone's balance.
    const refund = { action: 'refund', transactionId: id('refund'), betTransactionId: older.bet.transactionId } as const;
    assert.deepEqual((await send(t, demoDriver, provider, refund)).answer?.status, 'OK');
    const replayed = (await send(t, demoDriver, provider, oldest.bet)).answer;
    assert.deepEqual([replayed?.status, replayed?.balance], ['DUPLICATE_MISMATCH', null]);
    assert.equal(await balanceOf(t.db, player.id), 11_500n);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('a game played for money still cannot be deleted after housekeeping; one only ever launched can be, once its launches are pruned', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const provider = await createProvider(t);
    const played = await createGame(t, provider.id);
    const launchedOnly = await createGame(t, provider.id);
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const { launched } = await play(t, provider, played, player.id, 1_000n);
    await endSession(t, launched.id);
    await age(t, launched, 120);
    const tried = await launch(t, { userId: player.id, providerId: provider.id, gameId: launchedOnly.id, demo: true });
    await endSession(t, tried.id);

    assert.equal((await admin.client.delete(`/api/admin/provider-games/${launchedOnly.id}`)).status, 409, 'a recent launch keeps it');
    await age(t, tried, 120);
    await t.app.housekeeping();
    assert.equal((await admin.client.delete(`/api/admin/provider-games/${played.id}`)).status, 409);
    assert.equal((await admin.client.delete(`/api/admin/provider-games/${launchedOnly.id}`)).status, 204);
  });
});
