import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { GameAdapters, type GameProviderAdapter, type ListedGame } from '../../src/modules/games/adapters/adapter.ts';
import { syncCatalogue } from '../../src/modules/games/catalogue/sync.ts';
import { seedDemo } from '../../src/modules/games/demo-provider/seed.ts';
import { PasswordHasher } from '../../src/platform/auth/passwords.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import { rows } from '../../src/platform/db/client.ts';
import { LocalDiskStorage } from '../../src/platform/storage/local-disk.ts';
import { useApp, type Client, type Response, type TestApp } from '../helpers/app.ts';
import { createProvider, dataOf, listOf, slug } from '../games/support.ts';

const REQUIRED = 'The rtp field is required for an enabled game: the return to player of its certificate.';
const BELOW = 'The rtp of an enabled game must be at least 85.00.';

interface Shown {
  id: number;
  code?: string;
  slug?: string;
  status: number;
  rtp?: number | null;
  settings?: Record<string, unknown>;
}

const errorsOf = (res: Response) => (res.json as { errors: Record<string, string[]> }).errors;

function refused(res: Response, errors: Record<string, string[]>): void {
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(errorsOf(res), errors);
}

function shown(res: Response, status = 200): Shown {
  assert.equal(res.status, status, res.text);
  return dataOf<Shown>(res);
}

/** The message of a selection whose odds return less than 85 %, with the lowest odds that would do. */
const lowReturn = (selection: string, returned: string, lowest: string) =>
  `The odds of ${selection} return ${returned} %: an enabled game must return at least 85.00 % on every selection, so its odds must be at least ${lowest}.`;

/** dice3 at its default odds (docs/draws.md): the selections returning under 85 %, truncated to the hundredth. */
const DICE3_DEFAULT_REFUSALS: Record<string, string[]> = {
  'settings.odds.sum_4': [lowReturn('sum_4', '84.72', '61.20')],
  'settings.odds.sum_6': [lowReturn('sum_6', '83.33', '18.36')],
  'settings.odds.sum_9': [lowReturn('sum_9', '81.01', '7.35')],
  'settings.odds.sum_12': [lowReturn('sum_12', '81.01', '7.35')],
  'settings.odds.sum_15': [lowReturn('sum_15', '83.33', '18.36')],
  'settings.odds.sum_17': [lowReturn('sum_17', '84.72', '61.20')],
  ...Object.fromEntries(
    [1, 2, 3, 4, 5, 6].map((face) => [`settings.odds.triple_${face}`, [lowReturn(`triple_${face}`, '83.79', '183.60')]]),
  ),
};

/** dice3 odds at the exact edge: each raised selection returns 85.00 %. */
const DICE3_AT_85 = {
  sum_4: 61.2,
  sum_17: 61.2,
  sum_6: 18.36,
  sum_15: 18.36,
  sum_9: 7.35,
  sum_12: 7.35,
  ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((face) => [`triple_${face}`, 183.6])),
};

function seedDeps(t: TestApp) {
  return {
    db: t.db,
    keys: new Keyring(t.config.appKey),
    storage: new LocalDiskStorage(t.config.dataDir),
    hasher: new PasswordHasher({ memoryCost: 1024, timeCost: 1 }),
    currency: t.config.defaultCurrency,
    regulation: t.config.regulation,
  };
}

async function createProviderGame(admin: Client, providerId: number, body: Record<string, unknown>): Promise<Response> {
  return admin.post('/api/admin/provider-games', { provider_id: providerId, name: 'Game', slug: slug('rtp'), code: 'g1', ...body });
}

async function playerGames(client: Client): Promise<Shown[]> {
  return listOf<Shown>(await client.get('/api/games?per_page=100'));
}

