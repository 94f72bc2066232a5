import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser } from 'playwright-core';
import { missing } from './chromium.ts';
import { currentTotp } from '../helpers/app.ts';
import { demoDriver, send } from '../games/helpers.ts';
import { betAt, seat } from '../games/kit.ts';
import { axeViolations, consoleErrors, enableTwoFactor, signIn, startBackOffice, type BackOffice } from './admin-support.ts';

/** The answer the page expects and handles: the first GET /api/user of a signed-out page (401: show the sign-in). */
const EXPECTED_FAILURES = [/\/api\/user$/];

/*
 * Contract section 16: sign-in through the API's own session and two-factor, the refusal of an
 * account without admin permissions, the language switch, and accessibility of the dashboard.
 */
describe('the back office: signing in', { skip: missing }, () => {
  let office: BackOffice;
  let browser: Browser;

  before(async () => {
    office = await startBackOffice();
    browser = office.browser;
  });
  after(async () => {
    await office?.close();
  });

  test('an operator with two-factor signs in with the code and sees the dashboard and the menu, with no console error', async () => {
    // Today's bet through the demo provider, so GGR by game and by provider have a row.
    const table = await seat(office.app, demoDriver);
    const bet = await send(office.app, demoDriver, table.provider, betAt(table, 500n));
    assert.equal(bet.res.status, 200, bet.res.text);
    const admin = await office.app.withRole('super-admin');
    const secret = await enableTwoFactor(admin);
    const page = await browser.newPage();
    const errors = consoleErrors(page, EXPECTED_FAILURES);
    await signIn(page, office.url, admin, secret);
    for (const name of [
      'Dashboard',
      'Players',
      'Withdrawals',
      'Identities',
      'Top-ups',
      'Transactions',
      'Bets',
      'Draws',
      'Provider bets',
      'Games',
      'Providers',
      'Payment methods',
      'Settings',
      'Users',
      'Roles',
      'Operation logs',
      'Reports',
    ]) {
      await page.getByRole('menuitem', { name, exact: true }).waitFor();
    }
    for (const figure of [
      'Registrations',
      'First-time depositors',
      'Deposits',
      'Paid withdrawals',
      'Net deposits',
      'Stakes',
      'Wins',
      'Refunds',
      'GGR',
    ]) {
      await page.getByRole('region', { name: figure, exact: true }).getByText('vs previous period').waitFor();
    }
    // The charts' code loads when the dashboard draws them, after the first load.
    await page.locator('.recharts-surface').first().waitFor();
    await page.getByRole('region', { name: 'GGR by game' }).getByRole('table').waitFor();
    await page.getByRole('region', { name: 'Waiting on staff' }).getByText('Withdrawals to review').waitFor();
    await page.getByRole('button', { name: '7 days' }).click();
    assert.match(page.url(), /\/admin\/?\?period=7$/);
    await page.locator('.recharts-surface').first().waitFor();
    assert.deepEqual(errors, []);
    assert.deepEqual(await axeViolations(page), []);
    // For docs/admin.md, when asked (ADMIN_SCREENSHOT_DIR, as in admin-review.test.ts).
    if (process.env.ADMIN_SCREENSHOT_DIR !== undefined) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: join(process.env.ADMIN_SCREENSHOT_DIR, 'dashboard.png'), fullPage: true });
    }
    await page.close();
  });

  test('a wrong two-factor code is refused with the API’s message and the menu never shows', async () => {
    const admin = await office.app.withRole('super-admin');
    const secret = await enableTwoFactor(admin);
    const page = await browser.newPage();
    await page.goto(`${office.url}/admin/`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.notEqual(secret, '');
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The provided two factor authentication code was invalid.' }).waitFor();
    assert.equal(await page.getByRole('menuitem', { name: 'Withdrawals' }).count(), 0);
    await page.close();
  });

  test('under ADMIN_TWO_FACTOR=required, staff without two-factor are taken to set it up (password, QR code, code) and then see the back office', async () => {
    const strict = await startBackOffice({ ADMIN_TWO_FACTOR: 'required' });
    try {
      const admin = await strict.app.withRole('super-admin');
      const page = await (await strict.browser.newContext()).newPage();
      await signIn(page, strict.url, admin);
      await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();
      assert.equal(await page.getByRole('menuitem').count(), 0, 'nothing else before two-factor');
      // Enabling two-factor wants the password confirmed (423): the page asks for it.
      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('img', { name: 'QR code' }).waitFor();
      assert.equal((await admin.client.post('/api/user/confirm-password', { password: admin.password })).status, 201);
      const { secretKey } = (await admin.client.get('/api/user/two-factor-secret-key')).json as { secretKey: string };
      await page.getByLabel('Code').fill(currentTotp(secretKey));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('menuitem', { name: 'Withdrawals' }).waitFor();
      await page.context().close();
    } finally {
      await strict.close();
    }
  });

  test('a player account is refused: "This account has no access to the back office." and nothing else', async () => {
    const player = await office.app.player();
    const page = await browser.newPage();
    await signIn(page, office.url, player);
    await page.getByText('This account has no access to the back office.', { exact: true }).waitFor();
    assert.equal(await page.getByRole('menuitem').count(), 0);
    assert.equal(await page.getByRole('navigation').count(), 0);
    await page.close();
  });

  test('the language switch to Português renames the controls and is remembered after a reload', async () => {
    const admin = await office.app.withRole('super-admin');
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, office.url, admin);
    await page.getByRole('menuitem', { name: 'Withdrawals' }).waitFor();
    await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'Português' });
    await page.getByRole('menuitem', { name: 'Saques' }).click();
    await page.waitForURL(/\/admin\/withdrawals/);
    await page.getByRole('combobox', { name: 'Idioma' }).waitFor();
    // Money in pt-BR: the summary's total of no withdrawals (the dashboard's figures read R$ 0,00 too).
    await page.getByRole('region', { name: 'Aguardando revisão' }).getByText('R$ 0,00', { exact: true }).waitFor();
    await page.reload();
    await page.getByRole('menuitem', { name: 'Saques' }).waitFor();
    assert.equal(await page.getByRole('menuitem', { name: 'Withdrawals' }).count(), 0);
    await context.close();
  });
});
