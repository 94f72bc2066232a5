import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { giftAmount, giftRate, referralTopupReward } from '../../src/modules/topups/rewards.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, NO_GIFTS, paid, putSettings, webhook } from './helpers.ts';

const settings = (first: bigint, rate: bigint, options: [bigint, bigint][] = []) => ({
  giftRateFirstTime: first,
  giftRate: rate,
  options: options.map(([value, optionRate]) => ({ value, rate: optionRate })),
});

describe('gift rule', () => {
  test('first paid top-up uses gift_rate_first_time, later ones gift_rate', () => {
    assert.equal(giftRate(settings(1000n, 500n), 10000n, true), 1000n);
    assert.equal(giftRate(settings(1000n, 500n), 10000n, false), 500n);
  });

  test('an amount equal to an option uses the option rate instead of gift_rate', () => {
    assert.equal(giftRate(settings(1000n, 500n, [[10000n, 800n]]), 10000n, false), 800n);
    assert.equal(giftRate(settings(1000n, 500n, [[10000n, 200n]]), 10000n, false), 200n);
    assert.equal(giftRate(settings(1000n, 500n, [[10000n, 800n]]), 10001n, false), 500n);
  });

  test('on a first top-up an option replaces the first-time rate only when it is larger', () => {
    assert.equal(giftRate(settings(1000n, 500n, [[10000n, 1500n]]), 10000n, true), 1500n);
    assert.equal(giftRate(settings(1000n, 500n, [[10000n, 800n]]), 10000n, true), 1000n);
    assert.equal(giftRate(settings(0n, 0n, [[10000n, 300n]]), 10000n, true), 300n);
  });

  test('rate 0 means no gift, and gifts round half up to the cent', () => {
    assert.equal(giftAmount(settings(0n, 0n), 10000n, true), 0n);
    assert.equal(giftAmount(settings(250n, 0n), 10050n, true), 251n); // 2.5125
    assert.equal(giftAmount(settings(250n, 0n), 10020n, true), 251n); // 2.505 → 2.51
    assert.equal(giftAmount(settings(250n, 0n), 10019n, true), 250n); // 2.50475 → 2.50
  });

  test('referral reward is the fixed part plus the rate part; zeros disable each part', () => {
    assert.equal(referralTopupReward({ bonus: 0n, toppedUpBonus: 150n, toppedUpBonusRate: 250n }, 10050n), 401n);
    assert.equal(referralTopupReward({ bonus: 0n, toppedUpBonus: 0n, toppedUpBonusRate: 250n }, 10050n), 251n);
    assert.equal(referralTopupReward({ bonus: 0n, toppedUpBonus: 150n, toppedUpBonusRate: 0n }, 10050n), 150n);
    assert.equal(referralTopupReward({ bonus: 0n, toppedUpBonus: 0n, toppedUpBonusRate: 0n }, 10050n), 0n);
  });
});

describe('gifts on paid top-ups', () => {
  const ctx = useApp();

  test('no gift settings: only the amount is credited, no gift line', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 40);
    await webhook(t, paid(topup));
    assert.deepEqual(
      (await ledgerOf(t.db, player.id)).map((line) => line.type),
      ['topup'],
    );
    assert.equal(await balanceOf(t.db, player.id), 4000n);
  });

  test('first top-up gets the first-time rate, the second gift_rate, an option amount its option rate', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 20, gift_rate: 5, options: [{ value: 50, rate: 12.5 }] });
    const player = await t.player();
    for (const amount of [100, 100, 50]) await webhook(t, paid(await createTopup(player.client, amount)));
    const gifts = (await ledgerOf(t.db, player.id)).filter((line) => line.type === 'topup_gift').map((line) => line.amount);
    assert.deepEqual(gifts, [2000n, 500n, 625n]);
    const list = await player.client.get('/api/topups');
    assert.deepEqual(
      (list.json as { data: { gift_amount: number }[] }).data.map((topup) => topup.gift_amount),
      [6.25, 5, 20],
    );
    await putSettings(admin.client, 'topup', NO_GIFTS);
  });

  test('a cancelled or unpaid earlier top-up does not use up the first-time gift', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 1, options: [] });
    const player = await t.player();
    const abandoned = await createTopup(player.client, 10);
    assert.equal((await admin.client.put(`/api/admin/topups/${abandoned.id}`, { status: 2 })).status, 200);
    await createTopup(player.client, 10); // left pending
    await webhook(t, paid(await createTopup(player.client, 10)));
    const gifts = (await ledgerOf(t.db, player.id)).filter((line) => line.type === 'topup_gift').map((line) => line.amount);
    assert.deepEqual(gifts, [100n]);
    await putSettings(admin.client, 'topup', NO_GIFTS);
  });

  test('the settings version in force when paid applies, not the one when created; later changes alter nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 1, gift_rate: 1, options: [] });
    const player = await t.player();
    const topup = await createTopup(player.client, 100);
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 30, gift_rate: 30, options: [] });
    await webhook(t, paid(topup));
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 0, gift_rate: 0, options: [] });
    assert.equal(await balanceOf(t.db, player.id), 13000n);
    const detail = await admin.client.get(`/api/admin/topups/${topup.id}`);
    assert.equal((detail.json as { data: { gift_amount: number } }).data.gift_amount, 30);
  });

  test('topup-options lists the options of the settings in force', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await putSettings(admin.client, 'topup', {
      gift_rate_first_time: 0,
      gift_rate: 0,
      options: [
        { value: '20.50', rate: '3.25' },
        { value: 100, rate: 10 },
      ],
    });
    const res = await player.client.get('/api/topup-options');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      data: {
        options: [
          { value: 20.5, rate: 3.25 },
          { value: 100, rate: 10 },
        ],
      },
    });
  });
});