describe('REGULATION=br: the return to player of every game', () => {
  const DATA_DIR = `/tmp/croupier-rtp-br-${process.pid}`;
  const ctx = useApp({ REGULATION: 'br', DATA_DIR });
  after(() => rm(DATA_DIR, { recursive: true, force: true }));

  test('a provider game’s rtp is the operator’s and players see it; an enabled one needs 85.00 or more, 422 on rtp', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const provider = await createProvider(admin);

    refused(await createProviderGame(admin, provider.id, {}), { rtp: [REQUIRED] });
    refused(await createProviderGame(admin, provider.id, { rtp: null }), { rtp: [REQUIRED] });
    refused(await createProviderGame(admin, provider.id, { rtp: 84.99 }), { rtp: [BELOW] });
    refused(await createProviderGame(admin, provider.id, { rtp: 85.001 }), { rtp: ['The rtp field must have 0-2 decimal places.'] });
    refused(await createProviderGame(admin, provider.id, { rtp: 100.01 }), { rtp: ['The rtp field must not be greater than 100.'] });
    const atEdge = shown(await createProviderGame(admin, provider.id, { rtp: 85 }), 201);
    assert.deepEqual([atEdge.status, atEdge.rtp], [1, 85]);

    // A disabled game may wait for its certificate; enabling it then needs the rtp.
    const waiting = shown(await createProviderGame(admin, provider.id, { status: 0, sort: 1 }), 201);
    assert.equal(waiting.rtp, null);
    refused(await admin.put(`/api/admin/provider-games/${waiting.id}`, { status: 1 }), { rtp: [REQUIRED] });
    refused(await admin.put(`/api/admin/provider-games/${waiting.id}`, { status: 1, rtp: 84.99 }), { rtp: [BELOW] });
    const enabled = shown(await admin.put(`/api/admin/provider-games/${waiting.id}`, { status: 1, rtp: 96.5 }));
    assert.deepEqual([enabled.status, enabled.rtp], [1, 96.5]);

    // An enabled game keeps its rtp through other changes and cannot lose it or go below 85.
    refused(await admin.put(`/api/admin/provider-games/${atEdge.id}`, { rtp: 84.99 }), { rtp: [BELOW] });
    refused(await admin.patch(`/api/admin/provider-games/${atEdge.id}`, { rtp: null }), { rtp: [REQUIRED] });
    assert.equal(shown(await admin.patch(`/api/admin/provider-games/${atEdge.id}`, { name: 'Renamed' })).rtp, 85);
    assert.equal(shown(await admin.get(`/api/admin/provider-games/${atEdge.id}`)).rtp, 85);
    // Disabled, it may carry any rtp (or none).
    const off = shown(await admin.patch(`/api/admin/provider-games/${waiting.id}`, { status: 0, rtp: 80 }));
    assert.deepEqual([off.status, off.rtp], [0, 80]);
    assert.equal(shown(await admin.patch(`/api/admin/provider-games/${waiting.id}`, { status: 1, rtp: 97 })).rtp, 97);

    const player = await ctx().player();
    const seen = listOf<Shown>(await player.client.get(`/api/providers/${provider.code}/games`));
    assert.deepEqual(
      seen.map((game) => [game.id, game.rtp]),
      [
        [atEdge.id, 85],
        [waiting.id, 97],
      ],
    );
  });

  test('an in-house game’s rtp is the lowest return among its selections at its odds; an enabled one below 85 % is refused on settings.odds.<selection>', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();

    // double's defaults return 93.33 % on every selection.
    const wheel = shown(await admin.post('/api/admin/games', { name: 'Wheel', code: slug('wheel'), type: 'double' }), 201);
    assert.deepEqual([wheel.status, wheel.rtp], [1, 93.33]);

    // dice3's defaults do not comply: every selection under 85 % is named, with the odds that would do.
    refused(await admin.post('/api/admin/games', { name: 'Dice', code: slug('dice'), type: 'dice3' }), DICE3_DEFAULT_REFUSALS);
    const dice = shown(await admin.post('/api/admin/games', { name: 'Dice', code: slug('dice'), type: 'dice3', status: 0 }), 201);
    assert.equal(dice.rtp, 81.01, 'a disabled game shows its rtp too: sum_9 and sum_12 at 7.00');
    refused(await admin.put(`/api/admin/games/${dice.id}`, { status: 1 }), DICE3_DEFAULT_REFUSALS);
    // In maintenance it takes no bet, so the floor waits for it to be enabled.
    assert.equal(shown(await admin.put(`/api/admin/games/${dice.id}`, { status: 2 })).status, 2);

    // One hundredth short on one selection: only that one is refused.
    refused(await admin.put(`/api/admin/games/${dice.id}`, { status: 1, settings: { odds: { ...DICE3_AT_85, sum_4: 61.19 } } }), {
      'settings.odds.sum_4': [lowReturn('sum_4', '84.98', '61.20')],
    });
    refused(await admin.put(`/api/admin/games/${dice.id}`, { status: 1, settings: { odds: { ...DICE3_AT_85, sum_9: 7.34 } } }), {
      'settings.odds.sum_9': [lowReturn('sum_9', '84.95', '7.35')],
    });
    const atEdge = shown(await admin.put(`/api/admin/games/${dice.id}`, { status: 1, settings: { odds: DICE3_AT_85 } }));
    assert.deepEqual([atEdge.status, atEdge.rtp], [1, 85]);
    // Settings that bring an enabled game back under 85 % are refused; other changes keep it.
    refused(await admin.patch(`/api/admin/games/${dice.id}`, { settings: { odds: { ...DICE3_AT_85, triple_3: 183.59 } } }), {
      'settings.odds.triple_3': [lowReturn('triple_3', '84.99', '183.60')],
    });
    assert.equal(shown(await admin.patch(`/api/admin/games/${dice.id}`, { name: 'Dice at 85' })).rtp, 85);

    const listed = new Map((await playerGames(player.client)).map((game) => [game.id, game.rtp]));
    assert.deepEqual([listed.get(wheel.id), listed.get(dice.id)], [93.33, 85]);
    assert.equal(shown(await player.client.get(`/api/games/${dice.code}`)).rtp, 85);
    assert.equal(shown(await admin.get(`/api/admin/games/${wheel.id}`)).rtp, 93.33);
  });

  test('seed:demo under br makes games that comply: provider games at the demo slot’s 96.00 %, dice3 with raised odds at 85.64 %', async () => {
    const t = ctx();
    const report = await seedDemo(seedDeps(t), { password: 'demo-password-1' });
    assert.deepEqual([report.providerGamesCreated, report.gamesCreated], [3, 2]);
    const player = await t.player();
    const slots = listOf<Shown>(await player.client.get('/api/providers/demo/games'));
    assert.deepEqual(
      slots.map((game) => [game.slug, game.status, game.rtp]),
      [
        ['demo-fruit-slot', 1, 96],
        ['demo-lucky-sevens', 1, 96],
        ['demo-gem-rush', 1, 96],
      ],
    );
    const inHouse = (await playerGames(player.client)).filter((game) => game.code === 'dice3' || game.code === 'double');
    assert.deepEqual(
      inHouse.map((game) => [game.code, game.status, game.rtp]),
      [
        ['dice3', 1, 85.64],
        ['double', 1, 93.33],
      ],
    );
    // The operator's rule accepts them as seeded: writing them enabled again passes.
    const admin = (await t.withRole('super-admin')).client;
    for (const game of inHouse) assert.equal(shown(await admin.patch(`/api/admin/games/${game.id}`, { status: 1 })).status, 1);
    for (const game of slots) assert.equal(shown(await admin.patch(`/api/admin/provider-games/${game.id}`, { status: 1 })).rtp, 96);
  });

  test('games:sync under br creates new games disabled and enables a returning one only with an rtp of 85 or more', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const provider = await createProvider(admin);
    let listed: ListedGame[] = [
      { code: 'a', name: 'A', enabled: true },
      { code: 'b', name: 'B', enabled: true },
    ];
    // A provider's list, as an adapter answers it (the demo adapter has none).
    const lister = { code: 'demo', listGames: () => Promise.resolve(listed) } as unknown as GameProviderAdapter;
    const sync = () =>
      syncCatalogue(
        { db: t.db, keys: new Keyring(t.config.appKey), adapters: new GameAdapters([lister]), regulation: 'br' },
        provider.code,
      );
    const games = () =>
      rows<{ code: string; status: number; rtp_bp: number | null }>(
        t.db,
        sql`select code, status, rtp_bp from provider_games where provider_id = ${provider.id} order by code`,
      );

    assert.equal((await sync()).created, 2);
    assert.deepEqual(await games(), [
      { code: 'a', status: 0, rtp_bp: null },
      { code: 'b', status: 0, rtp_bp: null },
    ]);
    // The operator enables `a` with its certificate's rtp; `b` was enabled before br without one.
    const [a] = await rows<{ id: number }>(t.db, sql`select id from provider_games where provider_id = ${provider.id} and code = 'a'`);
    assert.equal(shown(await admin.patch(`/api/admin/provider-games/${a!.id}`, { status: 1, rtp: 96 })).status, 1);
    await t.db.execute(sql`update provider_games set status = 1 where provider_id = ${provider.id} and code = 'b'`);

    listed = [];
    assert.equal((await sync()).disabled, 2);
    listed = [
      { code: 'a', name: 'A', enabled: true },
      { code: 'b', name: 'B', enabled: true },
    ];
    assert.equal((await sync()).enabled, 1);
    assert.deepEqual(await games(), [
      { code: 'a', status: 1, rtp_bp: 9600 },
      { code: 'b', status: 0, rtp_bp: null },
    ]);
  });
});

