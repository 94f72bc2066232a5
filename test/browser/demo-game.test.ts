import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { createGame, createProvider, launch } from '../games/helpers.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, missing } from './chromium.ts';

describe('the demo slot in a real browser', { skip: missing }, () => {
  let app: TestApp;
  let browser: BrowserContext | undefined;
  let profile: string;
  let appUrl: string;

  before(async () => {
    app = await startApp();
    appUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
    profile = mkdtempSync(join(tmpdir(), 'croupier-chromium-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  test('the page loads under its policy, shows the balance, and its spins write bet and win lines', { timeout: 60_000 }, async () => {
    const provider = await createProvider(app, { adapter: 'demo' });
    const game = await createGame(app, provider.id);
    const player = await app.player();
    await fund(app, player.id, 10_000n);
    const launched = await launch(app, { userId: player.id, providerId: provider.id, gameId: game.id });

    const page = await browser!.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // A script or style the Content-Security-Policy blocks is reported on the console.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${appUrl}/games/demo/play?token=${launched.token}`);
    // Locators, not string predicates: the page's policy forbids eval, which those use.
    await page.locator('.balance', { hasText: /^Balance/ }).waitFor({ timeout: 15_000 });
    assert.match((await page.textContent('.balance'))!, /Balance: R\$\s?100,00/);

    // Spin at 1.00 until a win shows (a third of the lines pay).
    let spins = 0;
    let message = '';
    while (!message.startsWith('You win') && spins < 60) {
      // The click handler disables the button before it asks the server; it comes back with the answer.
      await page.click('.spin');
      await page.locator('.spin:enabled').waitFor();
      message = (await page.textContent('.message'))!;
      spins += 1;
    }
    assert.match(message, /^You win R\$/);
    assert.deepEqual(problems, []);

    const lines = await ledgerOf(app.db, player.id);
    assert.equal(lines.filter((line) => line.type === 'bet').length, spins);
    assert.ok(lines.some((line) => line.type === 'win'));
    const balance = await balanceOf(app.db, player.id);
    assert.match(
      (await page.textContent('.balance'))!.replace(/\s/g, ' '),
      new RegExp(`R\\$ ?${(Number(balance) / 100).toFixed(2).replace('.', ',')}`),
    );
    assert.deepEqual((await verifyLedger(app.db)).problems, []);
  });
});
