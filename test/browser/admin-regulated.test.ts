import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SignedIn } from '../helpers/app.ts';
import { verifiedPlayer } from '../regulation/support.ts';
import { balanceOf, createTopup } from '../wallet/helpers.ts';
import { fund, requestWithdrawal } from '../withdrawals/helpers.ts';
import { missing } from './chromium.ts';
import { consoleErrors, signIn, startBackOffice, type BackOffice } from './admin-support.ts';

/*
 * Contract section 16 under REGULATION=br: a prize is paid within 120 minutes, so each row of the
 * withdrawal queue shows the time left of that window, under the queue's summary.
 */
describe('the back office under REGULATION=br', { skip: missing }, () => {
  let office: BackOffice;
  let admin: SignedIn;

  before(async () => {
    office = await startBackOffice({ REGULATION: 'br' });
    admin = await office.app.withRole('super-admin');
  });
  after(async () => {
    await office?.close();
  });

  test('the withdrawal queue shows its summary and, on each row, the time left of the 120-minute payout window', async () => {
    const player = await verifiedPlayer(office.app, admin.client);
    await fund(office.app, player.id, 50_000n);
    const first = await requestWithdrawal(player.client, 40, { payee_account: player.cpf, payee_name: player.fullName });
    await requestWithdrawal(player.client, 60.5, { payee_account: player.cpf, payee_name: player.fullName });
    const page = await (await office.browser.newContext()).newPage();
    const errors = consoleErrors(page, [/\/api\/user$/, /\/api\/admin\/stats\?/]);
    await signIn(page, office.url, admin);
    await page.getByRole('menuitem', { name: 'Withdrawals' }).click();
    const summary = page.getByRole('region', { name: 'Awaiting review' });
    await summary.getByText('R$100.50', { exact: true }).waitFor();
    assert.match((await summary.textContent()) ?? '', /Count: 2/);
    await page.getByRole('columnheader', { name: 'Time left' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: String(first.id), exact: true }) });
    // Asked a moment ago: between 1h 58m and 2h 00m of the window are left.
    assert.match((await row.getByText(/^[12]h \d\dm$/).textContent()) ?? '', /^(1h 5[89]m|2h 00m)$/);
    // Oldest first: the first withdrawal asked for is the first row.
    assert.equal(
      await page
        .getByRole('row')
        .nth(1)
        .getByRole('cell', { name: String(first.id), exact: true })
        .count(),
      1,
    );
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  test('a pending top-up confirmed by hand names the payer’s CPF, and the player is credited once', async () => {
    const player = await verifiedPlayer(office.app, admin.client);
    const topup = await createTopup(player.client, 75);
    const before = await balanceOf(office.app.db, player.id);
    const page = await (await office.browser.newContext()).newPage();
    await signIn(page, office.url, admin);
    await page.getByRole('menuitem', { name: 'Top-ups' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: String(topup.id), exact: true }) });
    await row.getByRole('button', { name: 'Confirm' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Payer CPF').fill(player.cpf);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByRole('button', { name: 'Confirm' }).waitFor({ state: 'detached' });
    assert.equal(await balanceOf(office.app.db, player.id), before + 7_500n);
    await page.context().close();
  });
});
