import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { userWithPermissions, lastLog } from '../admin/support.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { betOk, insertGame, ManualClock, openDraw, type Bet, type Draw } from './helpers.ts';

interface Page<T> {
  data: T[];
  meta: { total: number };
}

describe('operators see every draw record', () => {
  const clock = new ManualClock('2026-11-25T20:00:00.000Z');
  const ctx = useApp({}, { clock });
  let admin: SignedIn;
  let players: SignedIn[];
  let dice: { id: number; code: string };
  let wheel: { id: number; code: string };
  let settled: Draw;
  let cancelled: Draw;
  let open: Draw;
  const bets: Bet[] = [];

  before(async () => {
    const t = ctx();
    admin = await t.withRole('super-admin');
    players = [await t.player(), await t.player()];
    for (const player of players) await fund(t, player.id, 10_000n);
    dice = await insertGame(t.db, { type: 'dice3' });
    wheel = await insertGame(t.db, { type: 'double' });
    await t.app.drawScheduler.tick(clock.now());
    settled = await openDraw(admin.client, wheel.code);
    cancelled = await openDraw(admin.client, dice.code);
    bets.push(await betOk(players[0]!.client, wheel.code, 'red', 1));
    bets.push(await betOk(players[1]!.client, wheel.code, 'black', 2));
    bets.push(await betOk(players[0]!.client, dice.code, 'big', 3));
    const res = await admin.client.post(`/api/admin/draws/${cancelled.id}/cancel`, { reason: 'Table closed' });
    assert.equal(res.status, 200, res.text);
    await t.app.drawScheduler.tick(clock.set(settled.draw_at));
    open = await openDraw(admin.client, wheel.code);
    bets.push(await betOk(players[1]!.client, wheel.code, 'white', 4));
  });

  const list = async <T>(path: string): Promise<Page<T>> => {
    const res = await admin.client.get(path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.json as Page<T>;
  };
  const ids = (page: Page<{ id: number }>) => page.data.map((item) => item.id);

  test('draws: filters by game, status, period and player; totals; the sealed seed never leaves', async () => {
    assert.deepEqual(ids(await list(`/api/admin/draws?game_id=${wheel.id}`)), [open.id, settled.id]);
    assert.deepEqual(ids(await list('/api/admin/draws?status=4')), [cancelled.id]);
    assert.deepEqual(ids(await list(`/api/admin/draws?period=${cancelled.period}&game_id=${dice.id}`)), [cancelled.id]);
    assert.deepEqual(ids(await list(`/api/admin/draws?user_id=${players[1]!.id}`)), [open.id, settled.id]);
    assert.equal((await admin.client.get('/api/admin/draws?period=yesterday')).status, 422);

    const shown = (await admin.client.get(`/api/admin/draws/${settled.id}`)).json as { data: Record<string, unknown> };
    assert.deepEqual([shown.data.status, shown.data.bets_count, shown.data.bets_total], [3, 2, 3]);
    const live = (await admin.client.get(`/api/admin/draws/${open.id}`)).json as { data: Record<string, unknown> };
    assert.deepEqual([live.data.status, live.data.bets_count, live.data.bets_total, live.data.server_seed], [0, 1, 4, null]);
    const gone = (await admin.client.get(`/api/admin/draws/${cancelled.id}`)).json as { data: Record<string, unknown> };
    assert.deepEqual([gone.data.cancelled_by, gone.data.cancel_reason, gone.data.bets_count], [admin.id, 'Table closed', 1]);
    for (const record of [shown.data, live.data, gone.data]) assert.ok(!('seed_encrypted' in record));
  });

  test('bets, settlements and refunds: filters by draw, game, player and status', async () => {
    const [red, black, big, white] = bets as [Bet, Bet, Bet, Bet];
    assert.deepEqual(ids(await list(`/api/admin/bets?user_id=${players[0]!.id}`)), [big.id, red.id]);
    assert.deepEqual(ids(await list(`/api/admin/bets?game_id=${wheel.id}`)), [white.id, black.id, red.id]);
    assert.deepEqual(ids(await list(`/api/admin/bets?draw_id=${cancelled.id}`)), [big.id]);
    assert.deepEqual(ids(await list('/api/admin/bets?status=3')), [big.id]);
    assert.deepEqual(ids(await list('/api/admin/bets?status=0')), [white.id]);
    assert.deepEqual(ids(await list('/api/admin/bets?selection=black')), [black.id]);

    const settlements = await list<{ id: number; bet_id: number; status: number; payout: number; amount: number }>(
      `/api/admin/settlements?draw_id=${settled.id}`,
    );
    assert.deepEqual(ids(settlements), [black.id, red.id]);
    assert.ok(settlements.data.every((row) => row.bet_id === row.id));
    const won = settlements.data.filter((row) => row.status === 1);
    assert.ok(won.length <= 1);
    for (const row of won) assert.equal(row.payout, row.amount * 2);
    assert.deepEqual(ids(await list(`/api/admin/settlements?user_id=${players[0]!.id}`)), [red.id]);
    assert.deepEqual(ids(await list(`/api/admin/settlements?game_id=${dice.id}`)), []);
    assert.equal(
      (await list('/api/admin/settlements?status=1')).meta.total + (await list('/api/admin/settlements?status=2')).meta.total,
      2,
    );

    const refunds = await list<{ id: number; amount: number; draw_id: number }>(`/api/admin/refunds?game_id=${dice.id}`);
    assert.deepEqual(
      refunds.data.map((row) => [row.id, row.amount, row.draw_id]),
      [[big.id, 3, cancelled.id]],
    );
    assert.deepEqual(ids(await list(`/api/admin/refunds?user_id=${players[1]!.id}`)), []);
    assert.equal((await admin.client.get(`/api/admin/refunds/${big.id}`)).status, 200);
    assert.equal((await admin.client.get(`/api/admin/refunds/${red.id}`)).status, 404);
    assert.equal((await list('/api/admin/bets?from=2000-01-01&to=2000-01-02')).meta.total, 0);
  });

  test('each record set needs its own permission; cancelling needs draws.manage and is in the operation log', async () => {
    const t = ctx();
    const player = players[0]!;
    for (const path of ['draws', 'bets', 'settlements', 'refunds']) {
      assert.equal((await player.client.get(`/api/admin/${path}`)).status, 403, path);
      const viewer = await userWithPermissions(t, [`${path}.view`]);
      assert.equal((await viewer.client.get(`/api/admin/${path}`)).status, 200, path);
      const other = path === 'draws' ? 'bets' : 'draws';
      assert.equal((await viewer.client.get(`/api/admin/${other}`)).status, 403, `${path}.view does not open ${other}`);
    }
    const viewer = await userWithPermissions(t, ['draws.view']);
    assert.equal((await viewer.client.post(`/api/admin/draws/${open.id}/cancel`, { reason: 'no' })).status, 403);
    const manager = await userWithPermissions(t, ['draws.manage']);
    const invalid = await manager.client.post(`/api/admin/draws/${open.id}/cancel`, {});
    assert.equal(invalid.status, 422);
    const res = await manager.client.post(`/api/admin/draws/${open.id}/cancel`, { reason: 'Maintenance window' });
    assert.equal(res.status, 200, res.text);
    const log = await lastLog(t);
    assert.deepEqual(
      [log.path, log.method, Number(log.user_id), log.payload],
      [`/api/admin/draws/${open.id}/cancel`, 'POST', manager.id, { reason: 'Maintenance window' }],
    );
  });
});
