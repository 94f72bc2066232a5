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

/** An operation-log entry (a bank created) and the answer to deleting it as a super-admin. */
async function deleteALog(t: TestApp): Promise<{ status: number; body: unknown; kept: boolean }> {
  const admin = await t.withRole('super-admin');
  assert.equal((await admin.client.post('/api/admin/banks', { name: 'Kept Bank', code: 'kept', currenry: 'BRL' })).status, 201);
  const [entry] = await rows<{ id: string }>(t.db, sql`select id from operation_logs order by id desc limit 1`);
  const res = await admin.client.delete(`/api/admin/operation-logs/${entry!.id}`);
  const still = await rows<{ id: string }>(t.db, sql`select id from operation_logs where id = ${entry!.id}`);
  return { status: res.status, body: res.json, kept: still.length === 1 };
}

describe('REGULATION=br: operation-log entries cannot be deleted', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('DELETE /api/admin/operation-logs/:id is a 409 that says why, and the entry stays', async () => {
    const { status, body, kept } = await deleteALog(ctx());
    assert.equal(status, 409);
    assert.deepEqual(body, {
      message:
        'Operation logs are kept for five years under REGULATION=br (Law 14.790/2023, Portaria SPA/MF 1.207/2024) and cannot be deleted.',
    });
    assert.equal(kept, true);
  });
});

describe('REGULATION=none: an operation-log entry can be deleted, as before', () => {
  const ctx = useApp({});

  test('DELETE /api/admin/operation-logs/:id is a 204 and the entry is gone', async () => {
    const { status, kept } = await deleteALog(ctx());
    assert.equal(status, 204);
    assert.equal(kept, false);
  });
});

describe('REGULATION=none: game sessions are pruned after 90 days, as before', () => {
  const ctx = useApp({});

  test('every session that ended over 90 days ago is pruned', async () => {
    const { kept } = await sweepAged(ctx());
    assert.deepEqual(kept, []);
  });
});
