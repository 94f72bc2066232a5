import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { lastLog } from '../admin/support.ts';
import { useApp } from '../helpers/app.ts';
import { createGame, createProvider, dataOf, listOf, slug, uploadThumbnail, type Game, type ProviderGame } from './support.ts';

const DATA_DIR = `/tmp/croupier-provider-games-test-${process.pid}`;
const APP_URL = 'https://api.example.test';

describe('admin provider games and in-house games', () => {
  const ctx = useApp({ DATA_DIR, APP_URL });
  after(() => rm(DATA_DIR, { recursive: true, force: true }));

  test('a provider game takes every field of the interface, a numeric code is kept as text, and it is created enabled', async () => {
    const { client } = await ctx().withRole('super-admin');
    const provider = await createProvider(client);
    const thumbnail = await uploadThumbnail(client);
    const gameSlug = slug('book');
    const res = await client.post('/api/admin/provider-games', {
      provider_id: provider.id,
      name: 'Book of Gold',
      slug: gameSlug,
      code: 10045,
      category_id: 3,
      free: 1,
      thumbnail,
      sort: 7,
      popular: 1,
    });
    assert.equal(res.status, 201, res.text);
    const game = dataOf<ProviderGame>(res);
    assert.deepEqual(
      { ...game, id: 0, created_at: '', updated_at: '' },
      {
        id: 0,
        provider_id: provider.id,
        name: 'Book of Gold',
        slug: gameSlug,
        code: '10045',
        category_id: 3,
        free: 1,
        thumbnail,
        thumbnail_url: `${APP_URL}/storage/${thumbnail}`,
        sort: 7,
        popular: 1,
        status: 1,
        created_at: '',
        updated_at: '',
      },
    );
    assert.deepEqual((await client.get(`/api/admin/provider-games/${game.id}`)).json, { data: game });

    const cleared = await client.put(`/api/admin/provider-games/${game.id}`, { thumbnail: null, code: 'BoG', status: 0 });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual(
      [dataOf<ProviderGame>(cleared).thumbnail, dataOf<ProviderGame>(cleared).thumbnail_url, dataOf<ProviderGame>(cleared).code],
      [null, null, 'BoG'],
    );
    assert.equal(dataOf<ProviderGame>(cleared).status, 0);
    assert.equal((await lastLog(ctx())).path, `/api/admin/provider-games/${game.id}`);

    assert.equal((await client.delete(`/api/admin/provider-games/${game.id}`)).status, 204);
    assert.equal((await client.get(`/api/admin/provider-games/${game.id}`)).status, 404);
  });

  test('the slug is unique, with Laravel’s message on create and on update', async () => {
    const { client } = await ctx().withRole('super-admin');
    const provider = await createProvider(client);
    const taken = await createGame(client, provider.id);
    const other = await createGame(client, provider.id);
    const message = { message: 'The slug has already been taken.', errors: { slug: ['The slug has already been taken.'] } };
    const dup = await client.post('/api/admin/provider-games', { provider_id: provider.id, name: 'D', slug: taken.slug, code: 'x' });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.json, message);
    const moved = await client.patch(`/api/admin/provider-games/${other.id}`, { slug: taken.slug });
    assert.equal(moved.status, 422);
    assert.deepEqual(moved.json, message);
  });

  test('an unknown provider_id is a 422 on provider_id', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/provider-games', { provider_id: 999_999_999, name: 'G', slug: slug('g'), code: 'g' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The selected provider id is invalid.',
      errors: { provider_id: ['The selected provider id is invalid.'] },
    });
    const provider = await createProvider(client);
    const game = await createGame(client, provider.id);
    const moved = await client.put(`/api/admin/provider-games/${game.id}`, { provider_id: 999_999_999 });
    assert.equal(moved.status, 422);
    assert.equal(dataOf<ProviderGame>(await client.get(`/api/admin/provider-games/${game.id}`)).provider_id, provider.id);
  });

  test('a thumbnail must be a path the upload endpoint returned and that is still stored', async () => {
    const { client } = await ctx().withRole('super-admin');
    const provider = await createProvider(client);
    const invalid = { message: 'The selected thumbnail is invalid.', errors: { thumbnail: ['The selected thumbnail is invalid.'] } };
    const unknown = `uploads/2026/11/${'a'.repeat(40)}.png`;
    for (const thumbnail of [unknown, '../app.key', 'https://cdn.example.com/x.png', 'uploads/2026/11/x.png']) {
      const res = await client.post('/api/admin/provider-games', {
        provider_id: provider.id,
        name: 'G',
        slug: slug('g'),
        code: 'g',
        thumbnail,
      });
      assert.equal(res.status, 422, thumbnail);
      assert.deepEqual(res.json, invalid, thumbnail);
    }
    const number = await client.post('/api/admin/provider-games', {
      provider_id: provider.id,
      name: 'G',
      slug: slug('g'),
      code: 'g',
      thumbnail: 5,
    });
    assert.equal(number.status, 422);
    assert.ok('thumbnail' in (number.json as { errors: object }).errors);

    const game = await createGame(client, provider.id);
    assert.equal(game.thumbnail, null);
    assert.equal(game.thumbnail_url, null);
    const refused = await client.put(`/api/admin/provider-games/${game.id}`, { thumbnail: unknown });
    assert.equal(refused.status, 422);
    const path = await uploadThumbnail(client);
    const accepted = await client.put(`/api/admin/provider-games/${game.id}`, { thumbnail: path });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(dataOf<ProviderGame>(accepted).thumbnail_url, `${APP_URL}/storage/${path}`);
    assert.equal((await ctx().client().get(`/storage/${path}`)).status, 200);
  });

  test('the list filters by provider, status, popular, category and q, in sort order', async () => {
    const { client } = await ctx().withRole('super-admin');
    const provider = await createProvider(client);
    const other = await createProvider(client);
    const b = await createGame(client, provider.id, { sort: 2, popular: 1, category_id: 4, name: 'Bravo' });
    const a = await createGame(client, provider.id, { sort: 1, status: 0, code: 'alpha-code' });
    const c = await createGame(client, provider.id, { sort: 2, category_id: 4 });
    await createGame(client, other.id);
    const ids = async (query: string) => listOf<ProviderGame>(await client.get(`/api/admin/provider-games?${query}`)).map((g) => g.id);
    assert.deepEqual(await ids(`provider_id=${provider.id}`), [a.id, b.id, c.id]);
    assert.deepEqual(await ids(`provider_id=${provider.id}&status=0`), [a.id]);
    assert.deepEqual(await ids(`provider_id=${provider.id}&popular=1`), [b.id]);
    assert.deepEqual(await ids(`provider_id=${provider.id}&category_id=4`), [b.id, c.id]);
    assert.deepEqual(await ids(`provider_id=${provider.id}&q=ALPHA-C`), [a.id]);
    assert.deepEqual(await ids(`provider_id=${provider.id}&q=brav`), [b.id]);
    assert.equal((await client.get('/api/admin/provider-games?popular=2')).status, 422);
  });

  test('in-house games: created enabled with their type’s default settings spelled out, status 0/1/2, settings checked for the type, unique code, filters', async () => {
    const { client } = await ctx().withRole('super-admin');
    const code = slug('dice');
    const res = await client.post('/api/admin/games', { name: 'Dice', code, type: 'dice3' });
    assert.equal(res.status, 201, res.text);
    const game = dataOf<Game>(res);
    assert.deepEqual([game.status, game.sort, game.type], [1, 0, 'dice3']);
    assert.deepEqual(Object.keys(game.settings).sort(), ['close_before_s', 'interval_s', 'max_bet', 'min_bet', 'odds']);
    const maintenance = await client.put(`/api/admin/games/${game.id}`, { status: 2, settings: { min_bet: 1 } });
    assert.equal(maintenance.status, 200, maintenance.text);
    assert.deepEqual([dataOf<Game>(maintenance).status, (dataOf<Game>(maintenance).settings as { min_bet: number }).min_bet], [2, 1]);
    const unknownSetting = await client.put(`/api/admin/games/${game.id}`, { settings: { faces: [1, 2] } });
    assert.equal(unknownSetting.status, 422, unknownSetting.text);
    assert.ok((unknownSetting.json as { errors: Record<string, string[]> }).errors['settings.faces'] !== undefined);
    const unknownType = await client.post('/api/admin/games', { name: 'Slot', code: slug('slot'), type: 'slot' });
    assert.equal(unknownType.status, 422);
    assert.ok((unknownType.json as { errors: Record<string, string[]> }).errors.type !== undefined);
    assert.equal((await client.put(`/api/admin/games/${game.id}`, { status: 3 })).status, 422);
    assert.equal((await client.put(`/api/admin/games/${game.id}`, { settings: [1, 2] })).status, 422);
    assert.equal((await client.put(`/api/admin/games/${game.id}`, { type: 'Dice 3' })).status, 422);
    const dup = await client.post('/api/admin/games', { name: 'Again', code, type: 'dice3' });
    assert.deepEqual(dup.json, { message: 'The code has already been taken.', errors: { code: ['The code has already been taken.'] } });
    const other = await client.post('/api/admin/games', { name: 'Double', code: slug('double'), type: 'double', status: 0 });
    assert.equal(dataOf<Game>(other).status, 0);
    const ids = async (query: string) => listOf<Game>(await client.get(`/api/admin/games?${query}`)).map((g) => g.id);
    assert.deepEqual(await ids('status=2'), [game.id]);
    assert.deepEqual(await ids(`type=double&q=${dataOf<Game>(other).code}`), [dataOf<Game>(other).id]);
    assert.equal((await client.delete(`/api/admin/games/${game.id}`)).status, 204);
    const count = await one<{ n: number }>(ctx().db, sql`select count(*)::int as n from games where id = ${game.id}`);
    assert.equal(count!.n, 0);
  });

  test('provider games need provider-games permissions and in-house games the games ones', async () => {
    const player = await ctx().player();
    assert.equal((await player.client.get('/api/admin/provider-games')).status, 403);
    assert.equal((await player.client.get('/api/admin/games')).status, 403);
    assert.equal((await player.client.post('/api/admin/games', { name: 'x', code: 'x', type: 'x' })).status, 403);
  });
});
