import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';

// docs/api.md section 3: the record named in the path is looked up before the body is validated,
// as Laravel's route model binding does; a missing one is a 404 whatever the body.
describe('the record in the path is looked up before the body is validated', () => {
  const ctx = useApp();

  for (const [method, path, body] of [
    ['PUT', '/api/admin/topups/987654321', { status: 'paid' }],
    ['POST', '/api/admin/balances/987654321/adjust', { amount: 'lots' }],
    ['POST', '/api/admin/withdrawals/987654321/reject', {}],
    ['POST', '/api/admin/withdrawals/987654321/approve', {}],
    ['PATCH', '/api/admin/banks/987654321', { code: '' }],
  ] as const) {
    test(`${method} ${path.replace('987654321', ':missing')} with an invalid body is 404`, async () => {
      const { client } = await ctx().withRole('super-admin');
      const res = await client.request(method, path, body);
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.json, { message: 'Not found.' });
    });
  }

  test('the same invalid body on a record that exists is a 422', async () => {
    const t = ctx();
    const { client } = await t.withRole('super-admin');
    const bank = await client.post('/api/admin/banks', { name: 'Banco', code: 'bco', currenry: 'BRL' });
    assert.equal(bank.status, 201, bank.text);
    const res = await client.patch(`/api/admin/banks/${(bank.json as { data: { id: number } }).data.id}`, { code: '' });
    assert.equal(res.status, 422, res.text);
  });

  test('a guest is still refused before the record is looked up (401, not 404)', async () => {
    const guest = ctx().client();
    await guest.csrf();
    const res = await guest.post('/api/admin/withdrawals/987654321/reject', {});
    assert.equal(res.status, 401);
  });
});
