// An Efí account for payout tests: the PSP simulator (efi flavour, real mutual TLS) with Efí's
// PIX send installed, an `efi` payment method configured against it through the admin API, and
// that method chosen to pay withdrawals out.
import assert from 'node:assert/strict';
import type { Client, TestApp } from '../helpers/app.ts';
import { postNotification } from '../pix/helpers.ts';
import { testPki, type TestPki } from '../pix/pki.ts';
import { EfiPixSend } from '../pix/simulator/efi-send.ts';
import { PspSimulator } from '../pix/simulator/psp.ts';

/** The account's own key: the payer of every send. */
export const PAYER_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';
const CLIENT = { id: 'Client_Id_efi_payouts', secret: 'Client_Secret_efi_payouts' };

export interface EfiAccount {
  sim: PspSimulator;
  efi: EfiPixSend;
  pki: TestPki;
  methodId: number;
  code: string;
}

let accounts = 0;

/** Starts a simulated Efí account, creates its `efi` method and, unless told not to, chooses it to pay out. */
export async function efiAccount(
  t: TestApp,
  admin: Client,
  options: { homologation?: boolean; choose?: boolean } = {},
): Promise<EfiAccount> {
  const pki = testPki();
  const sim = await PspSimulator.start({ pki, flavour: 'efi', keys: [PAYER_KEY], client: CLIENT });
  const efi = EfiPixSend.install(sim, {
    homologation: options.homologation ?? true,
    deliver: async (url, body) => {
      const res = await deliver(t, url, body);
      assert.equal(res.status, 200, `the notification was answered ${res.status}: ${res.text}`);
    },
  });
  accounts += 1;
  const code = `efi-payouts-${accounts}`;
  const res = await admin.post('/api/admin/payment-methods', {
    name: `Efí ${accounts}`,
    code,
    gateway: 'efi',
    min_amount: 1,
    max_amount: 10_000,
    config: {
      base_url: sim.baseUrl,
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      certificate: pki.client.certificate,
      private_key: pki.client.privateKey,
      ca: pki.ca.certificate,
      pix_key: PAYER_KEY,
    },
  });
  assert.equal(res.status, 201, res.text);
  const methodId = (res.json as { data: { id: number } }).data.id;
  // What `croupier pix:webhook <code>` registers (docs/api.md section 13).
  sim.webhooks.set(PAYER_KEY, { url: `${t.config.appUrl}/api/webhooks/pix/${code}?ignorar=`, at: sim.now() });
  if (options.choose ?? true) {
    const chosen = await admin.put('/api/admin/settings/payouts', { payment_method_id: methodId });
    assert.equal(chosen.status, 200, chosen.text);
  }
  return { sim, efi, pki, methodId, code };
}

/** Posts a PSP notification to `url` (an APP_URL address) through the app, as the PSP's call would arrive. */
export const deliver = postNotification;

/** The simulator checked every request and answer against the specs it follows: nothing drifted. */
export async function closeAccount(account: EfiAccount): Promise<void> {
  await account.sim.stop();
  assert.deepEqual(account.sim.drift, [], 'what we sent and what the simulator answered follow Efí’s documentation');
}
