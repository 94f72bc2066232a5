import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { createGame, createProvider, endSession, launch, type Launched } from '../games/helpers.ts';

/** Moves a session's whole life back by `years` and `days`. */
async function age(t: TestApp, session: Launched, years: number, days: number): Promise<void> {
  const back = sql`make_interval(years => ${years}, days => ${days})`;
  await t.db.execute(sql`update game_sessions set created_at = created_at - ${back}, launch_expires_at = launch_expires_at - ${back},
    expires_at = expires_at - ${back} where id = ${session.id}`);
}

/** Sessions ended 120 days, five years less a day and five years and a day ago; which a sweep keeps. */
async function sweepAged(t: TestApp): Promise<{ sessions: Launched[]; kept: number[] }> {
  const provider = await createProvider(t);
  const game = await createGame(t, provider.id);
  const player = await t.player();
  const sessions: Launched[] = [];
  for (const [years, days] of [
    [0, 120],
    [5, -1],
    [5, 1],
  ] as const) {
    const session = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    await endSession(t, session.id);
    await age(t, session, years, days);
    sessions.push(session);
  }
  await t.app.housekeeping();
  const ids = sessions.map((session) => session.id);
  const found = await rows<{ id: string }>(t.db, sql`select id from game_sessions where id = any(${sql.param(ids)}::bigint[]) order by id`);
  return { sessions, kept: found.map((row) => Number(row.id)) };
}

describe('REGULATION=br: records are kept five years', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('housekeeping keeps game sessions that ended under five years ago, and prunes only older ones', async () => {
    const { sessions, kept } = await sweepAged(ctx());
    assert.deepEqual(kept, [sessions[0]!.id, sessions[1]!.id]);
  });
});

describe('REGULATION=none: game sessions are pruned after 90 days, as before', () => {
  const ctx = useApp({});

  test('every session that ended over 90 days ago is pruned', async () => {
    const { kept } = await sweepAged(ctx());
    assert.deepEqual(kept, []);
  });
});
