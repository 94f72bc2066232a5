import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { startApp, uniqueEmail, type TestApp } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS, missing } from './chromium.ts';
import { FRONTEND_URL, startFrontend, type Frontend } from './frontend.ts';

interface Step {
  name: string;
  status: number;
  data: unknown;
  cookies: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('the SPA in a real browser', { skip: missing }, () => {
  let app: TestApp;
  let frontend: Frontend | undefined;
  let browser: BrowserContext | undefined;
  let profile: string;
  let apiUrl: string;

  before(async () => {
    const port = await freePort();
    apiUrl = `http://localhost:${port}`;
    app = await startApp({ FRONTEND_URL, APP_URL: apiUrl });
    // "localhost" makes Fastify listen on every loopback address, as the browser may pick either.
    await app.app.listen({ host: 'localhost', port });
    profile = mkdtempSync(join(tmpdir(), 'croupier-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await frontend?.close();
    await app?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  test('axios from localhost:5173 gets the CSRF cookie, registers, reads the user and logs out', { timeout: 60_000 }, async () => {
    const account = { name: 'Browser Player', email: uniqueEmail('browser'), password: 'correct horse battery' };
    frontend = await startFrontend(apiUrl, account);
    const page = await browser!.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${FRONTEND_URL}/`);
    await page.waitForFunction('window.spaResult !== undefined', undefined, { timeout: 30_000 });
    const result = await page.evaluate<{ steps: Step[]; error?: string }>('window.spaResult');
    assert.deepEqual(pageErrors, []);
    assert.equal(result.error, undefined);

    const steps = Object.fromEntries(result.steps.map((step) => [step.name, step]));
    const summary = result.steps.map((step) => [step.name, step.status]);
    assert.deepEqual(summary, [
      ['csrf-cookie', 204],
      ['register', 201],
      ['user', 200],
      ['logout', 204],
      ['user after logout', 401],
    ]);
    // The page can read the XSRF token (axios copies it into X-XSRF-TOKEN) but never the session id.
    assert.match(steps['csrf-cookie']!.cookies, /(^|; )XSRF-TOKEN=/);
    assert.doesNotMatch(steps['csrf-cookie']!.cookies, /gp_session/);
    const user = steps.user!.data as { email: string; name: string };
    assert.equal(user.email, account.email);
    assert.equal(user.name, account.name);
    assert.deepEqual(steps['user after logout']!.data, { message: 'Unauthenticated.' });
    // The page shows what it did, as a person watching the browser would see it.
    assert.match(await page.locator('#result').innerText(), new RegExp(account.email.replace(/[.+]/g, '\\$&')));
  });
});
