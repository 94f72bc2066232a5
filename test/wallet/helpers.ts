import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { sandboxSignature } from '../../src/modules/payments/gateways/sandbox.ts';
import { rows, type Db } from '../../src/platform/db/client.ts';
import type { Client, Response, TestApp } from '../helpers/app.ts';

export const SECRET = 'sandbox-test-secret';

export interface Topup {
  id: number;
  user_id: number;
  amount: number;
  gift_amount: number;
  status: number;
  payment_url: string | null;
  qr_code: string | null;
  gateway_payment_id: string | null;
  [key: string]: unknown;
}

/** The sandbox webhook as the gateway would send it, signed now unless told otherwise. */
export async function webhook(
  t: TestApp,
  body: Record<string, unknown> | string,
  options: { at?: number; secret?: string; signature?: string; gateway?: string } = {},
): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const at = options.at ?? Math.floor(Date.now() / 1000);
  const signature = options.signature ?? sandboxSignature(options.secret ?? SECRET, raw, at);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/webhooks/payments/${options.gateway ?? 'sandbox'}`,
    headers: { 'content-type': 'application/json', 'x-signature': signature },
    payload: raw,
  });
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text: res.body, json, cookies: [] };
}

export function paid(topup: Topup, amount: number | string = topup.amount): Record<string, unknown> {
  return { payment_id: topup.gateway_payment_id, status: 'paid', amount };
}

export async function createTopup(client: Client, amount: number | string, paymentMethodId = 1): Promise<Topup> {
  const res = await client.post('/api/topups', { payment_method_id: paymentMethodId, amount });
  assert.equal(res.status, 201, res.text);
  return (res.json as { data: Topup }).data;
}

export async function balanceOf(db: Db, userId: number, currency = 'BRL'): Promise<bigint> {
  const [row] = await rows<{ amount: string | number }>(
    db,
    sql`select amount from balances where user_id = ${userId} and currency = ${currency}`,
  );
  return row === undefined ? 0n : BigInt(row.amount);
}

export interface Line {
  type: string;
  amount: bigint;
  balance_after: bigint;
  reference_type: string | null;
  reference_id: number | null;
}

export async function ledgerOf(db: Db, userId: number): Promise<Line[]> {
  const found = await rows<Record<string, string | number | null>>(
    db,
    sql`select type, amount, balance_after, reference_type, reference_id from ledger_entries where user_id = ${userId} order by id`,
  );
  return found.map((row) => ({
    type: String(row.type),
    amount: BigInt(row.amount!),
    balance_after: BigInt(row.balance_after!),
    reference_type: row.reference_type === null ? null : String(row.reference_type),
    reference_id: row.reference_id === null ? null : Number(row.reference_id),
  }));
}

export async function putSettings(admin: Client, name: string, body: Record<string, unknown>): Promise<void> {
  const res = await admin.put(`/api/admin/settings/${name}`, body);
  assert.equal(res.status, 200, res.text);
}

export const NO_REFERRAL = { bonus: 0, topped_up_bonus: 0, topped_up_bonus_rate: 0 };
export const NO_GIFTS = { gift_rate_first_time: 0, gift_rate: 0, options: [] };

/** Registers a player with a referrer through the real endpoint. */
export async function referredPlayer(t: TestApp, ref: number): Promise<{ client: Client; id: number }> {
  const client = t.client();
  await client.csrf();
  const email = `ref${ref}-${Math.random().toString(36).slice(2)}@example.com`;
  const res = await client.post('/api/register', {
    name: 'Referred',
    email,
    password: 'password',
    password_confirmation: 'password',
    agreement: true,
    ref,
  });
  assert.equal(res.status, 201, res.text);
  const me = await client.get('/api/user');
  return { client, id: (me.json as { id: number }).id };
}
