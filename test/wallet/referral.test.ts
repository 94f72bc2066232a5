import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, NO_REFERRAL, paid, putSettings, referredPlayer, webhook } from './helpers.ts';

describe('referral rewards', () => {
  const ctx = useApp();

  test('with bonus 0 a registration with ref pays nothing', async () => {
    const t = ctx();
    const referrer = await t.player();
    await referredPlayer(t, referrer.id);
    assert.deepEqual(await ledgerOf(t.db, referrer.id), []);
  });

  test('each registration with ref pays the referrer the bonus once, as its own referral_bonus line', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'referral', { bonus: 5, topped_up_bonus: 0, topped_up_bonus_rate: 0 });
    const referrer = await t.player();
    const first = await referredPlayer(t, referrer.id);
    const second = await referredPlayer(t, referrer.id);
    const lines = await ledgerOf(t.db, referrer.id);
    assert.deepEqual(
      lines.map((line) => [line.type, line.amount, line.reference_type, line.reference_id]),
      [
        ['referral_bonus', 500n, 'user', first.id],
        ['referral_bonus', 500n, 'user', second.id],
      ],
    );
    // A user without ref pays nobody.
    await t.player();
    assert.equal((await ledgerOf(t.db, referrer.id)).length, 2);
    await putSettings(admin.client, 'referral', NO_REFERRAL);
  });

  test('each paid top-up of a referred user pays topped_up_bonus plus topped_up_bonus_rate % of the amount', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 1, topped_up_bonus_rate: 3.33 });
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    await webhook(t, paid(await createTopup(player.client, 10)));
    await webhook(t, paid(await createTopup(player.client, 33.33)));
    // 1.00 + 0.333 → 1.33; 1.00 + 1.109889 → 2.11
    assert.deepEqual(
      (await ledgerOf(t.db, referrer.id)).map((line) => [line.type, line.amount, line.reference_type]),
      [
        ['referral_bonus', 133n, 'topup'],
        ['referral_bonus', 211n, 'topup'],
      ],
    );
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 0, topped_up_bonus_rate: 0 });
    await webhook(t, paid(await createTopup(player.client, 50)));
    assert.equal((await ledgerOf(t.db, referrer.id)).length, 2);
    assert.equal(await balanceOf(t.db, referrer.id), 344n);
  });

  test('rate only and fixed only each pay their part', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 0, topped_up_bonus_rate: 10 });
    await webhook(t, paid(await createTopup(player.client, 25)));
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 2, topped_up_bonus_rate: 0 });
    await webhook(t, paid(await createTopup(player.client, 25)));
    assert.deepEqual(
      (await ledgerOf(t.db, referrer.id)).map((line) => line.amount),
      [250n, 200n],
    );
    await putSettings(admin.client, 'referral', NO_REFERRAL);
  });

  test('GET /api/referral counts referred users, those who paid, and what they paid', async () => {
    const t = ctx();
    const referrer = await t.player();
    const payer = await referredPlayer(t, referrer.id);
    const idle = await referredPlayer(t, referrer.id);
    await referredPlayer(t, referrer.id);
    await webhook(t, paid(await createTopup(payer.client, 10.5)));
    await webhook(t, paid(await createTopup(payer.client, 20)));
    await createTopup(idle.client, 99); // pending: not counted
    const res = await referrer.client.get('/api/referral');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      data: {
        link: `http://localhost:5173/register?ref=${referrer.id}`,
        referred_users_count: 3,
        referred_paid_users_count: 1,
        referred_users_paid_total: 30.5,
      },
    });
    const none = await payer.client.get('/api/referral');
    assert.deepEqual((none.json as { data: { referred_users_count: number } }).data.referred_users_count, 0);
  });
});
