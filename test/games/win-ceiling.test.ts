// The operator's ceiling on what one provider call may credit (settings `games.max_win`,
// docs/games.md "Held wins"), through the built-in protocol and Hub88's: off by default (a huge
// win is credited as before); on, a win above it is held — not credited, listed for review, an
// alert in the operation log — its replays answer the same and move nothing, and staff release
// it (credited once, even when two releases race) or refuse it (nothing credited).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { demoDriver, send, type KitCall, type WalletDriver } from './helpers.ts';
import { hub88Driver } from './hub88-driver.ts';
import { Hub88Simulator } from './hub88-simulator.ts';
import { answered, betAt, nextId, roundsAt, seat, type Table } from './kit.ts';

/** R$ 10,000,000,000 in cents: the win that was credited (issue 34). */
const HUGE = 1_000_000_000_000n;
const FUNDS = 10_000n;
const STAKE = 100n;

interface HeldWin {
  id: number;
  provider_id: number;
  user_id: number;
  provider_bet_id: number;
  transaction_id: string;
  amount: number;
  max_win: number;
  status: number;
  reason: string | null;
  reviewed_by: number | null;
}

async function setCeiling(admin: SignedIn, maxWin: number | string): Promise<void> {
  const res = await admin.client.put('/api/admin/settings/games', { max_win: maxWin });
  assert.equal(res.status, 200, res.text);
}

/** A seated player's bet, and a win of `amount` cents for it that closes its round. */
async function betAndWin(t: TestApp, driver: WalletDriver, s: Table, amount: bigint): Promise<Extract<KitCall, { action: 'win' }>> {
  const placed = betAt(s, STAKE);
  answered(driver, await send(t, driver, s.provider, placed), 'OK');
  return {
    action: 'win',
    transactionId: nextId('win'),
    betTransactionId: placed.transactionId,
    roundId: placed.roundId,
    amount,
    roundClosed: true,
  };
}

async function heldWins(admin: SignedIn, query = ''): Promise<HeldWin[]> {
  const res = await admin.client.get(`/api/admin/held-wins${query}`);
  assert.equal(res.status, 200, res.text);
  return (res.json as { data: HeldWin[] }).data;
}

async function alerts(t: TestApp, transactionId: string) {
  return rows<{ user_id: number; method: string; path: string; payload: Record<string, unknown> }>(
    t.db,
    sql`select user_id, method, path, payload from operation_logs where payload ->> 'transaction_id' = ${transactionId}`,
  );
}

async function winLines(t: TestApp, userId: number) {
  return (await ledgerOf(t.db, userId)).filter((line) => line.type === 'win');
}

