import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type {
  GameProviderAdapter,
  Launch,
  LaunchRequest,
  WalletAction,
  WalletAnswer,
  WalletCall,
} from '../../src/modules/games/adapters/adapter.ts';
import { DemoAdapter } from '../../src/modules/games/demo-provider/adapter.ts';
import { sha256 } from '../../src/platform/crypto.ts';
import { one, rows } from '../../src/platform/db/client.ts';
import { verifySignedBody } from '../../src/platform/signature.ts';
import { useApp } from '../helpers/app.ts';
import { createGame, createProvider } from './support.ts';

const APP_URL = 'https://casino.example.test';

interface LaunchData {
  url: string;
  html: string | null;
  token: string;
}

interface SessionRow {
  id: string;
  launch_token_hash: string;
  session_token_hash: string | null;
  user_id: string;
  provider_id: string;
  provider_game_id: string;
  currency: string;
  demo: boolean;
  redeemed_at: string | null;
  launch_ttl: number;
  session_ttl: number;
  usable: boolean;
}

/** A provider adapter written for these tests: it records what it was asked, and fails or refuses demo when told. */
class TestAdapter implements GameProviderAdapter {
  readonly code: string;
  readonly supportsDemo: boolean;
  readonly #fails: boolean;
  readonly requests: LaunchRequest[] = [];

  constructor(code: string, options: { supportsDemo?: boolean; fails?: boolean } = {}) {
    this.code = code;
    this.supportsDemo = options.supportsDemo ?? true;
    this.#fails = options.fails ?? false;
  }

  async launch(request: LaunchRequest): Promise<Launch> {
    this.requests.push(request);
    if (this.#fails) throw new Error('provider down');
    return { url: `https://provider.example.test/play/${request.game.code}`, html: '<iframe></iframe>' };
  }

  verify(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void {
    verifySignedBody(rawBody, headers, secret, now);
  }

  // Its wallet calls speak the built-in protocol; these tests are about launching.
  readonly #protocol = new DemoAdapter();

  parseWalletCall(action: WalletAction, body: unknown): WalletCall {
    return this.#protocol.parseWalletCall(action, body);
  }

  walletAnswer(call: WalletCall, answer: WalletAnswer): Record<string, unknown> {
    return this.#protocol.walletAnswer(call, answer);
  }
}

describe('game launch', () => {
  const ctx = useApp({ APP_URL });

  async function sessions(userId: number): Promise<SessionRow[]> {
    return rows<SessionRow>(
      ctx().db,
      sql`select *, extract(epoch from launch_expires_at - created_at)::int as launch_ttl,
        extract(epoch from expires_at - created_at)::int as session_ttl,
        (launch_expires_at > now() and expires_at > now()) as usable
        from game_sessions where user_id = ${userId} order by id`,
    );
  }

  test('a launch answers the demo adapter’s URL with a new token, stored only as its digest and bound to player, game and currency', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const provider = await createProvider(admin);
    const game = await createGame(admin, provider.id);

    const res = await player.client.get(`/api/provider-games/${game.id}/launch`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    const data = (res.json as { data: LaunchData }).data;
    assert.match(data.token, /^[A-Za-z0-9]{40,}$/);
    assert.equal(data.url, `${APP_URL}/games/demo/play?token=${data.token}`);
    assert.equal(data.html, null);

    const [row, ...more] = await sessions(player.id);
    assert.equal(more.length, 0, 'one game session per launch');
    assert.deepEqual(
      {
        launch_token_hash: row!.launch_token_hash,
        session_token_hash: row!.session_token_hash,
        user_id: Number(row!.user_id),
        provider_id: Number(row!.provider_id),
        provider_game_id: Number(row!.provider_game_id),
        currency: row!.currency,
        demo: row!.demo,
        redeemed_at: row!.redeemed_at,
        launch_ttl: row!.launch_ttl,
        session_ttl: row!.session_ttl,
        usable: row!.usable,
      },
      {
        launch_token_hash: sha256(data.token),
        session_token_hash: null,
        user_id: player.id,
        provider_id: provider.id,
        provider_game_id: game.id,
        currency: 'BRL',
        demo: false,
        redeemed_at: null,
        launch_ttl: 120,
        session_ttl: 1800,
        usable: true,
      },
    );
    const plain = await one<{ n: number }>(
      ctx().db,
      sql`select count(*)::int as n from game_sessions g where position(${data.token} in g::text) > 0`,
    );
    assert.equal(plain!.n, 0, 'the token itself is stored nowhere');

    const again = await player.client.get(`/api/provider-games/${game.slug}/launch`);
    assert.equal(again.status, 200);
    assert.notEqual((again.json as { data: LaunchData }).data.token, data.token);
    assert.equal((await sessions(player.id)).length, 2);
  });

  test('demo=1 or true opens a demo session; anything but a flag is a 422', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const game = await createGame(admin, (await createProvider(admin)).id);
    for (const demo of ['1', 'true'])
      assert.equal((await player.client.get(`/api/provider-games/${game.id}/launch?demo=${demo}`)).status, 200);
    for (const demo of ['0', 'false'])
      assert.equal((await player.client.get(`/api/provider-games/${game.id}/launch?demo=${demo}`)).status, 200);
    assert.deepEqual(
      (await sessions(player.id)).map((row) => row.demo),
      [true, true, false, false],
    );
    const bad = await player.client.get(`/api/provider-games/${game.id}/launch?demo=yes-please`);
    assert.equal(bad.status, 422);
    assert.ok('demo' in (bad.json as { errors: object }).errors);
  });

  test('the adapter is asked with the token, currency and game, and its URL and markup are answered', async () => {
    const adapter = new TestAdapter('recording');
    ctx().app.gameAdapters.register(adapter);
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const provider = await createProvider(admin, { adapter: 'recording' });
    const game = await createGame(admin, provider.id, { code: 77 });
    const res = await player.client.get(`/api/provider-games/${game.slug}/launch?demo=1`);
    assert.equal(res.status, 200, res.text);
    const data = (res.json as { data: LaunchData }).data;
    assert.deepEqual(data, { url: 'https://provider.example.test/play/77', html: '<iframe></iframe>', token: data.token });
    assert.deepEqual(
      adapter.requests.map(({ provider, game, token, currency, demo, appUrl, player, config }) => ({
        provider,
        game,
        token,
        currency,
        demo,
        appUrl,
        player,
        config,
      })),
      [
        {
          provider: { id: provider.id, code: provider.code },
          game: { id: game.id, slug: game.slug, code: '77', name: game.name },
          token: data.token,
          currency: 'BRL',
          demo: true,
          appUrl: APP_URL,
          player: { id: player.id },
          config: null,
        },
      ],
    );
    assert.equal(typeof adapter.requests[0]!.client.ip, 'string', 'the player’s address, for providers that ask');
  });

  test('demo play on an adapter that does not allow it is a 422 on demo and opens nothing', async () => {
    ctx().app.gameAdapters.register(new TestAdapter('money-only', { supportsDemo: false }));
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const game = await createGame(admin, (await createProvider(admin, { adapter: 'money-only' })).id);
    const res = await player.client.get(`/api/provider-games/${game.id}/launch?demo=true`);
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'Demo play is not available for this game.',
      errors: { demo: ['Demo play is not available for this game.'] },
    });
    assert.equal((await sessions(player.id)).length, 0);
    assert.equal((await player.client.get(`/api/provider-games/${game.id}/launch`)).status, 200);
  });

