import type { Keyring } from '../../../platform/crypto.ts';
import { ValidationError, type FieldErrors } from '../../../platform/errors.ts';
import type { AdapterConfig, AdapterConfigSpec } from './adapter.ts';

/**
 * A provider's `adapter_config` at rest and on the wire (docs/api.md section 15, docs/games.md
 * "Connecting a Hub88 operator account"): one JSON object shaped by the provider's adapter. Its
 * write-only fields (a private key) are stored encrypted with the app key, each on its own, so the
 * other fields stay readable in the row; they are never answered, and the operation log redacts
 * them by name (src/platform/admin/redact.ts).
 */

/** What is stored: the configuration with each write-only field sealed (Keyring.encrypt). */
export function sealConfig(spec: AdapterConfigSpec, config: AdapterConfig, keys: Keyring): Record<string, unknown> {
  const sealed: Record<string, unknown> = {};
  for (const field of spec.fields) {
    const value = config[field];
    if (value === undefined || value === null) continue;
    sealed[field] = spec.secretFields.includes(field) && typeof value === 'string' ? keys.encrypt(value) : value;
  }
  return sealed;
}

/** The configuration as the adapter reads it: write-only fields decrypted. */
export function openConfig(
  spec: AdapterConfigSpec | undefined,
  stored: Record<string, unknown> | null,
  keys: Keyring,
): AdapterConfig | null {
  if (stored === null || spec === undefined) return null;
  const open: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(stored)) {
    open[field] = spec.secretFields.includes(field) && typeof value === 'string' ? keys.decrypt(value) : value;
  }
  return open;
}

/** What operators read back: every field but the write-only ones. */
export function publicConfig(spec: AdapterConfigSpec | undefined, stored: Record<string, unknown> | null): Record<string, unknown> | null {
  if (stored === null) return null;
  const secret = new Set(spec?.secretFields ?? []);
  return Object.fromEntries(Object.entries(stored).filter(([field]) => !secret.has(field)));
}

/** The write-only fields a stored configuration has (their values never leave). */
export function secretsSet(spec: AdapterConfigSpec | undefined, stored: Record<string, unknown> | null): string[] {
  if (stored === null || spec === undefined) return [];
  return spec.secretFields.filter((field) => typeof stored[field] === 'string');
}

/**
 * The configuration an admin write leaves (docs/api.md section 15): `sent` merged field by field
 * over the stored one (an absent field keeps its value, so a write-only key need not be sent
 * again; a field sent as null is removed), then checked whole. Keys of the 422 are
 * `adapter_config.<field>`. A provider whose adapter changes starts from nothing: another
 * protocol's fields mean nothing to the new one.
 */
export function mergeConfig(
  spec: AdapterConfigSpec | undefined,
  adapterCode: string,
  stored: AdapterConfig | null,
  sent: unknown,
): AdapterConfig | null {
  if (spec === undefined) {
    if (sent !== undefined && sent !== null) {
      throw ValidationError.field('adapter_config', `The ${adapterCode} adapter takes no configuration.`);
    }
    return null;
  }
  if (sent !== undefined && sent !== null && (typeof sent !== 'object' || Array.isArray(sent))) {
    throw ValidationError.field('adapter_config', 'The adapter config must be an object.');
  }
  const merged: Record<string, unknown> = { ...(stored ?? {}) };
  const errors: FieldErrors = {};
  for (const [field, value] of Object.entries((sent ?? {}) as Record<string, unknown>)) {
    if (!spec.fields.includes(field)) {
      errors[`adapter_config.${field}`] = [
        `The adapter config.${field.replaceAll('_', ' ')} field is not one the ${adapterCode} adapter takes.`,
      ];
    } else if (value === null) {
      delete merged[field];
    } else {
      merged[field] = value;
    }
  }
  for (const [field, messages] of Object.entries(spec.check(merged))) {
    (errors[`adapter_config.${field}`] ??= []).push(...messages);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return merged;
}