function ceilingSuite(driver: WalletDriver, protocol: string): void {
  describe(`the win ceiling: ${protocol}`, () => {
    const ctx = useApp();

    test('off by default: GET shows 0, and a win of R$ 10,000,000,000 is credited as before', async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      assert.deepEqual((await admin.client.get('/api/admin/settings/games')).json, { data: { max_win: 0 } });
      const s = await seat(t, driver, FUNDS);
      const win = await betAndWin(t, driver, s, HUGE);
      answered(driver, await send(t, driver, s.provider, win), 'OK', FUNDS - STAKE + HUGE);
      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE + HUGE);
      assert.deepEqual(
        (await winLines(t, s.player.id)).map((line) => line.amount),
        [HUGE],
      );
      assert.deepEqual(await heldWins(admin), []);
    });

    test('on: a win above it is not credited (balance, ledger and round unchanged), is listed for review and raises an alert; at the ceiling it is credited', async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      await setCeiling(admin, '1000.00');
      const s = await seat(t, driver, FUNDS);
      const win = await betAndWin(t, driver, s, HUGE);
      const held = await send(t, driver, s.provider, win);
      answered(driver, held, 'WIN_HELD', FUNDS - STAKE);
      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE);
      assert.deepEqual(await winLines(t, s.player.id), []);
      const [round] = await roundsAt(t, s.provider.id);
      assert.deepEqual({ win: round!.winAmount, status: round!.status }, { win: 0n, status: 0 });

      const listed = await heldWins(admin, `?status=0&user_id=${s.player.id}`);
      assert.deepEqual(
        listed.map((hold) => ({ ...hold, id: typeof hold.id })),
        [
          {
            ...listed[0]!,
            id: 'number',
            provider_id: s.provider.id,
            user_id: s.player.id,
            provider_bet_id: round!.id,
            transaction_id: win.transactionId,
            amount: 10_000_000_000,
            max_win: 1000,
            status: 0,
            reason: null,
            reviewed_by: null,
          },
        ],
      );
      const shown = await admin.client.get(`/api/admin/held-wins/${listed[0]!.id}`);
      assert.equal((shown.json as { data: HeldWin }).data.transaction_id, win.transactionId);

      const [alert, ...more] = await alerts(t, win.transactionId);
      assert.equal(more.length, 0);
      assert.deepEqual(
        { user_id: Number(alert!.user_id), method: alert!.method, path: alert!.path, payload: alert!.payload },
        {
          user_id: 0,
          method: 'POST',
          path: driver.path(String(s.provider.id), 'win'),
          payload: {
            alert: 'provider_win_held',
            held_win_id: listed[0]!.id,
            provider_id: s.provider.id,
            transaction_id: win.transactionId,
            user_id: s.player.id,
            amount: 10_000_000_000,
            max_win: 1000,
            currency: 'BRL',
          },
        },
      );
      // The operators' log lists it with the rest (a path prefix finds the provider's calls).
      const log = await admin.client.get('/api/admin/operation-logs?path=/api/providers');
      assert.ok(
        (log.json as { data: { payload: { transaction_id?: string } }[] }).data.some(
          (row) => row.payload.transaction_id === win.transactionId,
        ),
      );

      const atCeiling = await betAndWin(t, driver, s, 100_000n);
      answered(driver, await send(t, driver, s.provider, atCeiling), 'OK', FUNDS - 2n * STAKE + 100_000n);
      assert.equal((await heldWins(admin, `?user_id=${s.player.id}`)).length, 1);
    });

    test('a replay of a held win answers the same and moves nothing', async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      await setCeiling(admin, 50);
      const s = await seat(t, driver, FUNDS);
      const win = await betAndWin(t, driver, s, 5_001n);
      const first = await send(t, driver, s.provider, win);
      answered(driver, first, 'WIN_HELD', FUNDS - STAKE);
      // The same call again (for Hub88 a new request), and the very same request again.
      const again = await send(t, driver, s.provider, win);
      answered(driver, again, 'WIN_HELD', FUNDS - STAKE);
      const resent = await send(t, driver, s.provider, win, { raw: first.raw });
      assert.equal(resent.res.text, first.res.text);
      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE);
      assert.deepEqual(await winLines(t, s.player.id), []);
      assert.equal((await heldWins(admin, `?user_id=${s.player.id}`)).length, 1);
      assert.equal((await alerts(t, win.transactionId)).length, 1);
      // Another amount under the held id is another call: refused, as any reused id is.
      answered(driver, await send(t, driver, s.provider, { ...win, amount: 6_000n }), 'DUPLICATE_MISMATCH');
    });

    test('two releases at once credit the win exactly once; the provider’s retry is then answered as credited', async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      await setCeiling(admin, 50);
      const s = await seat(t, driver, FUNDS);
      const win = await betAndWin(t, driver, s, HUGE);
      answered(driver, await send(t, driver, s.provider, win), 'WIN_HELD');
      const [hold] = await heldWins(admin, `?user_id=${s.player.id}`);
      const other = await t.withRole('admin');

      const raced = await Promise.all([
        admin.client.post(`/api/admin/held-wins/${hold!.id}/release`, { reason: 'checked with the provider' }),
        other.client.post(`/api/admin/held-wins/${hold!.id}/release`, {}),
      ]);
      assert.deepEqual(raced.map((res) => res.status).sort(), [200, 409], raced.map((res) => res.text).join(' | '));
      const won = raced.find((res) => res.status === 200)!;
      const lost = raced.find((res) => res.status === 409)!;
      assert.deepEqual((lost.json as { message: string }).message, 'This win was released already.');
      const released = (won.json as { data: HeldWin }).data;
      assert.equal(released.status, 1);
      assert.ok([admin.id, other.id].includes(released.reviewed_by!));

      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE + HUGE);
      assert.deepEqual(
        (await winLines(t, s.player.id)).map((line) => line.amount),
        [HUGE],
      );
      const [round] = await roundsAt(t, s.provider.id);
      assert.deepEqual({ win: round!.winAmount, status: round!.status }, { win: HUGE, status: 1 });
      // Each decision is in the operation log; the refused one left nothing there.
      const logged = await rows(t.db, sql`select 1 from operation_logs where path = ${`/api/admin/held-wins/${hold!.id}/release`}`);
      assert.equal(logged.length, 1);

      answered(driver, await send(t, driver, s.provider, win), 'OK', FUNDS - STAKE + HUGE);
      assert.equal((await admin.client.post(`/api/admin/held-wins/${hold!.id}/release`, {})).status, 409);
      assert.equal((await admin.client.post(`/api/admin/held-wins/${hold!.id}/refuse`, { reason: 'too late' })).status, 409);
      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE + HUGE);
      assert.deepEqual((await verifyLedger(t.db)).problems, []);
    });

    test('a refused win credits nothing, its retries are answered refused, and it cannot be released after', async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      await setCeiling(admin, 50);
      const s = await seat(t, driver, FUNDS);
      const win = await betAndWin(t, driver, s, HUGE);
      answered(driver, await send(t, driver, s.provider, win), 'WIN_HELD');
      const [hold] = await heldWins(admin, `?user_id=${s.player.id}`);

      assert.equal((await admin.client.post(`/api/admin/held-wins/${hold!.id}/refuse`, {})).status, 422);
      const refused = await admin.client.post(`/api/admin/held-wins/${hold!.id}/refuse`, { reason: 'provider error' });
      assert.equal(refused.status, 200, refused.text);
      assert.deepEqual(
        { status: (refused.json as { data: HeldWin }).data.status, reason: (refused.json as { data: HeldWin }).data.reason },
        { status: 2, reason: 'provider error' },
      );
      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE);
      assert.deepEqual(await winLines(t, s.player.id), []);
      const [round] = await roundsAt(t, s.provider.id);
      assert.deepEqual({ win: round!.winAmount, status: round!.status }, { win: 0n, status: 1 });

      answered(driver, await send(t, driver, s.provider, win), 'WIN_REFUSED', FUNDS - STAKE);
      const release = await admin.client.post(`/api/admin/held-wins/${hold!.id}/release`, {});
      assert.equal(release.status, 409);
      assert.equal((release.json as { message: string }).message, 'This win was refused already.');
      assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE);
      assert.deepEqual((await heldWins(admin, `?status=2&user_id=${s.player.id}`)).length, 1);
    });

    if (driver.adapter === 'hub88') {
      test('a rollback of a held win’s bet is refused: the stake stays taken until staff decide', async () => {
        const t = ctx();
        const admin = await t.withRole('super-admin');
        await setCeiling(admin, 50);
        const s = await seat(t, driver, FUNDS);
        const win = await betAndWin(t, driver, s, HUGE);
        answered(driver, await send(t, driver, s.provider, win), 'WIN_HELD');
        const rollback = { action: 'refund' as const, transactionId: nextId('rollback'), betTransactionId: win.betTransactionId };
        answered(driver, await send(t, driver, s.provider, rollback), 'BET_SETTLED');
        assert.equal(await balanceOf(t.db, s.player.id), FUNDS - STAKE);
      });
    }
  });
}

