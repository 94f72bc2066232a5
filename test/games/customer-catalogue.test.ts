import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { page } from '../admin/support.ts';
import { useApp, type Client } from '../helpers/app.ts';
import { createGame, createProvider, dataOf, listOf, type AdminProvider, type ProviderGame } from './support.ts';

interface CustomerProvider {
  id: number;
  name: string;
  code: string;
  sort: number;
  status: number;
  games_count: number;
  created_at: string;
  updated_at: string;
}

const APP_URL = 'https://api.example.test';

describe('customer catalogue', () => {
  const ctx = useApp({ APP_URL });

  /** Every enabled provider a customer sees, in order (all pages). */
  async function providerIds(client: Client): Promise<number[]> {
    return listOf<CustomerProvider>(await client.get('/api/providers?per_page=100')).map((p) => p.id);
  }

  test('signed-in users only', async () => {
    const guest = ctx().client();
    assert.equal((await guest.get('/api/providers')).status, 401);
    assert.equal((await guest.get('/api/providers/1/games')).status, 401);
    assert.equal((await guest.get('/api/providers/nope/games')).status, 401);
  });

  test('enabled providers by sort then id, with their enabled games counted, in the paginated envelope', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const { client } = await ctx().player();
    const second = await createProvider(admin, { sort: 20 });
    const first = await createProvider(admin, { sort: 10 });
    const third = await createProvider(admin, { sort: 20 });
    const hidden = await createProvider(admin, { sort: 15, status: 0 });
    await createGame(admin, first.id);
    await createGame(admin, first.id);
    await createGame(admin, first.id, { status: 0 });

    const res = await client.get('/api/providers?per_page=100');
    const ids = (await providerIds(client)).filter((id) => [first.id, second.id, third.id, hidden.id].includes(id));
    assert.deepEqual(ids, [first.id, second.id, third.id]);
    const shown = page<CustomerProvider>(res.json).data.find((p) => p.id === first.id)!;
    assert.deepEqual(Object.keys(shown).sort(), ['code', 'created_at', 'games_count', 'id', 'name', 'sort', 'status', 'updated_at']);
    assert.equal(shown.games_count, 2);
    assert.equal(shown.status, 1);
    const envelope = page<CustomerProvider>((await client.get('/api/providers?per_page=1&page=2')).json);
    assert.equal(envelope.meta.path, `${APP_URL}/api/providers`);
    assert.equal(envelope.meta.per_page, 1);
    assert.equal(envelope.meta.current_page, 2);
    assert.equal(envelope.links.prev, `${APP_URL}/api/providers?page=1&per_page=1`);
    assert.equal(envelope.data.length, 1);
  });

  test('a provider’s enabled games by sort then id, by id or code, filtered by popular, category and q', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const { client } = await ctx().player();
    const provider = await createProvider(admin);
    const other = await createProvider(admin);
    const c = await createGame(admin, provider.id, { sort: 3, name: 'Cherry Bomb', category_id: 2 });
    const a = await createGame(admin, provider.id, { sort: 1, popular: 1, code: 'zz-top' });
    const b = await createGame(admin, provider.id, { sort: 1, popular: 1, category_id: 2 });
    await createGame(admin, provider.id, { sort: 0, status: 0, popular: 1 });
    await createGame(admin, other.id, { popular: 1 });

    const ids = async (query: string, key: string | number = provider.id) =>
      listOf<ProviderGame>(await client.get(`/api/providers/${key}/games${query}`)).map((g) => g.id);
    assert.deepEqual(await ids(''), [a.id, b.id, c.id]);
    assert.deepEqual(await ids('', provider.code), [a.id, b.id, c.id]);
    for (const yes of ['1', 'true']) assert.deepEqual(await ids(`?popular=${yes}`), [a.id, b.id]);
    for (const no of ['0', 'false']) assert.deepEqual(await ids(`?popular=${no}`), [c.id]);
    assert.deepEqual(await ids('?category_id=2'), [b.id, c.id]);
    assert.deepEqual(await ids('?category_id=2&popular=1'), [b.id]);
    assert.deepEqual(await ids('?q=cherry'), [c.id]);
    assert.deepEqual(await ids('?q=ZZ-'), [a.id]);
    assert.deepEqual(await ids(`?q=${b.slug}`), [b.id]);
    assert.equal((await client.get(`/api/providers/${provider.id}/games?popular=maybe`)).status, 422);

    const res = await client.get(`/api/providers/${provider.code}/games?per_page=2`);
    const body = page<ProviderGame>(res.json);
    assert.equal(body.meta.total, 3);
    assert.equal(body.meta.last_page, 2);
    assert.equal(body.meta.path, `${APP_URL}/api/providers/${provider.code}/games`);
    assert.deepEqual(Object.keys(body.data[0]!).sort(), [
      'category_id',
      'code',
      'created_at',
      'free',
      'id',
      'name',
      'popular',
      'provider_id',
      'slug',
      'sort',
      'status',
      'thumbnail',
      'thumbnail_url',
      'updated_at',
    ]);
  });

  test('catalogue pages come compressed to clients that accept it, the same JSON, and say they vary with Accept-Encoding', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const { client } = await ctx().player();
    const provider = await createProvider(admin, {});
    for (let i = 0; i < 5; i++) await createGame(admin, provider.id);
    for (const path of [`/api/providers/${provider.code}/games`, '/api/providers?per_page=100']) {
      // Twice each: the first answer fills the cache, the second comes from it.
      for (const round of ['filled', 'cached']) {
        const plain = await client.get(path);
        assert.equal(plain.status, 200);
        assert.equal(plain.headers['content-encoding'], undefined, `${path} ${round}`);
        assert.match(String(plain.headers.vary), /Accept-Encoding/);
        const brotli = await client.get(path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
        assert.equal(brotli.headers['content-encoding'], 'br', `${path} ${round}`);
        assert.match(String(brotli.headers.vary), /Accept-Encoding/);
        assert.equal(brotliDecompressSync(brotli.raw!).toString(), plain.text);
        assert.ok(brotli.raw!.length < plain.raw!.length);
        const gzipped = await client.get(path, { 'accept-encoding': 'gzip' });
        assert.equal(gzipped.headers['content-encoding'], 'gzip');
        assert.equal(gunzipSync(gzipped.raw!).toString(), plain.text);
        const refused = await client.get(path, { 'accept-encoding': 'gzip;q=0, br;q=0' });
        assert.equal(refused.headers['content-encoding'], undefined);
        assert.equal(refused.text, plain.text);
      }
    }
  });

  test('the games of a disabled or unknown provider are a 404, whatever the query', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const { client } = await ctx().player();
    const disabled = await createProvider(admin, { status: 0 });
    await createGame(admin, disabled.id);
    const notFound = { message: 'Not found.' };
    for (const key of [disabled.id, disabled.code, 999_999_999, 'no-such-provider', 'UPPER', '0', '007', '1e3', '9'.repeat(20)]) {
      const res = await client.get(`/api/providers/${key}/games`);
      assert.equal(res.status, 404, String(key));
      assert.deepEqual(res.json, notFound);
      assert.equal((await client.get(`/api/providers/${key}/games?popular=maybe`)).status, 404, String(key));
    }
  });

  test('an admin change shows at once: the cache is emptied by every change to providers or provider games', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const { client } = await ctx().player();
    const provider = await createProvider(admin);
    const game = await createGame(admin, provider.id, { name: 'Before' });
    const names = async () => listOf<ProviderGame>(await client.get(`/api/providers/${provider.id}/games`)).map((g) => g.name);
    assert.deepEqual(await names(), ['Before']);

    // Written behind the app's back: the cached answer stays (this is what the cache is for).
    await ctx().db.execute(sql`update provider_games set name = 'Behind' where id = ${game.id}`);
    assert.deepEqual(await names(), ['Before']);

    assert.equal((await admin.put(`/api/admin/provider-games/${game.id}`, { name: 'After' })).status, 200);
    assert.deepEqual(await names(), ['After']);

    const added = await createGame(admin, provider.id, { name: 'Added', sort: 9 });
    assert.deepEqual(await names(), ['After', 'Added']);
    assert.equal((await admin.delete(`/api/admin/provider-games/${added.id}`)).status, 204);
    assert.deepEqual(await names(), ['After']);

    const countOf = async () =>
      listOf<CustomerProvider>(await client.get('/api/providers?per_page=100')).find((p) => p.id === provider.id)?.games_count;
    assert.equal(await countOf(), 1);
    assert.equal((await admin.put(`/api/admin/provider-games/${game.id}`, { status: 0 })).status, 200);
    assert.equal(await countOf(), 0);
    assert.deepEqual(await names(), []);

    const renamed = await admin.put(`/api/admin/providers/${provider.id}`, { name: 'Renamed' });
    assert.equal(dataOf<AdminProvider>(renamed).name, 'Renamed');
    assert.equal(
      listOf<CustomerProvider>(await client.get('/api/providers?per_page=100')).find((p) => p.id === provider.id)?.name,
      'Renamed',
    );
    assert.equal((await admin.put(`/api/admin/providers/${provider.id}`, { status: 0 })).status, 200);
    assert.equal((await providerIds(client)).includes(provider.id), false);
    assert.equal((await client.get(`/api/providers/${provider.code}/games`)).status, 404);
    assert.equal((await admin.put(`/api/admin/providers/${provider.id}`, { status: 1 })).status, 200);
    assert.equal((await client.get(`/api/providers/${provider.code}/games`)).status, 200);
  });
});
