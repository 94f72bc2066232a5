import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { transaction } from '../../src/platform/db/client.ts';
import { insertSettingsVersion } from '../../src/modules/settings/repository.ts';
import { useApp, type Client, type TestApp } from '../helpers/app.ts';
import { createTopup, ledgerOf, paid, putSettings, referredPlayer, webhook } from '../wallet/helpers.ts';
import { identityBody, setLimits } from './support.ts';

const errorsOf = (json: unknown) => (json as { errors: Record<string, string[]> }).errors;
const ART_29 = 'is not allowed under Law 14.790/2023, art. 29.';

/** Gifts and referral rewards stored as they were before REGULATION=br, behind the PUT's back. */
async function storeBonuses(t: TestApp, adminId: number): Promise<void> {
  await transaction(t.db, async (tx) => {
    await insertSettingsVersion(tx, 'referral', { bonus: 500, topped_up_bonus: 100, topped_up_bonus_rate: 1000 }, adminId);
    await insertSettingsVersion(
      tx,
      'topup',
      { gift_rate_first_time: 5000, gift_rate: 1000, options: [{ value: 5000, rate: 2000 }] },
      adminId,
    );
  });
}

/** A referred player (verified under br), a top-up of 50.00 paid by the sandbox: the lines it wrote, the referrer's too. */
async function referredTopup(t: TestApp, admin: Client, referrerId: number) {
  const referred = await referredPlayer(t, referrerId);
  const identity = identityBody();
  if (t.config.regulation === 'br') {
    assert.equal((await referred.client.put('/api/user/identity', identity)).status, 200);
    assert.equal((await admin.post(`/api/admin/users/${referred.id}/identity/approve`)).status, 200);
    await setLimits(referred.client);
  }
  const topup = await createTopup(referred.client, 50);
  // Under br the sandbox states who paid: the player's own CPF (own-account-topups.test.ts).
  assert.equal((await webhook(t, { ...paid(topup), payer_cpf: identity.cpf })).status, 200);
  const types = async (id: number) => (await ledgerOf(t.db, id)).map((line) => `${line.type} ${line.amount}`);
  return { player: await types(referred.id), referrer: await types(referrerId) };
}

describe('REGULATION=br: no bonuses (Law 14.790/2023, art. 29)', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('the settings PUT refuses every nonzero referral reward, gift rate and option rate, on its field', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const referral = await admin.put('/api/admin/settings/referral', { bonus: 5, topped_up_bonus: 0, topped_up_bonus_rate: 0.5 });
    assert.equal(referral.status, 422);
    assert.deepEqual(errorsOf(referral.json), {
      bonus: [`The bonus ${ART_29}`],
      topped_up_bonus_rate: [`The topped up bonus rate ${ART_29}`],
    });
    const topup = await admin.put('/api/admin/settings/topup', {
      gift_rate_first_time: 0,
      gift_rate: 10,
      options: [
        { value: 20, rate: 0 },
        { value: 50, rate: 5 },
      ],
    });
    assert.deepEqual(errorsOf(topup.json), { gift_rate: [`The gift rate ${ART_29}`], 'options.1.rate': [`The options.1.rate ${ART_29}`] });
    // Zero is allowed, and options may still suggest amounts.
    await putSettings(admin, 'referral', { bonus: 0, topped_up_bonus: 0, topped_up_bonus_rate: 0 });
    await putSettings(admin, 'topup', { gift_rate_first_time: 0, gift_rate: 0, options: [{ value: 20, rate: 0 }] });
  });

  test('bonuses stored earlier are not applied: no gift, no referral line at sign-up or top-up, and the admin sees 0', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await storeBonuses(t, admin.id);
    const referrer = await t.player();
    const lines = await referredTopup(t, admin.client, referrer.id);
    assert.deepEqual(lines, { player: ['topup 5000'], referrer: [] });
    const shown = (await admin.client.get('/api/admin/settings/topup')).json as { data: Record<string, unknown> };
    assert.deepEqual(shown.data, { gift_rate_first_time: 0, gift_rate: 0, options: [{ value: 50, rate: 0 }] });
    const referral = (await admin.client.get('/api/admin/settings/referral')).json as { data: Record<string, unknown> };
    assert.deepEqual(referral.data, { bonus: 0, topped_up_bonus: 0, topped_up_bonus_rate: 0 });
    const offered = await (await t.player()).client.get('/api/topup-options');
    assert.deepEqual([offered.status, offered.json], [200, { data: { options: [{ value: 50, rate: 0 }] } }]);
  });
});

describe('REGULATION=none: the same stored bonuses are paid, as before', () => {
  const ctx = useApp({});

  test('the gift, the referral reward at sign-up and at the top-up', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await storeBonuses(t, admin.id);
    const referrer = await t.player();
    const lines = await referredTopup(t, admin.client, referrer.id);
    // The first paid top-up: the first-time rate (50 %) beats the option's 20 %. The referrer:
    // the sign-up bonus, then 1.00 + 10 % of 50.00.
    assert.deepEqual(lines, { player: ['topup 5000', 'topup_gift 2500'], referrer: ['referral_bonus 500', 'referral_bonus 600'] });
  });
});
