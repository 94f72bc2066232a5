import assert from 'node:assert/strict';
import { sandboxSignature } from '../../src/modules/payments/gateways/sandbox.ts';
import { applyLedgerOperation } from '../../src/modules/wallet/ledger.ts';
import type { Client, Response, TestApp } from '../helpers/app.ts';
import { SECRET } from '../wallet/helpers.ts';

export interface Withdrawal {
  id: number;
  user_id: number;
  payee_name: string;
  account_type: string;
  payee_account: string;
  amount: number;
  fee: number;
  net_amount: number;
  status: number;
  reason: string | null;
  reviewed_by: number | null;
  reviewed_at: string | null;
  paid_at: string | null;
  reference?: string;
  payout_id?: string | null;
  [key: string]: unknown;
}

export const CPF = '12345678909';

let funded = 0;
/** Money for a test player: one `adjustment` line through the ledger, as an operator's adjust would write. */
export async function fund(t: TestApp, userId: number, cents: bigint): Promise<void> {
  funded += 1;
  await applyLedgerOperation(t.db, {
    userId,
    currency: 'BRL',
    type: 'adjustment',
    amount: cents,
    description: 'test funds',
    idempotencyKey: `test-fund:${process.pid}:${userId}:${funded}`,
  });
}

export function withdrawalBody(amount: number | string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { payee_name: 'Maria Silva', account_type: 'CPF', payee_account: CPF, amount, ...overrides };
}

export async function requestWithdrawal(
  client: Client,
  amount: number | string,
  overrides: Record<string, unknown> = {},
): Promise<Withdrawal> {
  const res = await client.post('/api/withdrawals', withdrawalBody(amount, overrides));
  assert.equal(res.status, 201, res.text);
  return (res.json as { data: Withdrawal }).data;
}

export function dataOf(res: Response): Withdrawal {
  return (res.json as { data: Withdrawal }).data;
}

/** A sandbox payout notification, signed now unless told otherwise. */
export async function payoutWebhook(
  t: TestApp,
  body: Record<string, unknown> | string,
  options: { at?: number; secret?: string; gateway?: string } = {},
): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const at = options.at ?? Math.floor(Date.now() / 1000);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/webhooks/payouts/${options.gateway ?? 'sandbox'}`,
    headers: { 'content-type': 'application/json', 'x-signature': sandboxSignature(options.secret ?? SECRET, raw, at) },
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
