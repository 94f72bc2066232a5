/**
 * Keys whose values never reach the operation log (docs/api.md section 8), at any depth; and a
 * payment method's write-only gateway fields (section 13).
 */
export const REDACTED_KEYS = new Set([
  'password',
  'password_confirmation',
  'current_password',
  'secret',
  'wallet_secret',
  'token',
  'recovery_code',
  // Write-only secrets: payment methods' config (docs/api.md section 13) and a provider adapter's key
  // (adapter_config.private_key, docs/api.md section 15).
  'client_secret',
  'certificate',
  'private_key',
  'webhook_token',
]);

export const REDACTED = '[redacted]';

/** Keeps only the last four digits of a card number, the part an operator may see. */
function lastFour(value: unknown): unknown {
  if (typeof value !== 'string' && typeof value !== 'number') return REDACTED;
  return String(value).replace(/\D/g, '').slice(-4);
}

/**
 * The request body as it is written to the operation log: secrets replaced by "[redacted]",
 * card numbers cut to their last four digits, everything else (including `code`) kept.
 */
export function redactPayload(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactPayload);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (REDACTED_KEYS.has(key)) out[key] = REDACTED;
    else if (key === 'card_number') out[key] = lastFour(item);
    else out[key] = redactPayload(item);
  }
  return out;
}