  test('an adapter that fails is a 502, and the token it was given can no longer be used', async () => {
    ctx().app.gameAdapters.register(new TestAdapter('broken', { fails: true }));
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const game = await createGame(admin, (await createProvider(admin, { adapter: 'broken' })).id);
    const res = await player.client.get(`/api/provider-games/${game.id}/launch`);
    assert.equal(res.status, 502);
    assert.deepEqual(res.json, { message: 'The game provider is unavailable. Please try again later.' });
    const [row, ...more] = await sessions(player.id);
    assert.equal(more.length, 0);
    assert.equal(row!.usable, false);
  });

  test('an unknown or disabled game, or a game of a disabled provider, is a 404 whatever the query', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const provider = await createProvider(admin);
    const disabledGame = await createGame(admin, provider.id, { status: 0 });
    const hiddenProvider = await createProvider(admin, { status: 0 });
    const orphan = await createGame(admin, hiddenProvider.id);
    for (const key of [disabledGame.id, disabledGame.slug, orphan.id, orphan.slug, 999_999_999, 'no-such-game', 'UPPER', '0', '1e3']) {
      const res = await player.client.get(`/api/provider-games/${key}/launch`);
      assert.equal(res.status, 404, String(key));
      assert.deepEqual(res.json, { message: 'Not found.' });
      assert.equal((await player.client.get(`/api/provider-games/${key}/launch?demo=bad`)).status, 404, String(key));
    }
    assert.equal((await sessions(player.id)).length, 0);
    assert.equal((await ctx().client().get(`/api/provider-games/${orphan.id}/launch`)).status, 401);
  });

  test('a player gets 30 launches a minute: the 31st is a 429 with Retry-After, whatever the game, and opens nothing; others play on', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await ctx().player();
    const other = await ctx().player();
    const game = await createGame(admin, (await createProvider(admin)).id);
    // Every request counts, an unknown game's too.
    assert.equal((await player.client.get('/api/provider-games/no-such-game/launch')).status, 404);
    for (let i = 1; i < 30; i += 1) {
      const res = await player.client.get(`/api/provider-games/${game.id}/launch`);
      assert.equal(res.status, 200, `launch ${i + 1}: ${res.text}`);
    }
    for (const path of [
      `/api/provider-games/${game.id}/launch`,
      '/api/provider-games/no-such-game/launch',
      `/api/provider-games/${game.slug}/launch?demo=bad`,
    ]) {
      const res = await player.client.get(path);
      assert.equal(res.status, 429, path);
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(res.headers['retry-after']));
      assert.deepEqual(res.json, { message: `Too many attempts. Please try again in ${retryAfter} seconds.` });
    }
    assert.equal((await sessions(player.id)).length, 29);
    assert.equal((await other.client.get(`/api/provider-games/${game.id}/launch`)).status, 200);
    // A guest is still a 401, not a 429.
    assert.equal((await ctx().client().get(`/api/provider-games/${game.id}/launch`)).status, 401);

    // Once the window is over, launches open again.
    await ctx().db.execute(sql`update rate_limits set reset_at = now() - interval '1 second' where key = ${`launch|${player.id}`}`);
    assert.equal((await player.client.get(`/api/provider-games/${game.id}/launch`)).status, 200);
  });
});
