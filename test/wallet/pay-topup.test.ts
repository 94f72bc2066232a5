import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { markTopupPaid, preparePayTopup, SettingsInForce } from '../../src/modules/topups/mark-paid.ts';
import { topupStatusCodes } from '../../src/modules/topups/repository.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { one, rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, NO_GIFTS, NO_REFERRAL, paid, putSettings, referredPlayer, webhook } from './helpers.ts';

interface TopupSettingsIds {
  topup_settings_id: number | string | null;
  referral_settings_id: number | string | null;
}

describe('the one paid path (pay_topup)', () => {
  const ctx = useApp();

  const latest = async (name: string) =>
    Number((await one<{ id: number | string }>(ctx().db, sql`select max(id) as id from settings where name = ${name}`))!.id);
  const settingsOf = async (topupId: number) => {
    const row = (await one<TopupSettingsIds>(
      ctx().db,
      sql`select topup_settings_id, referral_settings_id from topups where id = ${topupId}`,
    ))!;
    return { topup_settings_id: Number(row.topup_settings_id), referral_settings_id: Number(row.referral_settings_id) };
  };
  /** An operator, and a player with a pending top-up of 10.00. */
  const scene = async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    return { t, admin, player, topup: await createTopup(player.client, 10) };
  };

  afterEach(async () => {
    const admin = await ctx().withRole('super-admin');
    await putSettings(admin.client, 'topup', NO_GIFTS);
    await putSettings(admin.client, 'referral', NO_REFERRAL);
  });

  test('a payment writes the amount, gift and referral lines with their keys, references and descriptions, creating missing balances', async () => {
    const { t, admin, player: referrer } = await scene();
    const player = await referredPlayer(t, referrer.id);
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 0, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 1, topped_up_bonus_rate: 0 });
    const topup = await createTopup(player.client, 30);
    assert.equal((await webhook(t, paid(topup))).status, 200);
    const lines = await rows<Record<string, unknown>>(
      t.db,
      sql`select user_id, type, amount, balance_after, reference_type, reference_id, description, idempotency_key
        from ledger_entries where reference_type = 'topup' and reference_id = ${topup.id} order by id`,
    );
    const id = topup.id;
    assert.deepEqual(
      lines.map((line) => [Number(line.user_id), line.type, BigInt(line.amount as string), BigInt(line.balance_after as string)]),
      [
        [player.id, 'topup', 3000n, 3000n],
        [player.id, 'topup_gift', 300n, 3300n],
        [referrer.id, 'referral_bonus', 100n, 100n],
      ],
    );
    assert.deepEqual(
      lines.map((line) => [line.idempotency_key, line.description]),
      [
        [`topup:${id}`, `Top-up #${id}`],
        [`topup:${id}:gift`, `Gift on top-up #${id}`],
        [`topup:${id}:referral`, `Referral reward: top-up #${id} of user #${player.id}`],
      ],
    );
    assert.deepEqual(await settingsOf(id), { topup_settings_id: await latest('topup'), referral_settings_id: await latest('referral') });
  });

  test('settings changed after the webhook last read them apply to the next payment', async () => {
    const { t, admin, player, topup: first } = await scene();
    // This payment makes the webhook read (and keep) the settings in force: no gifts.
    assert.equal((await webhook(t, paid(first))).status, 200);
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 50, gift_rate: 20, options: [] });
    const topup = await createTopup(player.client, 10);
    assert.equal((await webhook(t, paid(topup))).status, 200);
    assert.equal(await balanceOf(t.db, player.id), 2200n);
    assert.equal((await settingsOf(topup.id)).topup_settings_id, await latest('topup'));
  });

  test('a replayed notification after a settings change moves nothing and answers a duplicate', async () => {
    const { t, admin, player, topup } = await scene();
    assert.equal((await webhook(t, paid(topup))).status, 200);
    const recorded = await settingsOf(topup.id);
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 50, gift_rate: 50, options: [] });
    const replay = await webhook(t, paid(topup));
    assert.deepEqual(replay.json, { data: { topup_id: topup.id, status: 1, duplicate: true } });
    assert.equal(await balanceOf(t.db, player.id), 1000n);
    assert.deepEqual(await settingsOf(topup.id), recorded);
  });

  test('settings replaced between reading them and paying are read again and applied (as in an admin change)', async () => {
    const { t, admin, player, topup } = await scene();
    const settings = new SettingsInForce(t.db);
    await settings.get();
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 25, gift_rate: 25, options: [] });
    const outcome = await markTopupPaid(preparePayTopup(t.db), settings, {
      target: { id: topup.id, amount: 1000n },
      via: 'admin',
      actorId: admin.id,
      allowExpired: false,
    });
    // The lines it wrote come back (the metrics count them): the gift under the new settings, no referrer.
    assert.deepEqual(outcome, { outcome: 'paid', topupId: topup.id, via: 'admin', amount: 1000n, gift: 250n, referralReward: 0n });
    assert.equal(await balanceOf(t.db, player.id), 1250n);
    assert.equal((await settingsOf(topup.id)).topup_settings_id, await latest('topup'));
  });

  test('pay_topup with settings versions no longer in force answers stale and changes nothing', async () => {
    const { t, admin, player, topup } = await scene();
    const old = await latest('topup');
    await putSettings(admin.client, 'topup', NO_GIFTS);
    const answer = await one<{ outcome: string; status: number }>(
      t.db,
      sql`select outcome, status from pay_topup(${topup.id}::bigint, null, null, 1000::bigint, 'admin', ${admin.id}::bigint, false,
        ${old}::bigint, ${await latest('referral')}::bigint, 0::bigint, 0::bigint, 0::bigint, ${topupStatusCodes('pending', 'paid', 'expired')})`,
    );
    assert.deepEqual({ ...answer, status: Number(answer!.status) }, { outcome: 'stale', status: 0 });
    const detail = await admin.client.get(`/api/admin/topups/${topup.id}`);
    assert.equal((detail.json as { data: { status: number } }).data.status, 0);
    assert.equal(await balanceOf(t.db, player.id), 0n);
    const counters = await rows(t.db, sql`select 1 from topup_counters where user_id = ${player.id}`);
    assert.equal(counters.length, 0);
  });

  /** The lines of one top-up as [user, type, amount, balance_after], in id order. */
  const linesOf = async (topupId: number) =>
    (
      await rows<{ user_id: string | number; type: string; amount: string | number; balance_after: string | number }>(
        ctx().db,
        sql`select user_id, type, amount, balance_after from ledger_entries
          where reference_type = 'topup' and reference_id = ${topupId} order by id`,
      )
    ).map((line) => [Number(line.user_id), line.type, BigInt(line.amount), BigInt(line.balance_after)]);
  /** Gifts of 10 % (first) and 5 % (later), and a reward of 1.00 per payment. */
  const giftsAndRewards = async (admin: { client: Parameters<typeof putSettings>[0] }) => {
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 1, topped_up_bonus_rate: 0 });
  };
  /** A top-up of `amount` paid by webhook. */
  const payTopup = async (player: { client: Parameters<typeof createTopup>[0] }, amount: number) => {
    const topup = await createTopup(player.client, amount);
    assert.equal((await webhook(ctx(), paid(topup))).status, 200);
    return topup;
  };

  test('a later payment credits the amount, the gift and the reward on balances that exist, each line after the one before', async () => {
    const { t, admin, player: referrer } = await scene();
    await giftsAndRewards(admin);
    const player = await referredPlayer(t, referrer.id);
    await payTopup(player, 10);
    const topup = await payTopup(player, 20);
    // 10.00 + 1.00 first-time gift, then 20.00 + 1.00; the referrer 1.00 per payment.
    assert.deepEqual(await linesOf(topup.id), [
      [player.id, 'topup', 2000n, 3100n],
      [player.id, 'topup_gift', 100n, 3200n],
      [referrer.id, 'referral_bonus', 100n, 200n],
    ]);
    assert.equal(await balanceOf(t.db, player.id), 3200n);
    assert.equal(await balanceOf(t.db, referrer.id), 200n);
  });

  test("a later payment whose referrer has no balance yet opens it with the reward, after the player's lines", async () => {
    const { t, admin, player: referrer } = await scene();
    const player = await referredPlayer(t, referrer.id);
    // The first payment without rewards: the player's balance exists, the referrer's does not.
    await payTopup(player, 10);
    assert.equal(await balanceOf(t.db, referrer.id), 0n);
    await giftsAndRewards(admin);
    const topup = await payTopup(player, 20);
    assert.deepEqual(await linesOf(topup.id), [
      [player.id, 'topup', 2000n, 3000n],
      [player.id, 'topup_gift', 100n, 3100n],
      [referrer.id, 'referral_bonus', 100n, 100n],
    ]);
    assert.equal(await balanceOf(t.db, referrer.id), 100n);
  });

  test('a player who is their own referrer gets the reward on their own balance, after the gift', async () => {
    const { t, admin, player } = await scene();
    await giftsAndRewards(admin);
    await payTopup(player, 10);
    await t.db.execute(sql`update users set ref = id where id = ${player.id}`);
    const topup = await payTopup(player, 20);
    assert.deepEqual(await linesOf(topup.id), [
      [player.id, 'topup', 2000n, 3100n],
      [player.id, 'topup_gift', 100n, 3200n],
      [player.id, 'referral_bonus', 100n, 3300n],
    ]);
    assert.equal(await balanceOf(t.db, player.id), 3300n);
  });

  test("a payment whose amount line's key was used before replays that line and writes the others, as ledger_apply does", async () => {
    const { t, admin, player: referrer } = await scene();
    await giftsAndRewards(admin);
    const player = await referredPlayer(t, referrer.id);
    await payTopup(player, 10);
    const topup = await createTopup(player.client, 20);
    // The same movement under the amount line's key, written before the payment arrives.
    await t.db.execute(
      sql`select ledger_apply(${player.id}::bigint, 'BRL', 'topup', 2000::bigint, 'topup', ${topup.id}::bigint,
        ${`Top-up #${topup.id}`}, ${`topup:${topup.id}`})`,
    );
    const before = await balanceOf(t.db, player.id);
    const answer = await webhook(t, paid(topup));
    assert.deepEqual(answer.json, { data: { topup_id: topup.id, status: 1, duplicate: false } });
    assert.deepEqual(await linesOf(topup.id), [
      [player.id, 'topup', 2000n, before],
      [player.id, 'topup_gift', 100n, before + 100n],
      [referrer.id, 'referral_bonus', 100n, 200n],
    ]);
    assert.equal(await balanceOf(t.db, player.id), before + 100n);
  });

  test('the ledger verifies after every payment above', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});
