import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { safeEqual } from './crypto.ts';
import { WebhookSignatureError } from './errors.ts';

/** How far a callback's timestamp may be from our clock. */
export const SIGNATURE_WINDOW_S = 300;
const SIGNATURE = /^t=(\d{1,12}),v1=([0-9a-fA-F]{64})$/;

/** `X-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, as payment webhooks (docs/api.md section 9). */
export function signBody(secret: string, rawBody: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Throws WebhookSignatureError unless the raw body carries a valid signature made within the window. */
export function verifySignedBody(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void {
  const header = headers['x-signature'];
  const match = typeof header === 'string' ? SIGNATURE.exec(header.trim()) : null;
  if (match === null) throw new WebhookSignatureError();
  const timestamp = Number(match[1]);
  const valid = safeEqual(`t=${match[1]},v1=${match[2]!.toLowerCase()}`, signBody(secret, rawBody, timestamp));
  if (!valid || Math.abs(now.getTime() / 1000 - timestamp) > SIGNATURE_WINDOW_S) throw new WebhookSignatureError();
}
