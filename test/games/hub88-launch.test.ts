// Connecting a Hub88 operator account and launching its games (docs/api.md section 15,
// docs/games.md "Connecting a Hub88 operator account"): the provider's adapter_config as
// operators write and read it, and launches that ask the Hub88 simulator's Games API for the game
// URL, signed with our key, as Hub88 documents the call.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { Hub88Adapter } from '../../src/modules/games/hub88/adapter.ts';
import { providers } from '../../src/modules/games/tables.ts';
import { Keyring, sha256 } from '../../src/platform/crypto.ts';
import { one, rows } from '../../src/platform/db/client.ts';
import type { OperationLog } from '../admin/support.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { Hub88Simulator, requestUuid } from './hub88-simulator.ts';
import { dataOf, slug, type AdminProvider } from './support.ts';

const FRONTEND_URL = 'https://play.casino.example';

describe('Hub88: connecting an operator account and launching its games', () => {
  const simulator = new Hub88Simulator();
  before(() => simulator.start());
  after(() => simulator.stop());
  // A launch waits for Hub88 ten seconds in production; here a Hub88 that never answers is given up sooner.
  const ctx = useApp({ FRONTEND_URL }, { gameAdapters: [new Hub88Adapter({ launchTimeoutMs: 2_000 })] });

  async function connect(t: TestApp, config: Record<string, unknown> = simulator.config()) {
    const admin = (await t.withRole('super-admin')).client;
    const res = await admin.post('/api/admin/providers', { name: 'Hub88', code: slug('hub88'), adapter: 'hub88', adapter_config: config });
    assert.equal(res.status, 201, res.text);
    const provider = dataOf<AdminProvider>(res);
    const game = await admin.post('/api/admin/provider-games', {
      provider_id: provider.id,
      name: 'Simulated Fruits',
      slug: slug('fruits'),
      code: 'sim_fruits',
    });
    assert.equal(game.status, 201, game.text);
    return { admin, provider, game: dataOf<{ id: number; slug: string }>(game) };
  }

  test('an operator connects a Hub88 account: the configuration is answered without its private key, which is stored encrypted and redacted in the log', async () => {
    const t = ctx();
    const { admin, provider } = await connect(t);
    // Strings are trimmed on the way in (docs/api.md section 4): the PEMs lose their last line break.
    const trimmed = Object.fromEntries(
      Object.entries(simulator.config()).map(([field, value]) => [field, typeof value === 'string' ? value.trim() : value]),
    );
    const { private_key: privateKey, ...returned } = trimmed;
    assert.deepEqual([provider.adapter, provider.adapter_config, provider.adapter_secrets], ['hub88', returned, ['private_key']]);
    for (const res of [
      await admin.get(`/api/admin/providers/${provider.id}`),
      await admin.get(`/api/admin/providers?code=${provider.code}`),
    ]) {
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes('PRIVATE KEY') && !res.text.includes('private_key":'), res.text);
    }
    const [stored] = await t.db.select({ config: providers.adapterConfig }).from(providers).where(eq(providers.id, provider.id));
    const sealed = stored!.config!.private_key as string;
    assert.match(sealed, /^v1\./);
    assert.equal(new Keyring(t.config.appKey).decrypt(sealed), privateKey);
    const [logged] = await rows<OperationLog>(
      t.db,
      sql`select * from operation_logs where path = '/api/admin/providers' order by id desc limit 1`,
    );
    assert.equal((logged!.payload.adapter_config as Record<string, unknown>).private_key, '[redacted]');
    assert.ok(!JSON.stringify(logged!.payload).includes('PRIVATE KEY'));

    // A change of one field keeps the others, the write-only key included.
    const moved = await admin.patch(`/api/admin/providers/${provider.id}`, { adapter_config: { base_url: `${simulator.baseUrl}/` } });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(dataOf<AdminProvider>(moved).adapter_config, { ...returned, base_url: `${simulator.baseUrl}/` });
    assert.deepEqual(dataOf<AdminProvider>(moved).adapter_secrets, ['private_key']);
    const [after] = await t.db.select({ config: providers.adapterConfig }).from(providers).where(eq(providers.id, provider.id));
    assert.equal(new Keyring(t.config.appKey).decrypt(after!.config!.private_key as string), privateKey);
  });

  test('a configuration Hub88 cannot work with is a 422 on the field at fault, and nothing is written', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const before = (await one<{ n: number }>(t.db, sql`select count(*)::int as n from providers`))!.n;
    const logs = (await one<{ n: number }>(t.db, sql`select count(*)::int as n from operation_logs`))!.n;
    const create = (adapter_config: unknown, adapter = 'hub88') =>
      admin.post('/api/admin/providers', { name: 'Hub88', code: slug('hub88'), adapter, adapter_config });
    const errorsOf = async (adapter_config: unknown, adapter?: string) => {
      const res = await create(adapter_config, adapter);
      assert.equal(res.status, 422, res.text);
      return (res.json as { errors: Record<string, string[]> }).errors;
    };
    const good = simulator.config();
    assert.deepEqual(Object.keys(await errorsOf(undefined)).sort(), [
      'adapter_config.base_url',
      'adapter_config.hub88_public_key',
      'adapter_config.operator_id',
      'adapter_config.private_key',
    ]);
    assert.deepEqual(await errorsOf({ ...good, private_key: 'not a key' }), {
      'adapter_config.private_key': ['The private key must be an RSA key in PEM format.'],
    });
    assert.deepEqual(await errorsOf({ ...good, private_key: simulator.operator.publicKey }), {
      'adapter_config.private_key': ['The private key must be an RSA key in PEM format.'],
    });
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    assert.deepEqual(await errorsOf({ ...good, hub88_public_key: ec.publicKey }), {
      'adapter_config.hub88_public_key': ['The hub88 public key must be an RSA key in PEM format.'],
    });
    const short = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    assert.deepEqual(await errorsOf({ ...good, private_key: short.privateKey }), {
      'adapter_config.private_key': ['The private key must be at least 2048 bits long.'],
    });
    assert.deepEqual(await errorsOf({ ...good, hub88_public_key: simulator.hub88.privateKey }), {
      'adapter_config.hub88_public_key': ['The hub88 public key must be a public key; a private key is never sent here.'],
    });
    assert.deepEqual(await errorsOf({ ...good, operator_id: '4242' }), {
      'adapter_config.operator_id': ['The operator id must be a positive integer.'],
    });
    assert.deepEqual(await errorsOf({ ...good, base_url: 'ftp://hub88.example' }), {
      'adapter_config.base_url': ['The base url must start with https:// or http://.'],
    });
    assert.deepEqual(Object.keys(await errorsOf({ ...good, secret_sauce: 1 })), ['adapter_config.secret_sauce']);
    assert.deepEqual(await errorsOf(good, 'demo'), { adapter_config: ['The demo adapter takes no configuration.'] });

    assert.equal((await one<{ n: number }>(t.db, sql`select count(*)::int as n from providers`))!.n, before);
    assert.equal((await one<{ n: number }>(t.db, sql`select count(*)::int as n from operation_logs`))!.n, logs);
  });

  test('a launch asks Hub88 for the game URL, signed with our key, and hands Hub88 the session’s own token, which its wallet calls then carry', async () => {
    const t = ctx();
    const { provider, game } = await connect(t);
    const player = await t.player();
    await fund(t, player.id, 5_000n);
    const res = await player.client.get(`/api/provider-games/${game.slug}/launch`, {
      'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148',
      'accept-language': 'en-GB,en;q=0.9',
    });
    assert.equal(res.status, 200, `${res.text} ${JSON.stringify(simulator.refused)}`);
    const data = (res.json as { data: { url: string; html: null; token: string } }).data;
    const asked = simulator.gameUrls.at(-1)!;
    assert.equal(data.url, asked.url);
    assert.equal(data.html, null);
    assert.deepEqual(asked.body, {
      user: `player-${player.id}`,
      token: data.token,
      platform: 'GPL_MOBILE',
      operator_id: simulator.operatorId,
      lobby_url: FRONTEND_URL,
      lang: 'en',
      ip: '127.0.0.1',
      game_code: 'sim_fruits',
      country: 'BR',
      currency: 'BRL',
    });
    const [session] = await rows<{ session_token_hash: string; launch_token_hash: string; redeemed: boolean; usable: boolean }>(
      t.db,
      sql`select session_token_hash, launch_token_hash, redeemed_at is not null as redeemed, expires_at > now() as usable
        from game_sessions where user_id = ${player.id}`,
    );
    assert.deepEqual(session, {
      session_token_hash: sha256(data.token),
      launch_token_hash: session!.launch_token_hash,
      redeemed: true,
      usable: true,
    });
    assert.notEqual(session.launch_token_hash, sha256(data.token), 'the token is not a launch token to redeem');
    // Hub88's calls for this session carry that token.
    const balance = await simulator.call(t, provider.code, 'user/balance', {
      user: `player-${player.id}`,
      token: data.token,
      request_uuid: requestUuid(),
      game_code: 'sim_fruits',
    });
    assert.deepEqual([balance.json.status, balance.json.balance], ['RS_OK', 5_000_000]);

    // A desktop browser without a language: Hub88's desktop layout, in Portuguese.
    const desktop = await player.client.get(`/api/provider-games/${game.slug}/launch`, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' });
    assert.equal(desktop.status, 200, desktop.text);
    assert.deepEqual([simulator.gameUrls.at(-1)!.body.platform, simulator.gameUrls.at(-1)!.body.lang], ['GPL_DESKTOP', 'pt']);
  });

  test('a demo launch asks Hub88 for currency XXX, with neither a player nor a token', async () => {
    const t = ctx();
    const { game } = await connect(t);
    const player = await t.player();
    const res = await player.client.get(`/api/provider-games/${game.id}/launch?demo=1`);
    assert.equal(res.status, 200, res.text);
    const body = simulator.gameUrls.at(-1)!.body;
    assert.equal(body.currency, 'XXX');
    assert.ok(!('user' in body) && !('token' in body), JSON.stringify(body));
    const [session] = await rows<{ demo: boolean; session_token_hash: string | null }>(
      t.db,
      sql`select demo, session_token_hash from game_sessions where user_id = ${player.id}`,
    );
    assert.deepEqual(session, { demo: true, session_token_hash: null });
  });

  test('Hub88 refusing, failing or not answering in time is a 502, and the token it was handed is dead', async () => {
    const t = ctx();
    const { provider, game } = await connect(t);
    const player = await t.player();
    try {
      for (const mode of ['error', 'hang'] as const) {
        simulator.mode = mode;
        const res = await player.client.get(`/api/provider-games/${game.id}/launch`);
        assert.deepEqual([res.status, res.json], [502, { message: 'The game provider is unavailable. Please try again later.' }], mode);
        const token = simulator.gameUrlAttempts.at(-1)!.token as string;
        const balance = await simulator.call(t, provider.code, 'user/balance', {
          user: `player-${player.id}`,
          token,
          request_uuid: requestUuid(),
          game_code: 'sim_fruits',
        });
        assert.equal(balance.json.status, 'RS_ERROR_TOKEN_EXPIRED', mode);
      }
    } finally {
      simulator.mode = 'ok';
    }
    // A game Hub88 does not list (its 404) is the same 502.
    const admin = (await t.withRole('super-admin')).client;
    const unknown = await admin.post('/api/admin/provider-games', {
      provider_id: provider.id,
      name: 'Gone',
      slug: slug('gone'),
      code: 'sim_gone',
    });
    assert.equal((await player.client.get(`/api/provider-games/${dataOf<{ id: number }>(unknown).id}/launch`)).status, 502);
    assert.equal(simulator.refused.at(-1)!.status, 404);
    const [dead] = await rows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from game_sessions where user_id = ${player.id} and expires_at > now()`,
    );
    assert.equal(dead!.n, 0);
  });
});
