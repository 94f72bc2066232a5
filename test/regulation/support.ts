import assert from 'node:assert/strict';
import type { Client, Response, SignedIn, TestApp } from '../helpers/app.ts';

export const NOT_VERIFIED = { message: 'Verify your identity before you deposit, play or withdraw.' };

let serial = 100_000_000 + (process.pid % 1000) * 100_000;

/** A valid CPF (its check digits computed as the Receita Federal does), new on each call. */
export function newCpf(): string {
  serial += 1;
  const base = String(serial).slice(-9);
  const digit = (text: string) => {
    const sum = [...text].reduce((acc, char, index) => acc + Number(char) * (text.length + 1 - index), 0);
    const rest = (sum * 10) % 11;
    return rest === 10 ? 0 : rest;
  };
  const first = digit(base);
  return `${base}${first}${digit(`${base}${first}`)}`;
}

/** 123.456.789-09 */
export function punctuated(cpf: string): string {
  return `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
}

export function identityBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { cpf: newCpf(), full_name: 'Maria da Silva', birth_date: '1990-05-17', ...overrides };
}

export function status(res: Response): [number, unknown] {
  return [res.status, res.json];
}

export interface IdentityData {
  status: string;
  cpf: string | null;
  full_name: string | null;
  birth_date: string | null;
  reason: string | null;
  verified_at: string | null;
}

export function identityOf(res: Response): IdentityData {
  assert.equal(res.status, 200, res.text);
  return (res.json as { data: IdentityData }).data;
}

/** Limits loose enough never to refuse a test's bets: the mandatory ones (a loss limit and the session time) set. */
export const LOOSE_LIMITS = { loss_monthly: 1_000_000, session_minutes: 1440 };

/** Sets the player's limits (PUT /api/user/limits), asserting the 200. */
export async function setLimits(client: Client, body: Record<string, unknown> = LOOSE_LIMITS): Promise<Record<string, unknown>> {
  const res = await client.put('/api/user/limits', body);
  assert.equal(res.status, 200, res.text);
  return (res.json as { data: Record<string, unknown> }).data;
}

/** A player whose identity an operator approved, with LOOSE_LIMITS set; answers the CPF and full name it holds. */
export async function verifiedPlayer(
  t: TestApp,
  admin: Client,
  body: Record<string, unknown> = identityBody(),
): Promise<SignedIn & { cpf: string; fullName: string }> {
  const player = await t.player();
  identityOf(await player.client.put('/api/user/identity', body));
  const approved = await admin.post(`/api/admin/users/${player.id}/identity/approve`);
  assert.equal(approved.status, 200, approved.text);
  await setLimits(player.client);
  return { ...player, cpf: String(body.cpf).replace(/\D/g, ''), fullName: String(body.full_name) };
}
