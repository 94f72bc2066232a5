import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import type { AppOptions } from '../../src/app.ts';
import { currentTotp, startApp, type Client, type SignedIn, type TestApp } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';

/** The back office's tests: one server and one browser a file (contract section 16). */
export interface BackOffice {
  app: TestApp;
  url: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startBackOffice(env: Record<string, string> = {}, options: Partial<AppOptions> = {}): Promise<BackOffice> {
  const app = await startApp(env, options);
  const url = await app.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    app,
    url,
    browser,
    async close() {
      await browser.close();
      await app.close();
    },
  };
}

/**
 * The page's console errors and uncaught exceptions, but a resource the test expects to fail
 * (`expected`: the dashboard's route before the stats exist) does not count.
 */
export function consoleErrors(page: Page, expected: RegExp[] = []): string[] {
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error') return;
    const where = message.location().url;
    if (expected.some((pattern) => pattern.test(where))) return;
    errors.push(`${message.text()} (${where})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** Turns two-factor on for a signed-in user through the account routes; answers the TOTP secret. */
export async function enableTwoFactor(user: SignedIn): Promise<string> {
  const client: Client = user.client;
  assert.equal((await client.post('/api/user/confirm-password', { password: user.password })).status, 201);
  assert.equal((await client.post('/api/user/two-factor-authentication')).status, 200);
  const secret = (await client.get('/api/user/two-factor-secret-key')).json as { secretKey: string };
  const confirmed = await client.post('/api/user/confirmed-two-factor-authentication', { code: currentTotp(secret.secretKey) });
  assert.equal(confirmed.status, 200, confirmed.text);
  return secret.secretKey;
}

/** Signs in through the page's own form: e-mail, password, and the code when asked for one. */
export async function signIn(page: Page, base: string, user: { email: string; password: string }, secret?: string): Promise<void> {
  await page.goto(`${base}/admin/`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (secret !== undefined) {
    // The code of the next 30-second step: the one of this step was spent confirming two-factor.
    await page.getByLabel('Code').fill(currentTotp(secret, 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Colours are judged once MUI's transitions (a button changing from filled to outlined) are over.
  await page.waitForFunction(
    () => (globalThis as unknown as { document: { getAnimations(): unknown[] } }).document.getAnimations().length === 0,
  );
  // Evaluated through the debugging protocol: the page's CSP (no inline script) stays as served.
  await page.evaluate(source);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }
    ).axe;
    return axe.run();
  });
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
