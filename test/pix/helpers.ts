// A simulated PSP wired to a test app: a pix-api (or efi) payment method pointing at it, its
// webhook registered through the real command, and notifications delivered where the PSP would.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { registerWebhook } from '../../src/modules/pix/commands.ts';
import { rows } from '../../src/platform/db/client.ts';
import type { Response, SignedIn, TestApp } from '../helpers/app.ts';
import { testPki, type TestPki } from './pki.ts';
import { PspSimulator, type Flavour } from './simulator/psp.ts';

export const KEY = '123e4567-e12b-12d1-a456-426655440000';
export const PAYER = { cpf: '12345678909', name: 'Fulano de Tal' };
export const CLIENT = { id: 'croupier-test', secret: 'client-secret-0123456789' };

let shared: TestPki | undefined;
/** One CA and its certificates per test process (key generation is the slow part). */
export function pki(): TestPki {
  return (shared ??= testPki());
}

export interface PixWorld {
  sim: PspSimulator;
  admin: SignedIn;
  methodId: number;
  code: string;
  webhookToken: string | undefined;
}

let methods = 0;

/** A `pix-api` method's `config` for simulator `sim`: this client's credentials, certificate and key. */
export function pixApiConfig(sim: PspSimulator, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    base_url: sim.baseUrl,
    client_id: CLIENT.id,
    client_secret: CLIENT.secret,
    certificate: pki().client.certificate,
    private_key: pki().client.privateKey,
    ca: pki().ca.certificate,
    pix_key: KEY,
    ...extra,
  };
}

/** A simulator, and a payment method of `gateway` configured for it, its webhook registered. */
export async function pixWorld(
  t: TestApp,
  options: {
    flavour?: Flavour;
    gateway?: 'pix-api' | 'efi';
    webhookToken?: string | null;
    expiresIn?: number;
    maskPayerCpf?: boolean;
  } = {},
): Promise<PixWorld> {
  const sim = await PspSimulator.start({
    pki: pki(),
    flavour: options.flavour,
    keys: [KEY],
    client: CLIENT,
    ...(options.maskPayerCpf === undefined ? {} : { maskPayerCpf: options.maskPayerCpf }),
  });
  const admin = await t.withRole('super-admin');
  methods += 1;
  const code = `pix-psp-${methods}`;
  const webhookToken = options.webhookToken === null ? undefined : (options.webhookToken ?? `webhook-token-${methods}-abcdefgh`);
  const res = await admin.client.post('/api/admin/payment-methods', {
    name: `PSP ${methods}`,
    code,
    gateway: options.gateway ?? 'pix-api',
    min_amount: 1,
    max_amount: 50000,
    config: pixApiConfig(sim, {
      ...(options.expiresIn === undefined ? {} : { expires_in: options.expiresIn }),
      ...(webhookToken === undefined ? {} : { webhook_token: webhookToken }),
    }),
  });
  assert.equal(res.status, 201, res.text);
  const methodId = (res.json as { data: { id: number } }).data.id;
  const output = { lines: [] as string[], out: (line: string) => output.lines.push(line), err: (line: string) => output.lines.push(line) };
  const code_ = await registerWebhook({ config: t.config, database: t.database.database }, code, { skipMtls: false }, output);
  assert.equal(code_, 0, output.lines.join('\n'));
  return { sim, admin, methodId, code, webhookToken };
}

/** Posts a PSP notification to `url` (an APP_URL address) through the app, as the PSP's call would arrive. */
export async function postNotification(t: TestApp, url: string, body: unknown): Promise<Response> {
  const target = new URL(url);
  const res = await t.app.inject({
    method: 'POST',
    url: `${target.pathname}${target.search}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text: res.body, json, cookies: [] };
}

/** Posts a notification body where the PSP would: the registered URL with `/pix` appended. */
export function deliver(t: TestApp, sim: PspSimulator, body: unknown, url = sim.notificationUrl()): Promise<Response> {
  return postNotification(t, url, body);
}

/** The PSP notifies these payments. */
export function notify(t: TestApp, sim: PspSimulator, endToEndIds: string[]): Promise<Response> {
  return deliver(t, sim, sim.notification(endToEndIds));
}

export interface PixPaymentRecord {
  end_to_end_id: string;
  topup_id: number;
  amount: string;
  outcome: string;
  reason: string | null;
  return_id: string | null;
  return_status: string | null;
}

export function pixPaymentsOf(t: TestApp, topupId: number): Promise<PixPaymentRecord[]> {
  return rows<PixPaymentRecord>(
    t.db,
    sql`select end_to_end_id, topup_id, amount::text, outcome, reason, return_id, return_status from pix_payments where topup_id = ${topupId} order by id`,
  );
}
