import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, NO_GIFTS, paid, putSettings, referredPlayer, webhook } from './helpers.ts';

describe('racing confirmations of one top-up', () => {
  const ctx = useApp();

  test('20 concurrent admin confirmations credit once: one 200, nineteen 409', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 0, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 1, topped_up_bonus_rate: 1 });
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    const topup = await createTopup(player.client, 200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => admin.client.post(`/api/admin/topups/${topup.id}/confirm`, { status: 1 })),
    );
    const statuses = answers.map((res) => res.status).sort();
    assert.deepEqual(statuses, [200, ...Array.from({ length: 19 }, () => 409)]);
    const winner = answers.find((res) => res.status === 200)!;
    assert.equal((winner.json as { data: { status: number; gift_amount: number } }).data.status, 1);
    assert.equal((winner.json as { data: { gift_amount: number } }).data.gift_amount, 20);
    assert.deepEqual(answers.find((res) => res.status === 409)!.json, { message: 'The top-up is already paid.' });
    assert.equal(await balanceOf(t.db, player.id), 22000n);
    assert.deepEqual(
      (await ledgerOf(t.db, player.id)).map((line) => line.type),
      ['topup', 'topup_gift'],
    );
    assert.equal(await balanceOf(t.db, referrer.id), 300n);
    // Only the change that happened is in the operation log.
    const logs = await rows(t.db, sql`select 1 from operation_logs where path = ${`/api/admin/topups/${topup.id}/confirm`}`);
    assert.equal(logs.length, 1);
  });

  test('admin confirmations and webhooks racing each other credit once', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', NO_GIFTS);
    const player = await t.player();
    const topup = await createTopup(player.client, 77.7);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0 ? admin.client.put(`/api/admin/topups/${topup.id}`, { status: 1 }) : webhook(t, paid(topup)),
      ),
    );
    assert.ok(
      answers.every((res) => [200, 409].includes(res.status)),
      answers.map((res) => res.status).join(','),
    );
    assert.equal(await balanceOf(t.db, player.id), 7770n);
    assert.equal((await ledgerOf(t.db, player.id)).filter((line) => line.type === 'topup').length, 1);
  });

  test('two top-ups of one user paid at once: only one of them gets the first-time gift', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 50, gift_rate: 0, options: [] });
    const player = await t.player();
    const first = await createTopup(player.client, 10);
    const second = await createTopup(player.client, 10);
    const answers = await Promise.all([webhook(t, paid(first)), webhook(t, paid(second))]);
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200],
    );
    const gifts = (await ledgerOf(t.db, player.id)).filter((line) => line.type === 'topup_gift');
    assert.equal(gifts.length, 1);
    assert.equal(await balanceOf(t.db, player.id), 2500n);
  });

  test('on a later top-up (the one-statement path) webhooks and admins racing still credit once', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 50, gift_rate: 10, options: [] });
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 10)));
    const before = await balanceOf(t.db, player.id);
    const topup = await createTopup(player.client, 40);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0 ? admin.client.post(`/api/admin/topups/${topup.id}/confirm`) : webhook(t, paid(topup)),
      ),
    );
    assert.ok(
      answers.every((res) => [200, 409].includes(res.status)),
      answers.map((res) => res.status).join(','),
    );
    assert.equal((await balanceOf(t.db, player.id)) - before, 4400n);
    await putSettings(admin.client, 'topup', NO_GIFTS);
  });

  test('later top-ups of one user paid at once each get gift_rate, never the first-time rate', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 50, gift_rate: 10, options: [] });
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 10)));
    const topups = [];
    for (let i = 0; i < 6; i++) topups.push(await createTopup(player.client, 10));
    const answers = await Promise.all(topups.map((topup) => webhook(t, paid(topup))));
    assert.ok(answers.every((res) => res.status === 200));
    const gifts = (await ledgerOf(t.db, player.id)).filter((line) => line.type === 'topup_gift').map((line) => line.amount);
    assert.deepEqual(gifts, [500n, 100n, 100n, 100n, 100n, 100n, 100n]);
    await putSettings(admin.client, 'topup', NO_GIFTS);
  });

  test('the ledger verifies after the races', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});
