import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, paid, webhook } from './helpers.ts';

describe('payment webhook', () => {
  const ctx = useApp();

  test('the same paid notification sent 10 times credits once; the replays answer 200 as duplicates', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 50);
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await webhook(t, paid(topup)));
    assert.deepEqual(
      answers.map((res) => res.status),
      Array.from({ length: 10 }, () => 200),
    );
    assert.deepEqual(
      answers.map((res) => (res.json as { data: { duplicate: boolean } }).data.duplicate),
      [false, ...Array.from({ length: 9 }, () => true)],
    );
    assert.equal(await balanceOf(t.db, player.id), 5000n);
    assert.equal((await ledgerOf(t.db, player.id)).length, 1);
  });

  test('10 concurrent deliveries of the same notification credit once', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 12.34);
    const answers = await Promise.all(Array.from({ length: 10 }, () => webhook(t, paid(topup))));
    assert.ok(answers.every((res) => res.status === 200));
    assert.equal(answers.filter((res) => !(res.json as { data: { duplicate: boolean } }).data.duplicate).length, 1);
    assert.equal(await balanceOf(t.db, player.id), 1234n);
  });

  test('a tampered body, a wrong secret, a malformed header or no header is 401 and credits nothing', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 10);
    const raw = JSON.stringify(paid(topup));
    const now = Math.floor(Date.now() / 1000);
    const good = (await import('../../src/modules/payments/gateways/sandbox.ts')).sandboxSignature('sandbox-test-secret', raw, now);
    const tampered = raw.replace('"amount":10', '"amount":10.0');
    assert.equal((await webhook(t, tampered, { signature: good })).status, 401);
    assert.equal((await webhook(t, raw, { secret: 'another-secret' })).status, 401);
    // Flip the first hex digit: a changed signature, whatever digit it started with.
    const flipped = good.replace(/v1=(.)/, (_all, digit: string) => `v1=${digit === '0' ? '1' : '0'}`);
    assert.equal((await webhook(t, raw, { signature: flipped })).status, 401);
    assert.equal((await webhook(t, raw, { signature: `t=${now}` })).status, 401);
    assert.equal((await webhook(t, raw, { signature: '' })).status, 401);
    const res = await webhook(t, raw, { signature: good.replace(`t=${now}`, `t=${now + 1}`) });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, { message: 'Invalid signature.' });
    assert.equal(await balanceOf(t.db, player.id), 0n);
  });

  test('a signature older (or further in the future) than 300 seconds is 401', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 10);
    // Margins of tens of seconds: the server reads its own clock a moment later, and one second
    // boundary crossed in between turned `now + 301` into an accepted 300.
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await webhook(t, paid(topup), { at: now - 330 })).status, 401);
    assert.equal((await webhook(t, paid(topup), { at: now + 330 })).status, 401);
    assert.equal(await balanceOf(t.db, player.id), 0n);
    assert.equal((await webhook(t, paid(topup), { at: now - 270 })).status, 200);
    assert.equal(await balanceOf(t.db, player.id), 1000n);
  });

  test('an amount that differs from the top-up is refused with 422 and not credited, also as a string', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 100);
    const res = await webhook(t, paid(topup, 100.01));
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The amount does not match the top-up.',
      errors: { amount: ['The amount does not match the top-up.'] },
    });
    assert.equal((await webhook(t, paid(topup, '99.99'))).status, 422);
    assert.equal(await balanceOf(t.db, player.id), 0n);
    const list = await player.client.get('/api/topups');
    assert.equal((list.json as { data: { status: number }[] }).data[0]!.status, 0);
    // The right amount, written "100.00", is accepted.
    assert.equal((await webhook(t, paid(topup, '100.00'))).status, 200);
    assert.equal(await balanceOf(t.db, player.id), 10000n);
  });

  test('an unknown gateway or payment id is 404; a body it cannot read is 422 after the signature', async () => {
    const t = ctx();
    assert.equal((await webhook(t, { payment_id: 'nope', status: 'paid', amount: 1 }, { gateway: 'acme' })).status, 404);
    assert.equal((await webhook(t, { payment_id: 'SBXunknown', status: 'paid', amount: 1 })).status, 404);
    const bad = await webhook(t, { payment_id: 'SBXunknown', status: 'exploded', amount: -1 });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys((bad.json as { errors: object }).errors), ['status', 'amount']);
    assert.equal((await webhook(t, '{not json')).status, 400);
  });

  test('a cancelled notification cancels a pending top-up; a later paid one is a 409 that credits nothing', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 30);
    const cancelled = await webhook(t, { ...paid(topup), status: 'cancelled' });
    assert.equal(cancelled.status, 200);
    assert.equal((cancelled.json as { data: { status: number } }).data.status, 2);
    const late = await webhook(t, paid(topup));
    assert.equal(late.status, 409);
    assert.equal(await balanceOf(t.db, player.id), 0n);
  });

  test('a payment reported for an expired top-up is credited: the money arrived', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 25);
    await t.db.execute(sql`update topups set created_at = now() - interval '25 hours' where id = ${topup.id}`);
    const before = await player.client.get('/api/topups');
    assert.equal((before.json as { data: { status: number }[] }).data[0]!.status, 3);
    assert.equal((await webhook(t, paid(topup))).status, 200);
    assert.equal(await balanceOf(t.db, player.id), 2500n);
  });

  test('the ledger verifies after every notification above', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});
