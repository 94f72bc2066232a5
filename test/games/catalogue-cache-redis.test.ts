import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { CATALOGUE_TOPIC } from '../../src/modules/games/catalogue/catalogue.ts';
import { openDatabase, type Database } from '../../src/platform/db/client.ts';
import { Client, startApp, type TestApp } from '../helpers/app.ts';
import { createGame, createProvider, listOf, type ProviderGame } from './support.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/7';

async function redisAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(6379, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves when `app` hears the next catalogue invalidation; fails the test if none comes. */
function nextInvalidation(app: FastifyInstance): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('The other instance heard no invalidation.')), 10_000);
    const off = app.invalidation.subscribe(CATALOGUE_TOPIC, () => {
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

const available = await redisAnswers();

describe(
  'catalogue cache across two instances sharing PostgreSQL and Redis',
  { skip: available ? false : 'Redis is not running on 127.0.0.1:6379' },
  () => {
    let first: TestApp;
    let second: FastifyInstance;
    let secondDatabase: Database | undefined;

    before(async () => {
      first = await startApp({ REDIS_URL });
      // On PostgreSQL the second instance has its own pool on the same database, as another process would.
      secondDatabase =
        first.database.url === undefined ? undefined : await openDatabase({ databaseUrl: first.database.url, dataDir: '', poolSize: 2 });
      second = await buildApp(first.config, {
        database: secondDatabase ?? first.database.database,
        hashing: { memoryCost: 1024, timeCost: 1 },
      });
      await second.ready();
      await Promise.all([first.app.invalidation.ready(), second.invalidation.ready()]);
    });
    after(async () => {
      await second?.close();
      await secondDatabase?.close();
      await first?.close();
    });

    test('an admin change on one instance empties the cached catalogue of the other', async () => {
      const admin = (await first.withRole('super-admin')).client;
      const player = await first.player();
      // Sessions live in Redis: the same cookies are signed in on the second instance.
      const elsewhere = new Client(second);
      for (const [name, value] of player.client.jar) elsewhere.jar.set(name, value);

      const provider = await createProvider(admin);
      const game = await createGame(admin, provider.id, { name: 'Before' });
      const names = async () => listOf<ProviderGame>(await elsewhere.get(`/api/providers/${provider.code}/games`)).map((g) => g.name);
      const providerName = async () =>
        listOf<{ id: number; name: string }>(await elsewhere.get('/api/providers?per_page=100')).find((p) => p.id === provider.id)?.name;
      assert.deepEqual(await names(), ['Before']);
      assert.equal(await providerName(), 'Provider');

      // Behind the app's back: the second instance keeps serving what it cached.
      await first.db.execute(sql`update provider_games set name = 'Behind' where id = ${game.id}`);
      assert.deepEqual(await names(), ['Before']);

      let heard = nextInvalidation(second);
      assert.equal((await admin.put(`/api/admin/provider-games/${game.id}`, { name: 'After' })).status, 200);
      await heard;
      assert.deepEqual(await names(), ['After']);

      heard = nextInvalidation(second);
      assert.equal((await admin.put(`/api/admin/providers/${provider.id}`, { name: 'Renamed' })).status, 200);
      await heard;
      assert.equal(await providerName(), 'Renamed');

      heard = nextInvalidation(second);
      assert.equal((await admin.put(`/api/admin/providers/${provider.id}`, { status: 0 })).status, 200);
      await heard;
      assert.equal((await elsewhere.get(`/api/providers/${provider.code}/games`)).status, 404);
    });
  },
);
