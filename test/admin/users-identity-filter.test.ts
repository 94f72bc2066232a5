import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { identityBody } from '../regulation/support.ts';
import { page } from './support.ts';

describe('GET /api/admin/users?identity_status=', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('lists only the users whose identity stands so; an unknown status is 422', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const unverified = await t.player();
    const pending = await t.player();
    const verified = await t.player();
    const rejected = await t.player();
    for (const player of [pending, verified, rejected]) {
      assert.equal((await player.client.put('/api/user/identity', identityBody())).status, 200);
    }
    assert.equal((await admin.post(`/api/admin/users/${verified.id}/identity/approve`)).status, 200);
    assert.equal((await admin.post(`/api/admin/users/${rejected.id}/identity/reject`, { reason: 'Blurred.' })).status, 200);
    const mine = new Set([unverified.id, pending.id, verified.id, rejected.id]);

    for (const [status, expected] of [
      ['unverified', unverified],
      ['pending', pending],
      ['verified', verified],
      ['rejected', rejected],
    ] as const) {
      const res = await admin.get(`/api/admin/users?identity_status=${status}&per_page=100`);
      assert.equal(res.status, 200, res.text);
      const list = page<{ id: number; identity_status: string }>(res.json).data;
      assert.deepEqual(
        list.filter((user) => mine.has(user.id)).map((user) => user.id),
        [expected.id],
        status,
      );
      assert.ok(list.every((user) => user.identity_status === status));
    }
    const bad = await admin.get('/api/admin/users?identity_status=approved');
    assert.deepEqual(
      [bad.status, bad.json],
      [
        422,
        { message: 'The selected identity status is invalid.', errors: { identity_status: ['The selected identity status is invalid.'] } },
      ],
    );
  });
});
