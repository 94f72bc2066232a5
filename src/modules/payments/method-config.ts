import type { Keyring } from '../../platform/crypto.ts';
import { ValidationError } from '../../platform/errors.ts';
import { checkPixConfig, isPixGateway, splitConfig, type GatewayConfigInput, type PublicConfig } from './pix-api/config.ts';
import { openSecrets, sealSecrets } from './pix-api/secrets.ts';

export interface StoredConfig {
  gateway: string;
  config: Record<string, unknown>;
  configSecrets: Record<string, string>;
}

/**
 * The configuration columns of a payment method's create or update (docs/api.md section 13):
 *
 * - `config` sent: its readable fields replace the stored ones (GET answers all of them, so an
 *   edit sends them back); its secrets replace the stored secrets one by one, and a secret not
 *   sent keeps its value (it cannot be read back to be sent again);
 * - `config` not sent: nothing changes, unless the gateway did;
 * - the result is checked as a whole for the gateway (a 422 on `config.<field>` for each
 *   problem); the sandbox takes no configuration, and moving a method to it drops the old one.
 *
 * Answers undefined when nothing is to be written.
 */
export function configValues(
  keys: Keyring,
  gateway: string,
  sent: GatewayConfigInput | undefined,
  existing: StoredConfig | undefined,
  now: Date,
): { config: Record<string, unknown>; configSecrets: Record<string, string> } | undefined {
  const gatewayChanged = existing !== undefined && existing.gateway !== gateway;
  if (!isPixGateway(gateway)) {
    if (sent !== undefined && Object.keys(sent).length > 0)
      throw ValidationError.field('config', `The ${gateway} gateway takes no configuration.`);
    return existing === undefined || gatewayChanged ? { config: {}, configSecrets: {} } : undefined;
  }
  if (sent === undefined && existing !== undefined && !gatewayChanged) return undefined;
  const parts = splitConfig(sent ?? {});
  const publicPart: PublicConfig = sent === undefined ? (existing?.config ?? {}) : parts.public;
  // Secrets stay across an edit, and across a move between the two API Pix gateways.
  const kept = existing !== undefined && isPixGateway(existing.gateway) ? openSecrets(keys, existing.configSecrets) : {};
  const secrets = { ...kept, ...parts.secrets };
  const checked = checkPixConfig(gateway, publicPart, secrets, now);
  if ('errors' in checked) throw new ValidationError(checked.errors);
  return { config: publicPart, configSecrets: sealSecrets(keys, secrets) };
}
