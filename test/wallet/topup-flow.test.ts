import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBrCode } from '../../src/modules/payments/brcode.ts';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, paid, putSettings, referredPlayer, webhook, type Topup } from './helpers.ts';

describe('top-up end to end through the sandbox gateway', () => {
  const ctx = useApp();

  test('create, open the payment page, pay by webhook: balance and statement show amount, gift and referral lines', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 2, topped_up_bonus: 1.5, topped_up_bonus_rate: 2.5 });
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    assert.equal(await balanceOf(t.db, referrer.id), 200n);

    const topup = await createTopup(player.client, 100.5);
    assert.equal(topup.status, 0);
    assert.equal(topup.amount, 100.5);
    assert.equal(topup.gift_amount, 0);
    assert.match(topup.payment_url!, /^http:\/\/localhost:8000\/pay\/[A-Za-z0-9]{24}$/);
    const code = parseBrCode(topup.qr_code!);
    assert.equal(code.crcValid, true);
    assert.equal(code.fields.get('54'), '100.50');
    assert.equal(code.additionalData.get('05'), topup.gateway_payment_id);

    const page = await t.app.inject({ method: 'GET', url: new URL(topup.payment_url!).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.ok(page.body.includes(topup.qr_code!));
    assert.match(page.body, /<img class="qr" src="data:image\/svg\+xml;base64,/);

    const res = await webhook(t, paid(topup));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { data: { topup_id: topup.id, status: 1, duplicate: false } });

    // 100.50 + 10 % first-time gift (10.05)
    assert.equal(await balanceOf(t.db, player.id), 11055n);
    assert.deepEqual(
      (await ledgerOf(t.db, player.id)).map((line) => [line.type, line.amount, line.balance_after]),
      [
        ['topup', 10050n, 10050n],
        ['topup_gift', 1005n, 11055n],
      ],
    );
    // sign-up 2.00, then 1.50 + 2.5 % of 100.50 (2.5125 → 2.51)
    assert.deepEqual(
      (await ledgerOf(t.db, referrer.id)).map((line) => [line.type, line.amount, line.balance_after]),
      [
        ['referral_bonus', 200n, 200n],
        ['referral_bonus', 401n, 601n],
      ],
    );

    const list = await player.client.get('/api/topups');
    const mine = (list.json as { data: Topup[] }).data[0]!;
    assert.equal(mine.status, 1);
    assert.equal(mine.gift_amount, 10.05);

    const balance = await player.client.get('/api/user/balance');
    assert.deepEqual((balance.json as { data: { currency: string; amount: number } }).data.amount, 110.55);
    const statement = await player.client.get('/api/transactions');
    const lines = (statement.json as { data: { type: string; amount: number; balance_after: number }[] }).data;
    assert.deepEqual(
      lines.map((line) => [line.type, line.amount, line.balance_after]),
      [
        ['topup_gift', 10.05, 110.55],
        ['topup', 100.5, 100.5],
      ],
    );
    const referral = await referrer.client.get('/api/referral');
    assert.deepEqual(referral.json, {
      data: {
        link: `http://localhost:5173/register?ref=${referrer.id}`,
        referred_users_count: 1,
        referred_paid_users_count: 1,
        referred_users_paid_total: 100.5,
      },
    });
  });

  test('a later payment (the one-statement path) writes the same lines as an admin confirmation', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 1, topped_up_bonus_rate: 0 });
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    await webhook(t, paid(await createTopup(player.client, 10)));
    const byWebhook = await createTopup(player.client, 20);
    await webhook(t, paid(byWebhook));
    const byAdmin = await createTopup(player.client, 20);
    assert.equal((await admin.client.post(`/api/admin/topups/${byAdmin.id}/confirm`)).status, 200);
    const lines = await rows<{
      user_id: string | number;
      type: string;
      amount: string | number;
      reference_id: string | number;
      description: string;
    }>(
      t.db,
      sql`select user_id, type, amount, reference_id, description from ledger_entries where reference_type = 'topup' and reference_id in (${byWebhook.id}, ${byAdmin.id}) order by id`,
    );
    const shape = (id: number) =>
      lines
        .filter((line) => Number(line.reference_id) === id)
        .map((line) => [Number(line.user_id), line.type, BigInt(line.amount), line.description.replace(`#${id}`, '#N')]);
    assert.deepEqual(shape(byWebhook.id), shape(byAdmin.id));
    assert.deepEqual(shape(byWebhook.id), [
      [player.id, 'topup', 2000n, 'Top-up #N'],
      [player.id, 'topup_gift', 100n, 'Gift on top-up #N'],
      [referrer.id, 'referral_bonus', 100n, `Referral reward: top-up #N of user #${player.id}`],
    ]);
  });
});
