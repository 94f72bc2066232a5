import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SignedIn } from '../helpers/app.ts';
import { userWithPermissions } from '../admin/support.ts';
import { demoDriver } from '../games/helpers.ts';
import { seat } from '../games/kit.ts';
import { identityBody } from '../regulation/support.ts';
import { ledgerOf } from '../wallet/helpers.ts';
import { fund, requestWithdrawal } from '../withdrawals/helpers.ts';
import { missing } from './chromium.ts';
import { axeViolations, consoleErrors, signIn, startBackOffice, type BackOffice } from './admin-support.ts';

/** Answers the page expects: the signed-out page's first GET /api/user, and /api/admin/stats before it exists. */
const EXPECTED_FAILURES = [/\/api\/user$/, /\/api\/admin\/stats\?/];
/**
 * Screenshots for docs/admin.md, taken as the tests go: into ADMIN_SCREENSHOT_DIR when set
 * (`ADMIN_SCREENSHOT_DIR=docs/admin npm test -- test/browser/admin-review.test.ts` renews
 * them), else into a temporary folder, so a test run leaves the work tree as it was.
 */
const SHOTS = process.env.ADMIN_SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'croupier-admin-shots-'));

/*
 * Contract section 16: an operator's daily work in the back office, in Chromium against a real
 * server: the withdrawal queue's actions, the identity queue, a player's page and a balance
 * adjustment, the CSV export of a whole filtered list, and every screen drawn without an error.
 */
