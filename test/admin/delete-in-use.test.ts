import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { deleteRules } from '../../src/platform/admin/in-use.ts';
import { one, rows } from '../../src/platform/db/client.ts';
import { betOk, insertGame, ManualClock, openDraw } from '../draws/helpers.ts';
import { createProvider, demoDriver, send } from '../games/helpers.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { countLogs } from './support.ts';

interface Reference {
  referrer: string;
  constraint: string;
  on_delete: string;
}

/** The foreign keys that refer to `table`, by what they do on delete (pg_constraint.confdeltype). */
async function references(t: TestApp, table: string): Promise<Reference[]> {
  return rows<Reference>(
    t.db,
    sql`select conrelid::regclass::text as referrer, conname as "constraint", confdeltype as on_delete
      from pg_constraint where contype = 'f' and confrelid = ${table}::regclass and conrelid <> confrelid order by 1, 2`,
  );
}

/**
 * The tables whose rows keep a row of `table` from being deleted: a key that restricts the delete
 * (r: RESTRICT, a: NO ACTION), also behind a key that cascades it to a row that is itself kept.
 */
async function keepers(t: TestApp, table: string, seen = new Set<string>()): Promise<Reference[]> {
  seen.add(table);
  const found: Reference[] = [];
  for (const reference of await references(t, table)) {
    if (reference.on_delete === 'r' || reference.on_delete === 'a') found.push(reference);
    else if (reference.on_delete === 'c' && !seen.has(reference.referrer)) found.push(...(await keepers(t, reference.referrer, seen)));
  }
  return found;
}

describe('deleting a record that other records refer to', () => {
  const clock = new ManualClock('2026-11-27T12:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('every admin delete words a 409 for each table whose foreign key keeps its records, and no other', async () => {
    const t = ctx();
    const declared = deleteRules(t.app);
    assert.ok(declared.length >= 10, `the admin deletes are known (${declared.map((rule) => rule.path).join(', ')})`);
    for (const rule of declared) {
      const kept = await keepers(t, rule.table);
      for (const { referrer, constraint } of kept) {
        assert.ok(rule.inUse?.keptBy[referrer] !== undefined, `${rule.path}: ${constraint} on ${referrer} keeps its records; say so`);
      }
      const keeping = new Set(kept.map((reference) => reference.referrer));
      for (const referrer of Object.keys(rule.inUse?.keptBy ?? {})) {
        assert.ok(keeping.has(referrer), `${rule.path}: no foreign key of ${referrer} keeps its records`);
      }
    }
  });

  test('an in-house game with draws and bets is a 409 that says so and to disable it; the game, its draw and the log stay as they were', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, game.code);
    const logs = await countLogs(t);

    const withDraw = await admin.client.delete(`/api/admin/games/${game.id}`);
    assert.deepEqual([withDraw.status, withDraw.json], [409, { message: 'The game has draws and cannot be deleted; disable it instead.' }]);
    await betOk(player.client, game.code, 'big', 1);
    const withBet = await admin.client.delete(`/api/admin/games/${game.id}`);
    assert.equal(withBet.status, 409, withBet.text);
    assert.match((withBet.json as { message: string }).message, /^The game has (draws|bets) and cannot be deleted; disable it instead\.$/);

    assert.equal((await admin.client.get(`/api/admin/games/${game.id}`)).status, 200);
    assert.equal((await admin.client.get(`/api/admin/draws/${draw.id}`)).status, 200);
    assert.equal(await countLogs(t), logs, 'a refused delete writes no operation-log row');
    const disabled = await admin.client.put(`/api/admin/games/${game.id}`, { status: 0 });
    assert.equal(disabled.status, 200, 'what the message advises works');
  });

  test('a provider with no games but a recorded wallet call is kept: the call has no foreign key, it is looked up', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const provider = await createProvider(t);
    // A refund of a bet never seen: recorded (as the bet's tombstone) with no session and no game.
    const refund = await send(t, demoDriver, provider, { action: 'refund', transactionId: 'r-1', betTransactionId: 'b-1' });
    assert.equal(refund.res.status, 200, refund.res.text);
    const calls = async () =>
      (await one<{ n: number }>(t.db, sql`select count(*)::int as n from provider_transactions where provider_id = ${provider.id}`))!.n;
    const recorded = await calls();

    const res = await admin.client.delete(`/api/admin/providers/${provider.id}`);
    assert.deepEqual(
      [res.status, res.json],
      [409, { message: 'The provider has wallet transactions and cannot be deleted; disable it instead.' }],
    );
    assert.equal((await admin.client.get(`/api/admin/providers/${provider.id}`)).status, 200);
    assert.ok(recorded > 0);
    assert.equal(await calls(), recorded);
  });

  test('a user with money is a 409 naming the balance; one who only signed up is deleted with their sessions and roles', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const rich = await t.player();
    await fund(t, rich.id, 500n);
    const kept = await admin.client.delete(`/api/admin/users/${rich.id}`);
    assert.deepEqual([kept.status, kept.json], [409, { message: 'The user has a balance and cannot be deleted; disable it instead.' }]);
    assert.equal((await rich.client.get('/api/user')).status, 200, 'still signed in');

    const fresh = await t.player();
    assert.equal((await admin.client.delete(`/api/admin/users/${fresh.id}`)).status, 204);
    const left = await one<{ n: number }>(
      t.db,
      sql`select (select count(*) from sessions where user_id = ${fresh.id}) + (select count(*) from role_user where user_id = ${fresh.id}) as n`,
    );
    assert.equal(Number(left!.n), 0);
  });

  test('a role held by users is deleted with its links: links are not history', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const created = await admin.client.post('/api/admin/roles', { name: 'cashier', permissions: ['topups.view'] });
    assert.equal(created.status, 201, created.text);
    const role = (created.json as { data: { id: number } }).data;
    const holder = await t.player();
    assert.equal((await admin.client.put(`/api/admin/users/${holder.id}`, { roles: ['player', 'cashier'] })).status, 200);

    assert.equal((await admin.client.delete(`/api/admin/roles/${role.id}`)).status, 204);
    const user = await admin.client.get(`/api/admin/users/${holder.id}`);
    assert.deepEqual((user.json as { data: { roles: string[] } }).data.roles, ['player']);
  });
});
