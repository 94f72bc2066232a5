import type { Keyring } from '../../../platform/crypto.ts';
import { SECRET_FIELDS, type SecretConfig, type SecretField } from './config.ts';

/**
 * A method's write-only fields at rest: each sealed on its own with the app key (AES-256-GCM), by
 * name, so the names say which are set and no value is readable without the key.
 */
export function sealSecrets(keys: Keyring, secrets: SecretConfig): Record<string, string> {
  const sealed: Record<string, string> = {};
  for (const field of SECRET_FIELDS) {
    const value = secrets[field];
    if (value !== undefined && value !== '') sealed[field] = keys.encrypt(value);
  }
  return sealed;
}

export function openSecrets(keys: Keyring, sealed: Record<string, string>): SecretConfig {
  const secrets: SecretConfig = {};
  for (const [field, value] of Object.entries(sealed)) {
    if ((SECRET_FIELDS as readonly string[]).includes(field)) secrets[field as SecretField] = keys.decrypt(value);
  }
  return secrets;
}