describe('the back office: reviewing and money', { skip: missing }, () => {
  let office: BackOffice;
  let admin: SignedIn;
  let page: Page;
  let errors: string[];

  before(async () => {
    office = await startBackOffice();
    admin = await office.app.withRole('super-admin');
    page = await (await office.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    errors = consoleErrors(page, EXPECTED_FAILURES);
    await signIn(page, office.url, admin);
    await page.getByRole('menuitem', { name: 'Withdrawals' }).waitFor();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await office?.close();
    if (process.env.ADMIN_SCREENSHOT_DIR === undefined) rmSync(SHOTS, { recursive: true, force: true });
  });

  const row = (id: number, on: Page = page) => on.getByRole('row').filter({ has: on.getByRole('cell', { name: String(id), exact: true }) });

  test('approving a withdrawal in its confirm dialog changes its row to Approved without reloading the page', async () => {
    const player = await office.app.player({ name: 'Ana Approve' });
    await fund(office.app, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 25);
    await page.getByRole('menuitem', { name: 'Withdrawals' }).click();
    await row(withdrawal.id).getByRole('button', { name: 'Approve' }).click();
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await row(withdrawal.id).getByText('Approved', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded), true);
    const stored = await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`);
    assert.equal((stored.json as { data: { status: number } }).data.status, 1);
    await page.screenshot({ path: join(SHOTS, 'withdrawals.png') });
    assert.deepEqual(await axeViolations(page), []);
  });

  test('rejecting a withdrawal with a reason changes its row to Rejected, and the player’s ledger shows the refund', async () => {
    const player = await office.app.player({ name: 'Rui Reject' });
    await fund(office.app, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 30);
    await page.getByRole('menuitem', { name: 'Withdrawals' }).click();
    await page.reload();
    await row(withdrawal.id).getByRole('button', { name: 'Reject' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill('The payee name does not match');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await row(withdrawal.id).getByText('Rejected', { exact: true }).waitFor();
    const lines = await ledgerOf(office.app.db, player.id);
    assert.deepEqual(
      lines.map((line) => line.type),
      ['adjustment', 'withdrawal', 'withdrawal_refund'],
    );
    await page.goto(`${office.url}/admin/players/${player.id}/show`);
    const ledger = page.getByRole('region', { name: 'Ledger lines' });
    await ledger.getByRole('cell', { name: 'withdrawal_refund', exact: true }).waitFor();
    await ledger.getByRole('cell', { name: 'R$30.00', exact: true }).first().waitFor();
  });

  test('approving an identity from the queue verifies it', async () => {
    const player = await office.app.player({ name: 'Iara Identity' });
    const submitted = await player.client.put('/api/user/identity', identityBody({ full_name: 'Iara da Silva' }));
    assert.ok(submitted.status < 300, submitted.text);
    await page.getByRole('menuitem', { name: 'Identities' }).click();
    const entry = page.getByRole('row').filter({ hasText: 'Iara da Silva' });
    await page.screenshot({ path: join(SHOTS, 'identities.png') });
    await entry.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    // The dialog closes once the API has answered; the list then drops what is no longer pending.
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await entry.waitFor({ state: 'detached' });
    const identity = await admin.client.get(`/api/admin/identities?user_id=${player.id}`);
    assert.equal((identity.json as { data: { status: string }[] }).data[0]!.status, 'verified');
  });

  test('adjusting a balance from the player’s page writes one adjustment line, shown with its running balance', async () => {
    const player = await office.app.player({ name: 'Bia Balance' });
    await fund(office.app, player.id, 5_000n);
    await page.getByRole('menuitem', { name: 'Players' }).click();
    await page.getByLabel('Search').fill('Bia Balance');
    await page.getByRole('cell', { name: 'Bia Balance', exact: true }).click();
    await page.waitForURL(new RegExp(`/admin/players/${player.id}/show$`));
    const before = (await ledgerOf(office.app.db, player.id)).length;
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Amount').fill('12.34');
    await dialog.getByLabel('Reason').fill('Goodwill credit');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const ledger = page.getByRole('region', { name: 'Ledger lines' });
    await ledger.getByRole('cell', { name: 'R$62.34', exact: true }).waitFor();
    const lines = await ledgerOf(office.app.db, player.id);
    assert.equal(lines.length, before + 1);
    assert.equal(lines.at(-1)!.type, 'adjustment');
    assert.equal(lines.at(-1)!.amount, 1234n);
    await page.getByRole('region', { name: 'Balances' }).getByText('R$62.34').first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'player.png'), fullPage: true });
    assert.deepEqual(await axeViolations(page), []);
  });

  test('a player’s page lists their game sessions, and “Sign out everywhere” ends the session their client holds', async () => {
    const table = await seat(office.app, demoDriver);
    const player = table.player;
    await page.goto(`${office.url}/admin/players/${player.id}/show`);
    const sessions = page.getByRole('region', { name: 'Game sessions' });
    await row(table.launched.id, page).and(sessions.getByRole('row')).waitFor();
    assert.equal((await player.client.get('/api/user')).status, 200);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await player.client.get('/api/user')).status, 401);
  });

  test('Export writes the whole filtered list, every page of it, equal to the API’s list', async () => {
    const player = await office.app.player({ name: 'Caio Csv' });
    // More lines than the API's largest page (100): the export must read several.
    for (let i = 0; i < 105; i++) await fund(office.app, player.id, BigInt(100 + i));
    await page.goto(`${office.url}/admin/transactions?filter=${encodeURIComponent(JSON.stringify({ user_id: player.id }))}`);
    await page.getByText(`1-25 of 105`).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    const api: { id: number; amount: number }[] = [];
    for (const number of [1, 2, 3, 4, 5]) {
      const res = await admin.client.get(`/api/admin/transactions?user_id=${player.id}&per_page=25&page=${number}`);
      api.push(...(res.json as { data: { id: number; amount: number }[] }).data);
    }
    const header = csv[0]!.split(',');
    const rows = csv
      .slice(1)
      .map((line) => Object.fromEntries(line.split(',').map((cell, i) => [header[i], cell])) as Record<string, string>);
    assert.equal(rows.length, 105);
    assert.deepEqual(
      rows.map((r) => [Number(r.id), Number(r.amount)]),
      api.map((r) => [r.id, r.amount]),
    );
  });

  test('a provider is created from its form with a write-only wallet secret, and a taken code is refused with the API’s message', async () => {
    const secret = 'wallet-secret-0123456789abcdef';
    // A page of its own in the same session: the refused write's 422 is expected here, not a console error of the screens.
    const form = await page.context().newPage();
    await form.goto(`${office.url}/admin/providers/create`);
    await form.getByLabel('name').fill('Acme Games');
    await form.getByLabel('code', { exact: true }).fill('acme');
    await form.getByLabel('wallet_secret').fill(secret);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitForURL(/\/admin\/providers\/\d+$/);
    const listed = await admin.client.get('/api/admin/providers?code=acme');
    const provider = (listed.json as { data: { id: number; name: string }[] }).data[0]!;
    assert.equal(provider.name, 'Acme Games');
    await form.goto(`${office.url}/admin/providers/${provider.id}/show`);
    await form.getByRole('cell', { name: 'Acme Games', exact: true }).waitFor();
    assert.equal(await form.getByText(secret).count(), 0, 'the secret is never shown');
    await form.goto(`${office.url}/admin/providers/create`);
    await form.getByLabel('name').fill('Acme again');
    await form.getByLabel('code', { exact: true }).fill('acme');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('The code has already been taken.').first().waitFor();
    await form.close();
  });

  test('a reviewer who may only look sees the queue without its actions, and a menu of what they may read', async () => {
    const player = await office.app.player({ name: 'Vera View' });
    await fund(office.app, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 15);
    const viewer = await userWithPermissions(office.app, ['withdrawals.view', 'roles.view']);
    const context = await office.browser.newContext();
    const own = await context.newPage();
    await signIn(own, office.url, viewer);
    await own.getByRole('menuitem', { name: 'Withdrawals' }).click();
    await row(withdrawal.id, own).getByText('Awaiting review', { exact: true }).waitFor();
    assert.equal(await row(withdrawal.id, own).getByRole('button').count(), 0, 'no Approve or Reject without withdrawals.manage');
    const menu = await own.getByRole('menuitem').allTextContents();
    assert.deepEqual(menu, ['Withdrawals', 'Roles']);
    await context.close();
  });

  test('every screen of the menu draws, and a record’s detail, with no console error', async () => {
    const screens = [
      '',
      'players',
      'withdrawals',
      'identities',
      'topups',
      'transactions',
      'bets',
      'draws',
      'settlements',
      'refunds',
      'provider-bets',
      'pix-payments',
      'games',
      'providers',
      'provider-games',
      'payment-methods',
      'settings',
      'users',
      'roles',
      'permissions',
      'operation-logs',
      'reports',
    ];
    for (const screen of screens) {
      await page.goto(`${office.url}/admin/${screen}`);
      await page.getByRole('menuitem', { name: 'Dashboard' }).waitFor();
      await page.locator('main').waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getByText('Something went wrong').count(), 0, screen);
      if (screen === '' || screen === 'topups' || screen === 'payment-methods' || screen === 'reports' || screen === 'operation-logs') {
        await page.screenshot({ path: join(SHOTS, `${screen === '' ? 'dashboard' : screen}.png`) });
      }
    }
    await page.goto(`${office.url}/admin/users/${admin.id}/show`);
    await page.getByRole('cell', { name: admin.email, exact: true }).waitFor();
    assert.deepEqual(errors, []);
  });
});
