import type { FieldErrors } from '../../../platform/errors.ts';
import type { AdapterConfig, AdapterConfigSpec } from '../adapters/adapter.ts';
import { rsaPrivateKey, rsaPublicKey } from './signature.ts';

/**
 * A Hub88 provider's `adapter_config` (docs/api.md section 15): where Hub88's Operator API is,
 * who we are there, Hub88's public key (verifies its wallet calls; returned) and our private key
 * (signs our Games API calls; write-only, stored encrypted).
 */
export interface Hub88Config {
  /** Hub88's API origin, e.g. `https://api.hub88.io`; our calls go to `<base_url>/operator/generic/v2/…`. */
  baseUrl: string;
  operatorId: number;
  hub88PublicKey: string;
  privateKey: string;
}

const MAX_PEM = 16_384;
/** Hub88's examples use 2048-bit keys; anything shorter is not a key to sign money calls with. */
const MIN_BITS = 2048;

function pemProblem(
  value: unknown,
  label: string,
  parse: (pem: string) => { asymmetricKeyDetails?: { modulusLength?: number } },
): string[] {
  if (value === undefined || value === null || value === '') return [`The ${label} field is required.`];
  if (typeof value !== 'string' || value.length > MAX_PEM) return [`The ${label} must be an RSA key in PEM format.`];
  let bits: number | undefined;
  try {
    bits = parse(value).asymmetricKeyDetails?.modulusLength;
  } catch {
    return [`The ${label} must be an RSA key in PEM format.`];
  }
  return bits !== undefined && bits < MIN_BITS ? [`The ${label} must be at least ${MIN_BITS} bits long.`] : [];
}

function baseUrlProblem(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return ['The base url field is required.'];
  if (typeof value !== 'string' || value.length > 2048) return ['The base url must be a valid URL.'];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ['The base url must be a valid URL.'];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return ['The base url must start with https:// or http://.'];
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return ['The base url must not carry credentials, a query or a fragment.'];
  }
  return [];
}

export const HUB88_CONFIG: AdapterConfigSpec = {
  fields: ['base_url', 'operator_id', 'hub88_public_key', 'private_key'],
  secretFields: ['private_key'],
  check(config: AdapterConfig): FieldErrors {
    const errors: FieldErrors = {};
    const add = (field: string, messages: string[]) => {
      if (messages.length > 0) errors[field] = messages;
    };
    add('base_url', baseUrlProblem(config.base_url));
    const operatorId = config.operator_id;
    add(
      'operator_id',
      operatorId === undefined || operatorId === null
        ? ['The operator id field is required.']
        : typeof operatorId !== 'number' || !Number.isSafeInteger(operatorId) || operatorId < 1
          ? ['The operator id must be a positive integer.']
          : [],
    );
    // A private key would parse as a public one (its public half): refused, since this field is returned.
    add(
      'hub88_public_key',
      typeof config.hub88_public_key === 'string' && /PRIVATE KEY/.test(config.hub88_public_key)
        ? ['The hub88 public key must be a public key; a private key is never sent here.']
        : pemProblem(config.hub88_public_key, 'hub88 public key', rsaPublicKey),
    );
    add('private_key', pemProblem(config.private_key, 'private key', rsaPrivateKey));
    return errors;
  },
};

/** The configuration a Hub88 call needs, or undefined when the provider has none that is whole. */
export function hub88Config(config: AdapterConfig | null): Hub88Config | undefined {
  if (config === null) return undefined;
  const { base_url: baseUrl, operator_id: operatorId, hub88_public_key: hub88PublicKey, private_key: privateKey } = config;
  if (
    typeof baseUrl !== 'string' ||
    typeof operatorId !== 'number' ||
    typeof hub88PublicKey !== 'string' ||
    typeof privateKey !== 'string'
  ) {
    return undefined;
  }
  return { baseUrl, operatorId, hub88PublicKey, privateKey };
}
