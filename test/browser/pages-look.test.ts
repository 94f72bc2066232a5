import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SYMBOLS } from '../../src/modules/games/demo-provider/paytable.ts';
import { SYMBOL_NAMES } from '../../src/modules/games/demo-provider/symbols.ts';
import { displayMoney } from '../../src/platform/money.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { createGame, createProvider, launch } from '../games/helpers.ts';
import { createTopup } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, missing } from './chromium.ts';
import type { PageElement, PageWindow } from './dom.ts';
import { DRAWABLE, LATIN_1, overflowProblems, undrawableTexts } from './layout.ts';

/** A small phone, a common phone, a tablet, a small and a common laptop. */
const WIDTHS = [320, 375, 768, 1024, 1280];

/*
 * The two pages the service draws itself, on Debian's Chromium with only the fonts its packages
 * bring (no emoji font), at every width from a small phone to a laptop. Screenshots go to
 * SCREENSHOT_DIR when it is set (to look at them), else to a temporary folder removed afterwards.
 */
describe('the demo slot and the payment page on a stock machine', { skip: missing }, () => {
  let app: TestApp;
  let browser: Browser | undefined;
  let appUrl: string;
  let shots: string;
  const keepShots = process.env.SCREENSHOT_DIR !== undefined;

  before(async () => {
    app = await startApp();
    appUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    shots = keepShots ? process.env.SCREENSHOT_DIR! : mkdtempSync(join(tmpdir(), 'croupier-screens-'));
    mkdirSync(shots, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    if (!keepShots && shots !== undefined) rmSync(shots, { recursive: true, force: true });
  });

  /** A page that records script errors and what the Content-Security-Policy blocked (both reach the console). */
  async function open(context: BrowserContext, url: string): Promise<{ page: Page; problems: string[] }> {
    // An element that never shows fails the test in seconds, naming what it waited for.
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(url);
    return { page, problems };
  }

  /** At each width: a full-page screenshot, and nothing sticking out. */
  async function checkWidths(page: Page, name: string): Promise<void> {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
      assert.deepEqual(await overflowProblems(page), [], `${name} at ${width} px`);
    }
  }

  async function payPage(amount: number) {
    const player = await app.player();
    const topup = await createTopup(player.client, amount);
    return { topup, url: `${appUrl}${new URL(topup.payment_url!).pathname}` };
  }

  test(
    'the demo slot draws its symbols in SVG, shows reais as Brazil writes them and overflows nothing from 320 to 1280 px',
    { timeout: 90_000 },
    async () => {
      const provider = await createProvider(app, { adapter: 'demo' });
      const game = await createGame(app, provider.id);
      const player = await app.player();
      await fund(app, player.id, 100_000n);
      const launched = await launch(app, { userId: player.id, providerId: provider.id, gameId: game.id });
      const context = await browser!.newContext();
      const { page, problems } = await open(context, `${appUrl}/games/demo/play?token=${launched.token}`);
      await page.locator('.balance', { hasText: /^Balance/ }).waitFor({ timeout: 15_000 });
      assert.equal(await page.textContent('.balance'), `Balance: ${displayMoney(1000, 'BRL')}`);
      assert.match((await page.textContent('.balance'))!, /^Balance: R\$\s1\.000,00$/);
      assert.deepEqual(
        await page.locator('.stakes button').allTextContents(),
        [0.1, 0.5, 1, 2, 5, 10].map((stake) => displayMoney(stake, 'BRL')),
      );

      // A few spins, so the reels show what the game drew rather than the page's first line.
      for (let spin = 0; spin < 3; spin += 1) {
        await page.click('.spin');
        await page.locator('.spin:enabled').waitFor();
      }
      assert.match((await page.textContent('.message'))!, /^(You win R\$\s\d+,\d\d!|No win this time\.)$/);

      // Each reel is one SVG showing one of the sprite's drawings, which draws something.
      const reels = await page.locator('.reel').evaluateAll((elements: PageElement[]) =>
        elements.map((reel) => {
          const { document } = globalThis as unknown as PageWindow;
          const use = reel.querySelector(':scope > svg > use');
          const href = use?.getAttribute('href') ?? '';
          const box = use?.getBBox?.();
          return {
            children: [...reel.children].map((child) => child.tagName.toLowerCase()),
            drawing: href,
            symbol: href === '' ? null : (document.querySelector(href)?.tagName ?? null),
            drawn: box !== undefined && (box.width > 0 || box.height > 0),
            label: reel.getAttribute('aria-label'),
          };
        }),
      );
      assert.equal(reels.length, 3);
      for (const reel of reels) {
        assert.deepEqual(reel.children, ['svg']);
        const symbol = SYMBOLS.find((known) => reel.drawing === `#symbol-${known}`);
        assert.ok(symbol !== undefined, reel.drawing);
        assert.equal(reel.symbol, 'symbol');
        assert.ok(reel.drawn, `${reel.drawing} draws nothing`);
        // A screen reader says what the reel shows.
        assert.equal(reel.label, SYMBOL_NAMES[symbol]);
      }
      // The paytable shows all six drawings (and the "any other symbol" one), each drawing something.
      const shown = await page.locator('.line use').evaluateAll((uses: PageElement[]) =>
        uses.map((use) => {
          const box = use.getBBox?.();
          return { drawing: use.getAttribute('href'), drawn: box !== undefined && (box.width > 0 || box.height > 0) };
        }),
      );
      assert.deepEqual(
        [...new Set(shown.map((use) => use.drawing))].sort(),
        [...SYMBOLS.map((symbol) => `#symbol-${symbol}`), '#symbol-any'].sort(),
      );
      assert.deepEqual(
        shown.filter((use) => !use.drawn),
        [],
      );

      // No emoji, nothing a stock font may lack: the reels (their drawings' text too) in Latin-1.
      assert.deepEqual(await undrawableTexts(page, '.reels, .sprite', LATIN_1), []);
      assert.deepEqual(await undrawableTexts(page, 'body', DRAWABLE), []);

      await checkWidths(page, 'demo-slot');
      assert.deepEqual(problems, []);
      await context.close();
    },
  );

  test('the payment page shows the amount as Brazil writes it and overflows nothing from 320 to 1280 px', { timeout: 60_000 }, async () => {
    const { url } = await payPage(150.75);
    const context = await browser!.newContext();
    const { page, problems } = await open(context, url);
    assert.equal(await page.textContent('.amount'), displayMoney(150.75, 'BRL'));
    assert.match((await page.textContent('.amount'))!, /^R\$\s150,75$/);
    // The QR code (a data: image) loaded under the page's policy.
    assert.ok(await page.locator('img.qr').evaluate((image: PageElement) => image.complete === true && image.naturalWidth! > 0));
    assert.deepEqual(await undrawableTexts(page, 'body', DRAWABLE), []);
    await checkWidths(page, 'pay-page');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the copy button puts the PIX code on the clipboard and says so', { timeout: 30_000 }, async () => {
    const { topup, url } = await payPage(20);
    const context = await browser!.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: appUrl });
    const { page, problems } = await open(context, url);
    await page.getByRole('button', { name: 'Copy PIX code' }).click();
    await page.getByRole('button', { name: 'Copied!' }).waitFor();
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageWindow).navigator.clipboard.readText()), topup.qr_code);
    assert.equal(await page.textContent('.copy-result'), 'The PIX code is on your clipboard: paste it in your bank app.');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('without a clipboard to write to, the copy button selects the code for the device to copy', { timeout: 30_000 }, async () => {
    const { topup, url } = await payPage(20);
    const context = await browser!.newContext();
    // A browser with neither the Clipboard API nor a working copy command (plain HTTP, an old browser).
    await context.addInitScript(`
      Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });
      Document.prototype.execCommand = () => false;
    `);
    const { page, problems } = await open(context, url);
    await page.getByRole('button', { name: 'Copy PIX code' }).click();
    await page.locator('.copy-result', { hasText: 'selected' }).waitFor();
    assert.equal(await page.textContent('.copy-result'), 'The code is selected: copy it with your device’s copy command.');
    assert.equal(await page.evaluate(() => (globalThis as unknown as PageWindow).getSelection()?.toString()), topup.qr_code);
    assert.equal(await page.textContent('.copy'), 'Copy PIX code');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('without JavaScript the payment page shows the code as text and no button that does nothing', { timeout: 30_000 }, async () => {
    const { topup, url } = await payPage(20);
    const context = await browser!.newContext({ javaScriptEnabled: false });
    const { page } = await open(context, url);
    assert.equal(await page.locator('#pix-code').textContent(), topup.qr_code);
    assert.ok(await page.locator('#pix-code').isVisible());
    assert.equal(await page.locator('.copy').isVisible(), false);
    await context.close();
  });
});
