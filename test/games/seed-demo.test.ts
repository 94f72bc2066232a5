import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../src/app.ts';
import { openDatabase, rows } from '../../src/platform/db/client.ts';
import { isUploadPath } from '../../src/platform/storage/storage.ts';
import { Client, testConfig } from '../helpers/app.ts';
import { run as croupier } from '../helpers/cli.ts';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';

interface Counts {
  providers: number;
  provider_games: number;
  games: number;
  users: number;
  ledger_entries: number;
  operation_logs: number;
}

const COUNTS = sql`select
  (select count(*)::int from providers) as providers,
  (select count(*)::int from provider_games) as provider_games,
  (select count(*)::int from games) as games,
  (select count(*)::int from users) as users,
  (select count(*)::int from ledger_entries) as ledger_entries,
  (select count(*)::int from operation_logs) as operation_logs`;

describe('croupier seed:demo', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'croupier-seed-'));
  let database: TestDatabase | undefined;
  after(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('seeds a playable catalogue and a funded demo player once; a second run adds nothing', { timeout: 180_000 }, async () => {
    const env: Record<string, string> = { DATA_DIR: dataDir, APP_KEY: Buffer.alloc(32, 9).toString('base64') };
    if (backend === 'postgres') {
      database = await freshDatabase();
      env.DATABASE_URL = database.url!;
    }
    const first = await croupier(['seed:demo', '--password', 'demo-password-1'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /provider demo \(Demo Games\): created/);
    assert.match(first.stdout, /provider games: 3 created/);
    assert.match(first.stdout, /in-house games: 2 created/);
    assert.match(first.stdout, /demo player: demo@example.com, password demo-password-1/);

    const open = () => openDatabase({ databaseUrl: env.DATABASE_URL, dataDir, poolSize: 2 });
    let db = await open();
    const [before] = await rows<Counts>(db.db, COUNTS);
    await db.close();

    const second = await croupier(['seed:demo'], env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /provider demo \(Demo Games\): already there/);
    assert.match(second.stdout, /provider games: 0 created/);
    assert.match(second.stdout, /in-house games: 0 created/);
    assert.match(second.stdout, /demo player: demo@example.com already there \(password unchanged\)/);
    assert.match(second.stdout, /demo funds: already credited/);

    db = await open();
    try {
      const [again] = await rows<Counts>(db.db, COUNTS);
      assert.deepEqual(again, before, 'the second run added nothing');
      const seeded = await rows<{ adapter: string; secret: boolean; thumbnails: string[]; codes: string[] }>(
        db.db,
        sql`select p.adapter, p.wallet_secret is not null as secret,
          array(select thumbnail from provider_games where provider_id = p.id order by sort) as thumbnails,
          array(select code from games order by code) as codes
          from providers p where p.code = 'demo'`,
      );
      assert.equal(seeded[0]!.adapter, 'demo');
      assert.equal(seeded[0]!.secret, true);
      assert.deepEqual(seeded[0]!.codes, ['dice3', 'double']);
      assert.equal(seeded[0]!.thumbnails.length, 3);
      for (const path of seeded[0]!.thumbnails) assert.ok(isUploadPath(path), path);

      // What a newcomer then does: sign in as the demo player and browse the catalogue.
      const app = await buildApp(testConfig({ DATA_DIR: dataDir, APP_URL: 'http://localhost:8000' }), { database: db });
      try {
        const client = new Client(app);
        await client.csrf();
        assert.equal((await client.post('/api/login', { email: 'demo@example.com', password: 'demo-password-1' })).status, 200);
        const balance = (await client.get('/api/user/balance')).json as { data: { currency: string; amount: number } };
        assert.deepEqual([balance.data.currency, balance.data.amount], ['BRL', 1000]);
        const games = (await client.get('/api/providers/demo/games')).json as {
          data: { slug: string; thumbnail: string; thumbnail_url: string }[];
        };
        assert.deepEqual(
          games.data.map((game) => game.slug),
          ['demo-fruit-slot', 'demo-lucky-sevens', 'demo-gem-rush'],
        );
        for (const game of games.data) {
          assert.equal(game.thumbnail_url, `http://localhost:8000/storage/${game.thumbnail}`);
          const image = await client.get(`/storage/${game.thumbnail}`);
          assert.equal(image.status, 200);
          assert.equal(image.headers['content-type'], 'image/png');
        }
        const launch = await client.get('/api/provider-games/demo-fruit-slot/launch');
        assert.equal(launch.status, 200, launch.text);
      } finally {
        await app.close();
      }
    } finally {
      await db.close();
    }
  });

  test('a password shorter than 8 characters is refused with one line', async () => {
    const res = await croupier(['seed:demo', '--password', 'short'], { DATA_DIR: dataDir });
    assert.equal(res.code, 2);
    assert.equal(res.stderr.trim(), 'The password must be at least 8 characters.');
  });
});
