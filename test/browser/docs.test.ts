import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS, missing } from './chromium.ts';

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

interface Answer {
  status: string;
  body: string;
  curl: string;
}

/**
 * Opens /docs and shows the Account operations only (the UI draws every operation of a short
 * list; of the whole document, only those near the viewport).
 */
async function openAccountOperations(page: Page, apiUrl: string): Promise<void> {
  await page.goto(`${apiUrl}/docs`);
  await page.locator('input.operation-filter-input').fill('Account');
  await page.locator('#operations-Account-putUserProfileInformation').waitFor();
}

/**
 * Presses "Try it out" on an Account operation (with `body` in the request body editor) and
 * "Execute", and reads the answer the page shows: its status, its body, and the curl line
 * swagger-ui shows for the request it sent.
 */
async function tryItOut(page: Page, operationId: string, body?: unknown): Promise<Answer> {
  const block = page.locator(`#operations-Account-${operationId}`);
  if ((await block.locator('.opblock-body').count()) === 0) await block.locator('.opblock-summary-control').click();
  const tryOut = block.locator('button.try-out__btn');
  if ((await tryOut.innerText()).trim() === 'Try it out') await tryOut.click();
  if (body !== undefined) await block.locator('textarea.body-param__text').fill(JSON.stringify(body));
  // A second run of the same operation: clear the first answer so the one read is the new one.
  const clear = block.locator('button.btn-clear');
  if ((await clear.count()) > 0) await clear.click();
  await block.locator('button.execute').click();
  const status = block.locator('.live-responses-table tr.response .response-col_status').first();
  await status.waitFor();
  return {
    status: (await status.innerText()).trim(),
    body: await block.locator('.live-responses-table tr.response .response-col_description').first().innerText(),
    curl: await block.locator('.curl-command').innerText(),
  };
}

describe('/docs in a real browser', { skip: missing }, () => {
  let app: TestApp;
  let browser: BrowserContext | undefined;
  let profile: string;
  let apiUrl: string;

  before(async () => {
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    // Opened at 127.0.0.1 while APP_URL says localhost (the default's shape): the document's
    // server is relative, so Try it out still sends its requests to the origin the page is on.
    app = await startApp({ APP_URL: `http://localhost:${port}` });
    await app.app.listen({ host: '127.0.0.1', port });
    profile = mkdtempSync(join(tmpdir(), 'croupier-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  test(
    'Try it out, opened at another address than APP_URL, signs in, then reads the user (200) and changes the profile (200) with the session and its CSRF token',
    { timeout: 180_000 },
    async () => {
      const account = await app.player({ name: 'Docs Reader' });
      const page = await browser!.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await openAccountOperations(page, apiUrl);
      // Not signed in yet: the page's answer is the guard's.
      assert.equal((await tryItOut(page, 'getUser')).status, '401');

      assert.equal((await tryItOut(page, 'getCsrfCookie')).status, '204');
      const login = await tryItOut(page, 'postLogin', { email: account.email, password: account.password });
      assert.equal(login.status, '200', login.body);
      assert.match(login.body, /"two_factor": false/);
      // The token was copied from the XSRF-TOKEN cookie into the header (swagger-ui shows the request it sent).
      assert.match(login.curl, /X-XSRF-TOKEN: [A-Za-z0-9]{40}/);

      const user = await tryItOut(page, 'getUser');
      assert.equal(user.status, '200', user.body);
      assert.match(user.body, new RegExp(`"email": "${account.email.replace(/[.+]/g, '\\$&')}"`));

      // Signing in replaced the token: the request reads the new one from the cookie.
      const profile = await tryItOut(page, 'putUserProfileInformation', { name: 'Renamed In Docs', email: account.email });
      assert.equal(profile.status, '200', profile.body);
      const renamed = await tryItOut(page, 'getUser');
      assert.equal(renamed.status, '200', renamed.body);
      assert.match(renamed.body, /"name": "Renamed In Docs"/);
      assert.deepEqual(pageErrors, []);
    },
  );
});
