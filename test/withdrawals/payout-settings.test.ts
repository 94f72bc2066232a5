// Issue 21, item 7: which payment method pays withdrawals out (docs/api.md section 13b). The
// choice is stored in the database, read by each approval in its own transaction, logged, and
// restricted to gateways that pay out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { lastLog } from '../admin/support.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { closeAccount, efiAccount } from './efi-helpers.ts';
import { dataOf, fund, requestWithdrawal } from './helpers.ts';

interface PayoutSettings {
  payment_method_id: number | null;
  code: string | null;
  gateway: string;
}

const settingsOf = (json: unknown) => (json as { data: PayoutSettings }).data;

describe('the payout method setting', () => {
  const ctx = useApp();
  let admin: SignedIn;
  const asAdmin = async () => (admin ??= await ctx().withRole('super-admin'));

  test('by default the built-in sandbox pays out', async () => {
    const res = await (await asAdmin()).client.get('/api/admin/settings/payouts');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(settingsOf(res.json), { payment_method_id: null, code: null, gateway: 'sandbox' });
  });

  test('an efi method can be chosen: the choice is answered, stored for every instance and logged', async () => {
    const t = ctx();
    const account = await efiAccount(t, (await asAdmin()).client, { choose: false });
    try {
      const res = await admin.client.put('/api/admin/settings/payouts', { payment_method_id: account.methodId });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(settingsOf(res.json), { payment_method_id: account.methodId, code: account.code, gateway: 'efi' });
      assert.deepEqual(settingsOf((await admin.client.get('/api/admin/settings/payouts')).json).payment_method_id, account.methodId);
      const stored = await one<{ payment_method_id: string; updated_by: string }>(
        t.db,
        sql`select payment_method_id, updated_by from payout_settings`,
      );
      assert.deepEqual([Number(stored!.payment_method_id), Number(stored!.updated_by)], [account.methodId, admin.id]);
      const log = await lastLog(t);
      assert.deepEqual(
        [log.method, log.path, log.payload],
        ['PUT', '/api/admin/settings/payouts', { payment_method_id: account.methodId }],
      );
    } finally {
      await admin.client.put('/api/admin/settings/payouts', { payment_method_id: null });
      await closeAccount(account);
    }
  });

  test('a method whose gateway cannot pay out (pix-api) is a 422 on payment_method_id, and nothing changes', async () => {
    const t = ctx();
    const account = await efiAccount(t, (await asAdmin()).client, { choose: false });
    try {
      const changed = await admin.client.put(`/api/admin/payment-methods/${account.methodId}`, { gateway: 'pix-api' });
      assert.equal(changed.status, 200, changed.text);
      const before = await lastLog(t);
      const res = await admin.client.put('/api/admin/settings/payouts', { payment_method_id: account.methodId });
      assert.equal(res.status, 422, res.text);
      assert.match((res.json as { errors: Record<string, string[]> }).errors.payment_method_id![0]!, /cannot pay out/);
      assert.deepEqual(settingsOf((await admin.client.get('/api/admin/settings/payouts')).json).gateway, 'sandbox');
      assert.equal((await lastLog(t)).id, before.id, 'a refused change writes no log row');
    } finally {
      await closeAccount(account);
    }
  });

  test('an unknown method is a 422; a malformed body is a 422; neither changes anything', async () => {
    await asAdmin();
    const unknown = await admin.client.put('/api/admin/settings/payouts', { payment_method_id: 999_999 });
    assert.equal(unknown.status, 422, unknown.text);
    assert.deepEqual(Object.keys((unknown.json as { errors: object }).errors), ['payment_method_id']);
    for (const body of [{}, { payment_method_id: 'efi' }, { payment_method_id: 0 }, { payment_method_id: 1.5 }]) {
      const res = await admin.client.put('/api/admin/settings/payouts', body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.deepEqual(settingsOf((await admin.client.get('/api/admin/settings/payouts')).json).payment_method_id, null);
  });

  test('reading needs settings.view and choosing settings.manage: 401 signed out, 403 for a player', async () => {
    const t = ctx();
    const guest = t.client();
    await guest.csrf();
    assert.equal((await guest.get('/api/admin/settings/payouts')).status, 401);
    assert.equal((await guest.put('/api/admin/settings/payouts', { payment_method_id: null })).status, 401);
    const player = await t.player();
    assert.equal((await player.client.get('/api/admin/settings/payouts')).status, 403);
    assert.equal((await player.client.put('/api/admin/settings/payouts', { payment_method_id: 1 })).status, 403);
    assert.deepEqual(settingsOf((await (await asAdmin()).client.get('/api/admin/settings/payouts')).json).payment_method_id, null);
  });

  test('the sandbox method may be chosen too, and its approvals record it', async () => {
    const t = ctx();
    await asAdmin();
    const res = await admin.client.put('/api/admin/settings/payouts', { payment_method_id: 1 });
    try {
      assert.deepEqual(settingsOf(res.json), { payment_method_id: 1, code: 'pix', gateway: 'sandbox' });
      const player = await t.player();
      await fund(t, player.id, 5_000n);
      const withdrawal = await requestWithdrawal(player.client, 10);
      const approved = dataOf(await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`));
      assert.deepEqual(
        [approved.status, approved.payout_gateway, approved.payout_method_id, approved.payout_state],
        [1, 'sandbox', 1, 'sent'],
      );
    } finally {
      await admin.client.put('/api/admin/settings/payouts', { payment_method_id: null });
    }
  });

  test('the chosen method cannot be deleted (409), and one that stops paying out makes approvals a 409 that changes nothing', async () => {
    const t = ctx();
    const account = await efiAccount(t, (await asAdmin()).client);
    try {
      const deleted = await admin.client.delete(`/api/admin/payment-methods/${account.methodId}`);
      assert.equal(deleted.status, 409, deleted.text);
      assert.match((deleted.json as { message: string }).message, /pays withdrawals out/);
      // Moved to a gateway that takes charges only, after it was chosen.
      assert.equal((await admin.client.put(`/api/admin/payment-methods/${account.methodId}`, { gateway: 'pix-api' })).status, 200);
      const player = await t.player();
      await fund(t, player.id, 5_000n);
      const withdrawal = await requestWithdrawal(player.client, 10);
      const res = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`);
      assert.equal(res.status, 409, res.text);
      assert.match((res.json as { message: string }).message, /cannot pay out/);
      assert.equal(dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`)).status, 0);
      assert.equal(account.efi.requests.length, 0, 'nothing was sent');
    } finally {
      await admin.client.put('/api/admin/settings/payouts', { payment_method_id: null });
      await closeAccount(account);
    }
  });
});
