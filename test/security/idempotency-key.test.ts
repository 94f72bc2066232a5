import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { insertGame, ManualClock } from '../draws/helpers.ts';
import { useApp, type Client, type SignedIn } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund, withdrawalBody } from '../withdrawals/helpers.ts';

/** What Idempotency-Key headers clients send that are not keys (docs: 1 to 100 printable ASCII, no spaces). */
const MALFORMED: Record<string, string> = {
  'an empty key': '',
  'a key with a space': 'retry 1',
  'a key sent twice (joined as "a, b")': 'a, b',
  'a key over 100 characters': 'k'.repeat(101),
  'a key that is not ASCII': 'chav\u00e9',
  'a key with a tab': 'a\tb',
};

const REFUSAL = {
  message: 'The Idempotency-Key header must be 1 to 100 printable characters without spaces.',
  errors: { idempotency_key: ['The Idempotency-Key header must be 1 to 100 printable characters without spaces.'] },
};

interface KeyedRoute {
  /** The documented path, as /docs/json names it. */
  documented: string;
  send(key: string | undefined): ReturnType<Client['post']>;
}

describe('one Idempotency-Key rule on every route that takes one', () => {
  const clock = new ManualClock('2026-11-27T12:00:00.000Z');
  const ctx = useApp({}, { clock });
  let admin: SignedIn;
  let player: SignedIn;
  let routes: KeyedRoute[];

  before(async () => {
    const t = ctx();
    admin = await t.withRole('super-admin');
    player = await t.player();
    await fund(t, player.id, 100_000n);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const balances = await admin.client.get(`/api/admin/balances?user_id=${player.id}`);
    const balanceId = (balances.json as { data: { id: number }[] }).data[0]!.id;
    const headers = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { 'idempotency-key': key });
    routes = [
      {
        documented: '/api/admin/balances/{balance}/adjust',
        send: (key) => admin.client.post(`/api/admin/balances/${balanceId}/adjust`, { amount: -1, reason: 'fee' }, headers(key)),
      },
      { documented: '/api/withdrawals', send: (key) => player.client.post('/api/withdrawals', withdrawalBody(1), headers(key)) },
      {
        documented: '/api/games/{game}/bets',
        send: (key) => player.client.post(`/api/games/${game.code}/bets`, { selection: 'big', amount: 1 }, headers(key)),
      },
    ];
  });

  test('the routes that document the header are exactly these', async () => {
    const doc = (await ctx().client().get('/docs/json')).json as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
    };
    const keyed = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.values(methods).some((operation) => operation.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key'))
        ? [path]
        : [],
    );
    assert.deepEqual(keyed.sort(), routes.map((route) => route.documented).sort());
  });

  for (const [what, key] of Object.entries(MALFORMED)) {
    test(`${what}: a 422 on idempotency_key on each of them, and no money moves`, async () => {
      const t = ctx();
      const lines = (await ledgerOf(t.db, player.id)).length;
      for (const route of routes) {
        const res = await route.send(key);
        assert.deepEqual([res.status, res.json], [422, REFUSAL], `${route.documented}: ${res.text}`);
      }
      assert.equal((await ledgerOf(t.db, player.id)).length, lines);
    });
  }

  test('a retry with a well-formed key of 100 characters moves money once; without a key, each request is its own', async () => {
    const t = ctx();
    for (const route of routes) {
      const key = `${route.documented.length}`.padEnd(100, '~');
      const before = await balanceOf(t.db, player.id);
      const [first, retry] = [await route.send(key), await route.send(key)];
      assert.ok([200, 201].includes(first.status), `${route.documented}: ${first.text}`);
      assert.equal(retry.status, first.status, `${route.documented}: ${retry.text}`);
      assert.equal(await balanceOf(t.db, player.id), before - 100n, `${route.documented} moved 1.00 once`);
      const [third, fourth] = [await route.send(undefined), await route.send(undefined)];
      assert.deepEqual([third.status, fourth.status], [first.status, first.status]);
      assert.equal(await balanceOf(t.db, player.id), before - 300n, `${route.documented} moved 1.00 for each request without a key`);
    }
  });
});
