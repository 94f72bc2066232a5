import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { demoDriver, launch } from '../games/helpers.ts';
import { seat } from '../games/kit.ts';
import { useApp } from '../helpers/app.ts';
import { page, userWithPermissions } from './support.ts';

interface GameSession {
  id: number;
  provider: { id: number; code: string; name: string };
  game: { id: number; name: string };
  currency: string;
  demo: boolean;
  created_at: string;
  redeemed_at: string | null;
  expires_at: string;
  ends_at: string | null;
  open: boolean;
}

describe('GET /api/admin/users/:user/game-sessions', () => {
  const ctx = useApp();

  test("the user's own game sessions, newest first, open or not, with no token or its hash", async () => {
    const t = ctx();
    const table = await seat(t, demoDriver);
    await seat(t, demoDriver, 10_000n, table); // another player at the same table
    const demo = await launch(t, { userId: table.player.id, providerId: table.provider.id, gameId: table.game.id, demo: true });
    await t.db.execute(sql`update game_sessions set expires_at = now() - interval '1 minute' where id = ${demo.id}`);
    const viewer = await userWithPermissions(t, ['users.view']);

    const res = await viewer.client.get(`/api/admin/users/${table.player.id}/game-sessions`);
    assert.equal(res.status, 200, res.text);
    const list = page<GameSession>(res.json);
    assert.deepEqual(
      list.data.map((s) => [s.id, s.demo, s.open]),
      [
        [demo.id, true, false],
        [table.launched.id, false, true],
      ],
    );
    assert.equal(list.meta.total, 2);
    assert.ok(list.meta.path.endsWith(`/api/admin/users/${table.player.id}/game-sessions`));
    const [, money] = list.data;
    const names = await one<{ provider: string; game: string }>(
      t.db,
      sql`select p.name as provider, g.name as game from providers p, provider_games g where p.id = ${table.provider.id} and g.id = ${table.game.id}`,
    );
    assert.deepEqual(money!.provider, { id: table.provider.id, code: table.provider.code, name: names!.provider });
    assert.deepEqual(money!.game, { id: table.game.id, name: names!.game });
    assert.equal(money!.currency, 'BRL');
    assert.ok(money!.redeemed_at !== null && money!.expires_at !== '' && money!.created_at !== '');
    assert.deepEqual(Object.keys(money!).sort(), [
      'created_at',
      'currency',
      'demo',
      'ends_at',
      'expires_at',
      'game',
      'id',
      'open',
      'provider',
      'redeemed_at',
    ]);
    const hashes = await one<{ launch: string; session: string | null }>(
      t.db,
      sql`select launch_token_hash as launch, session_token_hash as session from game_sessions where id = ${table.launched.id}`,
    );
    for (const secret of [table.launched.token, table.session, demo.token, hashes!.launch, hashes!.session ?? 'none']) {
      assert.equal(res.text.includes(secret), false, 'no token or hash in the body');
    }

    const second = page<GameSession>((await viewer.client.get(`/api/admin/users/${table.player.id}/game-sessions?per_page=1&page=2`)).json);
    assert.deepEqual(
      second.data.map((s) => s.id),
      [table.launched.id],
    );
  });

  test('unknown user 404; a player or a role without users.view 403; in the OpenAPI document under Admin: users', async () => {
    const t = ctx();
    const viewer = await userWithPermissions(t, ['users.view']);
    assert.equal((await viewer.client.get('/api/admin/users/999999999/game-sessions')).status, 404);
    const player = await t.player();
    assert.equal((await player.client.get(`/api/admin/users/${player.id}/game-sessions`)).status, 403);
    const other = await userWithPermissions(t, ['banks.view']);
    assert.equal((await other.client.get(`/api/admin/users/${player.id}/game-sessions`)).status, 403);
    const empty = page<GameSession>((await viewer.client.get(`/api/admin/users/${player.id}/game-sessions`)).json);
    assert.deepEqual([empty.data, empty.meta.total], [[], 0]);
    const doc = (await t.client().get('/docs/json')).json as { paths: Record<string, Record<string, { tags: string[] }>> };
    assert.deepEqual(doc.paths['/api/admin/users/{user}/game-sessions']?.get?.tags, ['Admin: users']);
  });
});
