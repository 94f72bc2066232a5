import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { loadAdminFiles, ADMIN_DIST } from '../../src/modules/backoffice/files.ts';
import { registerBackOfficeRoutes } from '../../src/modules/backoffice/routes.ts';
import type { AppContext } from '../../src/platform/context.ts';
import type { App } from '../../src/platform/http/app.ts';
import { testConfig, useApp } from '../helpers/app.ts';

/** The first load's budget, as sent compressed (issue 36, "Done when"). */
const FIRST_LOAD_LIMIT = 600 * 1024;

/** The scripts and styles index.html loads at once (the entry and what it preloads; lazy chunks are not among them). */
function firstLoad(html: string): string[] {
  const found = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="(?:modulepreload|stylesheet)"[^>]*\shref)="\/admin\/([^"]+)"/g)];
  return found.map((match) => match[1]!);
}

/*
 * Contract section 16: the back office is served at /admin/ by croupier itself, from the same
 * origin, compressed, hashed assets cached for good and index.html revalidated, with a policy
 * that lets nothing come from another origin; a screen's path is a deep link to index.html.
 */
describe('serving the back office at /admin/', () => {
  const ctx = useApp({ ADMIN_LOCALE: 'pt-BR' });

  test('/admin/ and every screen path answer index.html, revalidated, with a policy that allows only this origin', async () => {
    const client = ctx().client();
    const home = await client.get('/admin/');
    assert.equal(home.status, 200);
    assert.match(String(home.headers['content-type']), /^text\/html/);
    assert.equal(home.headers['cache-control'], 'no-cache');
    const policy = String(home.headers['content-security-policy']);
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /script-src 'self'(;|$)/);
    assert.doesNotMatch(policy, /https?:|\*|wss?:/, 'no other origin is named or wildcarded');
    assert.match(home.text, /<div id="root"><\/div>/);
    // ADMIN_LOCALE is the first visit's language, in a meta tag the app reads (no inline script under this policy).
    assert.match(home.text, /<meta name="admin-locale" content="pt-BR" \/>/);
    for (const path of ['/admin', '/admin/withdrawals', '/admin/players/12/show', '/admin/transactions?filter=%7B%7D']) {
      const deep = await client.get(path);
      assert.equal(deep.status, 200, path);
      assert.equal(deep.text, home.text, path);
    }
  });

  test('the first load’s JavaScript, as sent with brotli, stays within 600 KB; assets are compressed and cached for good', async () => {
    const client = ctx().client();
    const html = (await client.get('/admin/')).text;
    const files = firstLoad(html);
    assert.ok(
      files.some((file) => file.endsWith('.js')),
      html,
    );
    let sent = 0;
    for (const file of files) {
      const br = await ctx().app.inject({ method: 'GET', url: `/admin/${file}`, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal(br.statusCode, 200, file);
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(br.headers.vary, 'Accept-Encoding');
      sent += br.rawPayload.length;
      const gzip = await ctx().app.inject({ method: 'GET', url: `/admin/${file}`, headers: { 'accept-encoding': 'gzip' } });
      const plain = await ctx().app.inject({ method: 'GET', url: `/admin/${file}` });
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload));
      assert.ok(gunzipSync(gzip.rawPayload).equals(plain.rawPayload));
    }
    console.log(`first load of /admin/: ${files.join(', ')}: ${(sent / 1024).toFixed(1)} KB as sent (brotli)`);
    assert.ok(sent <= FIRST_LOAD_LIMIT, `${sent} bytes`);
  });

  test('a file missing under assets/ is a 404, not the page in its place', async () => {
    const res = await ctx().client().get('/admin/assets/index-gone.js');
    assert.equal(res.status, 404);
  });

  test('without a build, /admin/ is a 503 page that says to run npm install', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'croupier-no-build-'));
    const app = Fastify() as unknown as App;
    try {
      registerBackOfficeRoutes(app, { config: { adminLocale: 'en' } } as AppContext, empty);
      const res = await app.inject({ method: 'GET', url: '/admin/players' });
      assert.equal(res.statusCode, 503);
      assert.match(res.body, /Run <code>npm install<\/code>/);
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('ADMIN_LOCALE is en or pt-BR; anything else stops the start naming it', () => {
    assert.equal(testConfig().adminLocale, 'en');
    assert.equal(testConfig({ ADMIN_LOCALE: 'pt-BR' }).adminLocale, 'pt-BR');
    assert.throws(() => testConfig({ ADMIN_LOCALE: 'pt_BR' }), /ADMIN_LOCALE/);
  });

  test('index.html names the first visit’s language: en by default', () => {
    const files = loadAdminFiles(ADMIN_DIST, 'en');
    assert.match(files!.get('index.html')!.body.toString('utf8'), /<meta name="admin-locale" content="en" \/>/);
  });
});