describe('REGULATION=none: an rtp may be stored, nothing is refused and records are the seed’s', () => {
  const DATA_DIR = `/tmp/croupier-rtp-none-${process.pid}`;
  const ctx = useApp({ DATA_DIR });
  after(() => rm(DATA_DIR, { recursive: true, force: true }));

  test('games are enabled without an rtp or with a low one, and no record carries rtp', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const provider = await createProvider(admin);
    const bare = shown(await createProviderGame(admin, provider.id, {}), 201);
    const low = shown(await createProviderGame(admin, provider.id, { rtp: 50 }), 201);
    for (const game of [bare, low]) {
      assert.equal(game.status, 1);
      assert.equal('rtp' in game, false);
    }
    const stored = await rows<{ rtp_bp: number | null }>(ctx().db, sql`select rtp_bp from provider_games where id = ${low.id}`);
    assert.equal(stored[0]!.rtp_bp, 5000);

    const dice = shown(await admin.post('/api/admin/games', { name: 'Dice', code: slug('dice'), type: 'dice3' }), 201);
    assert.equal(dice.status, 1);
    assert.equal('rtp' in dice, false);

    const player = await ctx().player();
    for (const game of listOf<Shown>(await player.client.get(`/api/providers/${provider.code}/games`))) assert.equal('rtp' in game, false);
    for (const game of await playerGames(player.client)) assert.equal('rtp' in game, false);
    assert.equal('rtp' in shown(await player.client.get(`/api/games/${dice.code}`)), false);
  });

  test('seed:demo under none keeps dice3’s default odds and stores the demo slot’s rtp', async () => {
    const t = ctx();
    await seedDemo(seedDeps(t), { password: 'demo-password-1' });
    const seeded = await rows<{ code: string; settings: Record<string, unknown> }>(
      t.db,
      sql`select code, settings from games where code in ('dice3', 'double') order by code`,
    );
    assert.deepEqual(seeded, [
      { code: 'dice3', settings: {} },
      { code: 'double', settings: {} },
    ]);
    const rtps = await rows<{ rtp_bp: number }>(
      t.db,
      sql`select g.rtp_bp from provider_games g join providers p on p.id = g.provider_id where p.code = 'demo'`,
    );
    assert.deepEqual(
      rtps.map((row) => row.rtp_bp),
      [9600, 9600, 9600],
    );
  });
});
