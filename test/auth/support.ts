import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { currentTotp, type Client, type Response, type SetCookie, type SignedIn, type TestApp } from '../helpers/app.ts';

export const REMEMBER_COOKIE = 'remember_web_59ba36addc2b2f9401580f014c7f58ea4e30989d';
export const RECOVERY_CODE = /^[A-Za-z0-9]{10}-[A-Za-z0-9]{10}$/;
export const INVALID_CODE = 'The provided two factor authentication code was invalid.';
export const INVALID_RECOVERY_CODE = 'The provided two factor recovery code was invalid.';
export const CONFIRMATION_REQUIRED = { message: 'Password confirmation required.' };
export const UNAUTHENTICATED = { message: 'Unauthenticated.' };

/** Fortify's "empty JSON string" answer: the two characters `""` as application/json. */
export function assertEmptyString(res: Response, status = 200): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.text, '""');
  assert.match(String(res.headers['content-type']), /^application\/json/);
}

export function assertNoContent(res: Response): void {
  assert.equal(res.status, 204, res.text);
  assert.equal(res.text, '');
}

/** A 422 in Laravel's shape with exactly one message on one field. */
export function assertFieldError(res: Response, field: string, message: string): void {
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(res.json, { message, errors: { [field]: [message] } });
}

export function cookie(res: Response, name: string): SetCookie | undefined {
  return res.cookies.find((c) => c.name === name);
}

export async function confirmPassword(client: Client, password: string): Promise<void> {
  assertEmptyString(await client.post('/api/user/confirm-password', { password }), 201);
}

export async function login(client: Client, email: string, password: string, extra: Record<string, unknown> = {}): Promise<Response> {
  if (client.xsrf === undefined) await client.csrf();
  return client.post('/api/login', { email, password, ...extra });
}

/**
 * Turns two-factor on and confirms it with the code of the current step. The next accepted code
 * for this user must be `currentTotp(secret, 1)`: a step once used is never accepted again.
 */
export async function enableConfirmedTwoFactor(user: SignedIn): Promise<string> {
  await confirmPassword(user.client, user.password);
  assertEmptyString(await user.client.post('/api/user/two-factor-authentication'));
  const secret = (await user.client.get('/api/user/two-factor-secret-key')).json as { secretKey: string };
  assertEmptyString(await user.client.post('/api/user/confirmed-two-factor-authentication', { code: currentTotp(secret.secretKey) }));
  return secret.secretKey;
}

/** A fresh browser half-way through a two-factor login. */
export async function pendingLogin(ctx: TestApp, user: SignedIn, extra: Record<string, unknown> = {}): Promise<Client> {
  const client = ctx.client();
  const res = await login(client, user.email, user.password, extra);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json, { two_factor: true });
  return client;
}

export async function recoveryCodes(client: Client): Promise<string[]> {
  const res = await client.get('/api/user/two-factor-recovery-codes');
  assert.equal(res.status, 200, res.text);
  return res.json as string[];
}

export async function exec(ctx: TestApp, query: ReturnType<typeof sql>): Promise<void> {
  await ctx.db.execute(query);
}

export { sql };

/** The signed link of the next verification e-mail to `email`, as the SMTP server received it. */
export async function verificationLink(ctx: TestApp, email: string): Promise<string> {
  const mail = await ctx.inbox.next(email);
  assert.equal(mail.subject, 'Verify Email Address');
  const link = /^Verify Email Address: (\S+)$/m.exec(mail.text ?? '')?.[1];
  assert.ok(link !== undefined, `a verification link in: ${mail.text}`);
  return link;
}