ceilingSuite(demoDriver, 'the built-in protocol');
ceilingSuite(hub88Driver(new Hub88Simulator()), 'Hub88');

describe('the win ceiling: settings and review rules', () => {
  const ctx = useApp();

  test('max_win is money: at most two decimals, not negative; a 422 stores nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    for (const bad of [-1, '1.001', 'lots']) {
      const res = await admin.client.put('/api/admin/settings/games', { max_win: bad });
      assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.ok((res.json as { errors: Record<string, string[]> }).errors.max_win);
    }
    assert.equal((await admin.client.put('/api/admin/settings/games', {})).status, 422);
    assert.deepEqual((await admin.client.get('/api/admin/settings/games')).json, { data: { max_win: 0 } });
    await setCeiling(admin, 2500.5);
    assert.deepEqual((await admin.client.get('/api/admin/settings/games')).json, { data: { max_win: 2500.5 } });
  });

  test('a held win whose bet was refunded since cannot be released, only refused', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await setCeiling(admin, 50);
    const s = await seat(t, demoDriver, FUNDS);
    const win = await betAndWin(t, demoDriver, s, 5_001n);
    answered(demoDriver, await send(t, demoDriver, s.provider, win), 'WIN_HELD');
    answered(
      demoDriver,
      await send(t, demoDriver, s.provider, { action: 'refund', transactionId: nextId('refund'), betTransactionId: win.betTransactionId }),
      'OK',
      FUNDS,
    );
    const [hold] = await heldWins(admin, `?user_id=${s.player.id}`);
    const release = await admin.client.post(`/api/admin/held-wins/${hold!.id}/release`, {});
    assert.equal(release.status, 409, release.text);
    assert.equal(
      (release.json as { message: string }).message,
      'The bet was refunded since the win was held: the win can only be refused.',
    );
    assert.equal(await balanceOf(t.db, s.player.id), FUNDS);
    assert.equal((await admin.client.post(`/api/admin/held-wins/${hold!.id}/refuse`, { reason: 'round voided' })).status, 200);
    assert.equal(await balanceOf(t.db, s.player.id), FUNDS);
    // An id naming no held win changes nothing either.
    assert.equal((await admin.client.post(`/api/admin/held-wins/${hold!.id + 1000}/release`, {})).status, 404);
    assert.equal((await admin.client.post(`/api/admin/held-wins/${hold!.id + 1000}/refuse`, { reason: 'x' })).status, 404);
  });
});
