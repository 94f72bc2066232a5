// `croupier games:sync <provider code>` (docs/api.md section 15, docs/games.md "Connecting a Hub88
// operator account"): the Hub88 simulator's game list imported into provider games, run as the
// command line runs it: in-process against the test database, and as a real process beside (or,
// on the embedded database, carried out by) a running server whose catalogue cache must see the
// change at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { DATABASE_COMMANDS, Transcript, type Opener } from '../../src/commands.ts';
import { sealConfig } from '../../src/modules/games/adapters/config.ts';
import { HUB88_CONFIG } from '../../src/modules/games/hub88/config.ts';
import { providerGames } from '../../src/modules/games/tables.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { Browser, run, scratch, serve } from '../helpers/cli.ts';
import { createProvider } from './helpers.ts';
import { hub88Game, Hub88Simulator } from './hub88-simulator.ts';

describe('croupier games:sync', () => {
  const simulator = new Hub88Simulator();
  before(() => simulator.start());
  after(() => simulator.stop());
  const ctx = useApp();

  /** The command as the command line runs it, on the test app's database, announcing on its bus. */
  async function sync(t: TestApp, code: string): Promise<{ code: number; out: Transcript }> {
    const open: Opener = (work) =>
      work({ config: t.config, database: t.database.database, publish: (topic, key) => t.app.invalidation.publish(topic, key) });
    const out = new Transcript();
    return { code: await DATABASE_COMMANDS['games:sync']!([code], open, out), out };
  }

  async function hub88Provider(t: TestApp) {
    return createProvider(t, {
      adapter: 'hub88',
      secret: null,
      adapterConfig: sealConfig(HUB88_CONFIG, simulator.config(), new Keyring(t.config.appKey)),
    });
  }

  const gamesOf = (t: TestApp, providerId: number) =>
    t.db
      .select({
        code: providerGames.code,
        name: providerGames.name,
        slug: providerGames.slug,
        status: providerGames.status,
        delisted: sql<boolean>`delisted_at is not null`,
      })
      .from(providerGames)
      .where(eq(providerGames.providerId, providerId))
      .orderBy(providerGames.code);

  test('imports the list: new games created enabled with unique slugs, renamed ones renamed, gone ones disabled; a second run changes nothing', async () => {
    const t = ctx();
    const provider = await hub88Provider(t);
    simulator.games = [hub88Game('sim_a', 'Alpha'), hub88Game('sim_b', 'Beta'), hub88Game('sim_c', 'Gamma', false)];
    const first = await sync(t, provider.code);
    assert.equal(first.code, 0, first.out.stderr);
    assert.equal(
      first.out.stdout.trim(),
      `games:sync ${provider.code}: 3 listed, 2 new, 0 renamed, 0 disabled (gone from the list), 0 enabled again, 0 unchanged`,
    );
    assert.deepEqual(simulator.gameLists.at(-1), { operator_id: simulator.operatorId });
    assert.deepEqual(await gamesOf(t, provider.id), [
      { code: 'sim_a', name: 'Alpha', slug: `${provider.code}-sim-a`, status: 1, delisted: false },
      { code: 'sim_b', name: 'Beta', slug: `${provider.code}-sim-b`, status: 1, delisted: false },
    ]);
    const before = await rows<{ updated_at: string }>(
      t.db,
      sql`select updated_at::text from provider_games where provider_id = ${provider.id} order by id`,
    );

    const again = await sync(t, provider.code);
    assert.equal(
      again.out.stdout.trim(),
      `games:sync ${provider.code}: 3 listed, 0 new, 0 renamed, 0 disabled (gone from the list), 0 enabled again, 2 unchanged`,
    );
    assert.deepEqual(
      await rows(t.db, sql`select updated_at::text from provider_games where provider_id = ${provider.id} order by id`),
      before,
    );

    // Hub88 renames Beta, drops Alpha, enables Gamma and adds Delta.
    simulator.games = [hub88Game('sim_b', 'Beta Deluxe'), hub88Game('sim_c', 'Gamma'), hub88Game('sim_d', 'Delta')];
    const changed = await sync(t, provider.code);
    assert.equal(
      changed.out.stdout.trim(),
      `games:sync ${provider.code}: 3 listed, 2 new, 1 renamed, 1 disabled (gone from the list), 0 enabled again, 0 unchanged`,
    );
    assert.deepEqual(await gamesOf(t, provider.id), [
      { code: 'sim_a', name: 'Alpha', slug: `${provider.code}-sim-a`, status: 0, delisted: true },
      { code: 'sim_b', name: 'Beta Deluxe', slug: `${provider.code}-sim-b`, status: 1, delisted: false },
      { code: 'sim_c', name: 'Gamma', slug: `${provider.code}-sim-c`, status: 1, delisted: false },
      { code: 'sim_d', name: 'Delta', slug: `${provider.code}-sim-d`, status: 1, delisted: false },
    ]);
  });

  test('a game Hub88 lists again comes back, one an operator disabled stays disabled, and a slug already taken gets a number', async () => {
    const t = ctx();
    const provider = await hub88Provider(t);
    simulator.games = [hub88Game('sim_a', 'Alpha'), hub88Game('sim_b', 'Beta')];
    await sync(t, provider.code);
    simulator.games = [hub88Game('sim_b', 'Beta')];
    await sync(t, provider.code);
    // The operator disables Beta by hand.
    await t.db.update(providerGames).set({ status: 0 }).where(eq(providerGames.code, 'sim_b'));
    // Another provider's game holds the slug the next one would get.
    const other = await createProvider(t);
    await t.db.insert(providerGames).values({ providerId: other.id, name: 'Elsewhere', slug: `${provider.code}-sim-e`, code: 'e' });
    simulator.games = [hub88Game('sim_a', 'Alpha'), hub88Game('sim_b', 'Beta'), hub88Game('sim_e', 'Epsilon')];
    const back = await sync(t, provider.code);
    assert.equal(
      back.out.stdout.trim(),
      `games:sync ${provider.code}: 3 listed, 1 new, 0 renamed, 0 disabled (gone from the list), 1 enabled again, 1 unchanged`,
    );
    assert.deepEqual(await gamesOf(t, provider.id), [
      { code: 'sim_a', name: 'Alpha', slug: `${provider.code}-sim-a`, status: 1, delisted: false },
      { code: 'sim_b', name: 'Beta', slug: `${provider.code}-sim-b`, status: 0, delisted: false },
      { code: 'sim_e', name: 'Epsilon', slug: `${provider.code}-sim-e-2`, status: 1, delisted: false },
    ]);
  });

  test('an unknown provider, one without a game list, or a Hub88 that fails is one line and exit 1, and changes nothing', async () => {
    const t = ctx();
    const provider = await hub88Provider(t);
    const demo = await createProvider(t);
    simulator.games = [hub88Game('sim_a', 'Alpha')];
    const unknown = await sync(t, 'no-such-provider');
    assert.deepEqual([unknown.code, unknown.out.stderr.trim()], [1, 'No provider has the code "no-such-provider".']);
    const listless = await sync(t, demo.code);
    assert.deepEqual([listless.code, listless.out.stderr.trim()], [1, `The demo adapter of provider ${demo.code} offers no game list.`]);
    simulator.mode = 'error';
    try {
      const failed = await sync(t, provider.code);
      assert.equal(failed.code, 1);
      assert.match(failed.out.stderr.trim(), new RegExp(`^The game list of provider ${provider.code} could not be had: HTTP 500`));
    } finally {
      simulator.mode = 'ok';
    }
    assert.deepEqual(await gamesOf(t, provider.id), []);
    const usage = await DATABASE_COMMANDS['games:sync']!([], () => Promise.reject(new Error('not opened')), new Transcript()).catch(
      (error: Error) => error.message,
    );
    assert.equal(usage, 'games:sync needs one provider code: croupier games:sync <provider code>.');
  });

  describe('beside a running server', () => {
    const { target } = scratch('croupier-sync-');

    test('the command imports the list, and a running server’s catalogue shows it at once', { timeout: 300_000 }, async () => {
      const where = await target();
      const server = await serve(where);
      try {
        assert.equal((await run(['admin:create', '--email', 'ops@example.com', '--password', 'a long password'], where)).code, 0);
        const admin = new Browser(server.url);
        await admin.call('GET', '/api/csrf-cookie');
        assert.equal((await admin.call('POST', '/api/login', { email: 'ops@example.com', password: 'a long password' })).status, 200);
        const created = await admin.call('POST', '/api/admin/providers', {
          name: 'Hub88',
          code: 'hub88',
          adapter: 'hub88',
          adapter_config: simulator.config(),
        });
        assert.equal(created.status, 201, created.text);

        const player = new Browser(server.url);
        await player.call('GET', '/api/csrf-cookie');
        const registered = await player.call('POST', '/api/register', {
          name: 'Player',
          email: 'player@example.com',
          password: 'a long password',
          password_confirmation: 'a long password',
          agreement: true,
        });
        assert.equal(registered.status, 201, registered.text);
        const list = async () =>
          (JSON.parse((await player.call('GET', '/api/providers/hub88/games')).text) as { data: { slug: string }[] }).data.map(
            (game) => game.slug,
          );
        // Read once: the server now keeps the empty list in its cache.
        assert.deepEqual(await list(), []);

        simulator.games = [hub88Game('sim_a', 'Alpha'), hub88Game('sim_b', 'Beta')];
        const synced = await run(['games:sync', 'hub88'], where);
        assert.equal(synced.code, 0, synced.stderr);
        assert.equal(
          synced.stdout.trim(),
          'games:sync hub88: 2 listed, 2 new, 0 renamed, 0 disabled (gone from the list), 0 enabled again, 0 unchanged',
        );
        if (where.DATABASE_URL === undefined) assert.match(synced.stderr, /^Carried out by the server/);
        assert.deepEqual(await list(), ['hub88-sim-a', 'hub88-sim-b']);
      } finally {
        await server.stop();
      }
    });
  });
});
