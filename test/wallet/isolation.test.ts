import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { createTopup, paid, webhook, type Topup } from './helpers.ts';

describe('customers see only their own money records', () => {
  const ctx = useApp();

  test('top-ups, statement, balance and referral numbers are the signed-in user’s only', async () => {
    const t = ctx();
    const alice = await t.player();
    const bob = await t.player();
    const aliceTopup = await createTopup(alice.client, 11);
    await webhook(t, paid(aliceTopup));
    await createTopup(bob.client, 22);

    const aliceList = (await alice.client.get('/api/topups')).json as { data: Topup[]; meta: { total: number } };
    assert.deepEqual(
      aliceList.data.map((topup) => topup.user_id),
      [alice.id],
    );
    const bobList = (await bob.client.get('/api/topups')).json as { data: Topup[]; meta: { total: number } };
    assert.deepEqual(
      bobList.data.map((topup) => [topup.user_id, topup.amount]),
      [[bob.id, 22]],
    );
    // A query parameter cannot widen the list.
    const sneaky = (await bob.client.get(`/api/topups?user_id=${alice.id}&__owner=${alice.id}`)).json as { data: Topup[] };
    assert.ok(sneaky.data.every((topup) => topup.user_id === bob.id));

    const bobStatement = (await bob.client.get('/api/transactions')).json as { data: unknown[]; meta: { total: number } };
    assert.deepEqual([bobStatement.data, bobStatement.meta.total], [[], 0]);
    const aliceStatement = (await alice.client.get(`/api/transactions?user_id=${bob.id}`)).json as { data: { user_id: number }[] };
    assert.deepEqual(
      aliceStatement.data.map((line) => line.user_id),
      [alice.id],
    );
    assert.deepEqual((await bob.client.get('/api/user/balance')).json, { data: { currency: 'BRL', amount: 0, balances: [] } });
    const aliceBalance = (await alice.client.get('/api/user/balance')).json as {
      data: { amount: number; balances: { user_id: number }[] };
    };
    assert.equal(aliceBalance.data.amount, 11);
    assert.deepEqual(
      aliceBalance.data.balances.map((balance) => balance.user_id),
      [alice.id],
    );
  });

  test('guests get 401 on every customer wallet endpoint', async () => {
    const guest = ctx().client();
    for (const path of [
      '/api/topups',
      '/api/transactions',
      '/api/user/balance',
      '/api/referral',
      '/api/topup-options',
      '/api/payment-methods',
    ]) {
      assert.equal((await guest.get(path)).status, 401, path);
    }
  });

  test('the statement filters by type and dates and pages like a Laravel resource collection', async () => {
    const t = ctx();
    const player = await t.player();
    for (const amount of [1, 2, 3]) await webhook(t, paid(await createTopup(player.client, amount)));
    const page = await player.client.get('/api/transactions?per_page=2&page=2&type=topup');
    assert.equal(page.status, 200);
    const body = page.json as { data: { amount: number }[]; links: Record<string, string | null>; meta: Record<string, unknown> };
    assert.deepEqual(
      body.data.map((line) => line.amount),
      [1],
    );
    assert.deepEqual(body.meta, {
      current_page: 2,
      from: 3,
      last_page: 2,
      path: 'http://localhost:8000/api/transactions',
      per_page: 2,
      to: 3,
      total: 3,
    });
    assert.equal(body.links.prev, 'http://localhost:8000/api/transactions?page=1&per_page=2');
    const count = async (query: string) =>
      ((await player.client.get(`/api/transactions?${query}`)).json as { data: unknown[] }).data.length;
    assert.equal(await count('type=topup_gift'), 0);
    assert.equal(await count('to=2000-01-01'), 0);
    assert.equal(await count(`from=${new Date().toISOString().slice(0, 10)}`), 3);
    assert.equal((await player.client.get('/api/transactions?type=bogus')).status, 422);
  });
});
