import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { FieldErrors } from '../../../platform/errors.ts';
import { normalizePixKey, PIX_KEY_TYPES } from '../../withdrawals/pix-key.ts';

/**
 * A payment method's gateway configuration (docs/api.md section 13): what a `pix-api` or `efi`
 * method needs to speak API Pix to its PSP, checked as a whole when it is written, so a method
 * that cannot work is a 422 and never a failed top-up later.
 */

/** Gateways that speak the Central Bank's API Pix (charges); `efi` adds Efí's PIX send (payouts). */
export const PIX_GATEWAYS = ['pix-api', 'efi'] as const;
export type PixGateway = (typeof PIX_GATEWAYS)[number];

export function isPixGateway(code: string): code is PixGateway {
  return (PIX_GATEWAYS as readonly string[]).includes(code);
}

/** Write-only fields: sealed at rest, never answered, redacted in the operation log. */
export const SECRET_FIELDS = ['client_secret', 'certificate', 'private_key', 'webhook_token'] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];

/** How the token request authenticates the client (RFC 6749 section 2.3.1). */
export const TOKEN_AUTH = ['basic', 'body'] as const;

/** The scopes a charge-taking method uses, asked for when the method names none. */
export const DEFAULT_SCOPE = 'cob.write cob.read pix.write pix.read webhook.write webhook.read';
export const DEFAULT_EXPIRES_IN = 3600;
/** A top-up older than 24 hours reads as expired whatever its charge says (docs/api.md section 5). */
export const MAX_EXPIRES_IN = 86_400;
export const MIN_EXPIRES_IN = 60;

const PEM_MAX = 65_536;
const WEBHOOK_TOKEN = /^[A-Za-z0-9._~-]{16,128}$/;

/** The `config` of a payment method's create or update body: every field optional (see `mergeConfig`). */
export const GatewayConfigBody = Type.Object(
  {
    base_url: Type.Optional(
      Type.String({ maxLength: 2048, description: 'The PSP’s API Pix base, e.g. `https://pix.example-psp.com.br/v2`.' }),
    ),
    token_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'OAuth2 client-credentials token endpoint; default `base_url`’s origin + `/oauth/token`.',
      }),
    ),
    client_id: Type.Optional(Type.String({ maxLength: 255 })),
    client_secret: Type.Optional(Type.String({ maxLength: 1024, description: 'Write-only.' })),
    certificate: Type.Optional(
      Type.String({ maxLength: PEM_MAX, description: 'Write-only. The client certificate (PEM; chain after it) for mutual TLS.' }),
    ),
    private_key: Type.Optional(Type.String({ maxLength: PEM_MAX, description: 'Write-only. The certificate’s key (unencrypted PEM).' })),
    ca: Type.Optional(Type.String({ maxLength: PEM_MAX, description: 'PEM of the PSP’s CA (homologation and test servers).' })),
    pix_key: Type.Optional(Type.String({ maxLength: 77, description: 'The receiver’s PIX key, in its DICT form.' })),
    expires_in: Type.Optional(
      Type.Integer({
        minimum: MIN_EXPIRES_IN,
        maximum: MAX_EXPIRES_IN,
        description: `Seconds a charge stays payable; default ${DEFAULT_EXPIRES_IN}.`,
      }),
    ),
    webhook_token: Type.Optional(
      Type.String({ maxLength: 128, description: 'Write-only. When set, notifications must carry `?token=<it>`.' }),
    ),
    token_auth: Type.Optional(
      Type.Union([Type.Literal('basic'), Type.Literal('body')], {
        description: 'How the token request carries the client credentials: HTTP Basic (default) or form fields (Inter, Sicoob).',
      }),
    ),
    scope: Type.Optional(Type.String({ maxLength: 1024, description: `Scopes asked for; default \`${DEFAULT_SCOPE}\`.` })),
  },
  { additionalProperties: false },
);
export type GatewayConfigInput = Static<typeof GatewayConfigBody>;

/** What a method's `config` answers: the readable fields (the secrets are never among them). */
export const GatewayConfigRecord = Type.Object(
  {
    base_url: Type.Optional(Type.String()),
    token_url: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    ca: Type.Optional(Type.String()),
    pix_key: Type.Optional(Type.String()),
    expires_in: Type.Optional(Type.Integer()),
    token_auth: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
  },
  { description: 'The gateway’s readable settings; `{}` for the sandbox. Secrets are listed in `secrets_set`, never shown.' },
);

export type PublicConfig = Partial<Record<Exclude<keyof GatewayConfigInput, SecretField>, string | number>>;
export type SecretConfig = Partial<Record<SecretField, string>>;

/** A configuration checked to work: what the API Pix client is built from. */
export interface PixApiConfig {
  gateway: PixGateway;
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string | undefined;
  /** PEM: the client certificate (and chain) and its key, for every call, the token's included. */
  certificate: string;
  privateKey: string;
  ca: string | undefined;
  pixKey: string;
  expiresIn: number;
  webhookToken: string | undefined;
  tokenAuth: (typeof TOKEN_AUTH)[number];
  scope: string;
}

/** Splits a sent config into the readable fields and the secrets. */
export function splitConfig(sent: GatewayConfigInput): { public: PublicConfig; secrets: SecretConfig } {
  const publicPart: PublicConfig = {};
  const secrets: SecretConfig = {};
  for (const [field, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    if ((SECRET_FIELDS as readonly string[]).includes(field)) secrets[field as SecretField] = String(value);
    else (publicPart as Record<string, unknown>)[field] = value;
  }
  return { public: publicPart, secrets };
}

const label = (field: string) => `config.${field.replaceAll('_', ' ')}`;
const required = (field: string) => `The ${label(field)} field is required.`;

/** Every PEM block of `kind` in `text`, in order. */
function pemBlocks(text: string, kind: string): string[] {
  const pattern = new RegExp(`-----BEGIN ${kind}-----[\\s\\S]+?-----END ${kind}-----`, 'g');
  return text.match(pattern) ?? [];
}

/** The certificates of a PEM text, or undefined when it holds none or one that does not parse. */
function certificates(text: string): X509Certificate[] | undefined {
  const blocks = pemBlocks(text, 'CERTIFICATE');
  if (blocks.length === 0) return undefined;
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return undefined;
  }
}

function privateKey(text: string): KeyObject | 'encrypted' | undefined {
  if (!/-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.test(text)) return undefined;
  if (text.includes('ENCRYPTED')) return 'encrypted';
  try {
    return createPrivateKey({ key: text, format: 'pem' });
  } catch {
    return undefined;
  }
}

/** An `https:` URL without credentials, query or fragment, as a string without its trailing slash; else the problem. */
function httpsUrl(raw: string, field: string): { url: string } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { error: `The ${label(field)} field must be a valid URL.` };
  }
  // Mutual TLS is the only way a PSP's API Pix is reached: a plain-HTTP base cannot work.
  if (parsed.protocol !== 'https:') return { error: `The ${label(field)} field must be an https URL.` };
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '')
    return { error: `The ${label(field)} field must not carry credentials, a query or a fragment.` };
  return { url: parsed.toString().replace(/\/+$/, '') };
}

/** The PIX key in its canonical DICT form, whatever its type; the message when it is none. */
function pixKey(raw: string): { key: string } | { error: string } {
  for (const type of PIX_KEY_TYPES) {
    // Email and EVP keys are case-insensitive; phones, CPFs and CNPJs must be sent as DICT writes them.
    const result = normalizePixKey(type, raw);
    if ('key' in result && (result.key === raw || (type !== 'PHONE' && result.key === raw.toLowerCase()))) return { key: result.key };
  }
  return {
    error: `The ${label('pix_key')} field must be a PIX key as DICT writes it (CPF or CNPJ digits, +55 phone, e-mail or random key).`,
  };
}

/**
 * Checks a whole configuration for `gateway` (the stored one merged with what was sent) and answers
 * it ready for the client, or every problem by field (`config.<field>`). `now` decides whether the
 * certificate is still valid.
 */
export function checkPixConfig(
  gateway: PixGateway,
  publicPart: PublicConfig,
  secrets: SecretConfig,
  now: Date,
): { config: PixApiConfig } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[`config.${field}`] ??= []).push(message);
  const text = (field: keyof PublicConfig) => {
    const value = publicPart[field];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };

  let baseUrl = '';
  const base = text('base_url');
  if (base === undefined) add('base_url', required('base_url'));
  else {
    const checked = httpsUrl(base, 'base_url');
    if ('error' in checked) add('base_url', checked.error);
    else baseUrl = checked.url;
  }
  let tokenUrl = baseUrl === '' ? '' : `${new URL(baseUrl).origin}/oauth/token`;
  const token = text('token_url');
  if (token !== undefined) {
    const checked = httpsUrl(token, 'token_url');
    if ('error' in checked) add('token_url', checked.error);
    else tokenUrl = checked.url;
  }

  const clientId = text('client_id');
  if (clientId === undefined) add('client_id', required('client_id'));
  const clientSecret = secrets.client_secret === '' ? undefined : secrets.client_secret;
  // Efí authenticates the token request with the secret (HTTP Basic); a PSP such as Sicoob issues
  // none and knows the client by its certificate alone.
  if (gateway === 'efi' && clientSecret === undefined) add('client_secret', required('client_secret'));

  let leaf: X509Certificate | undefined;
  if (secrets.certificate === undefined || secrets.certificate === '') add('certificate', required('certificate'));
  else {
    leaf = certificates(secrets.certificate)?.[0];
    if (leaf === undefined) add('certificate', `The ${label('certificate')} field must be a PEM certificate.`);
    else if (new Date(leaf.validTo) <= now)
      add('certificate', `The ${label('certificate')} expired on ${new Date(leaf.validTo).toISOString()}; upload the renewed one.`);
    else if (new Date(leaf.validFrom) > now)
      add('certificate', `The ${label('certificate')} is not valid before ${new Date(leaf.validFrom).toISOString()}.`);
  }
  if (secrets.private_key === undefined || secrets.private_key === '') add('private_key', required('private_key'));
  else {
    const key = privateKey(secrets.private_key);
    if (key === undefined) add('private_key', `The ${label('private_key')} field must be a PEM private key.`);
    else if (key === 'encrypted')
      add('private_key', `The ${label('private_key')} field must not be encrypted with a passphrase (export it without one).`);
    else if (leaf !== undefined && !leaf.checkPrivateKey(key))
      add('private_key', `The ${label('private_key')} does not match the certificate.`);
  }

  const ca = text('ca');
  if (ca !== undefined && certificates(ca) === undefined) add('ca', `The ${label('ca')} field must be one or more PEM certificates.`);

  let key = '';
  const sentKey = text('pix_key');
  if (sentKey === undefined) add('pix_key', required('pix_key'));
  else {
    const checked = pixKey(sentKey);
    if ('error' in checked) add('pix_key', checked.error);
    else key = checked.key;
  }

  const webhookToken = secrets.webhook_token === '' ? undefined : secrets.webhook_token;
  if (webhookToken !== undefined && !WEBHOOK_TOKEN.test(webhookToken))
    add('webhook_token', `The ${label('webhook_token')} field must be 16 to 128 letters, digits or . _ ~ - (it travels in a URL).`);

  const expires = publicPart.expires_in;
  const tokenAuth = text('token_auth') ?? 'basic';
  if (!(TOKEN_AUTH as readonly string[]).includes(tokenAuth)) add('token_auth', `The selected ${label('token_auth')} is invalid.`);

  if (Object.keys(errors).length > 0) return { errors };
  return {
    config: {
      gateway,
      baseUrl,
      tokenUrl,
      clientId: clientId!,
      clientSecret,
      certificate: secrets.certificate!,
      privateKey: secrets.private_key!,
      ca,
      pixKey: key,
      expiresIn: typeof expires === 'number' ? expires : DEFAULT_EXPIRES_IN,
      webhookToken,
      tokenAuth: tokenAuth as PixApiConfig['tokenAuth'],
      scope: text('scope') ?? DEFAULT_SCOPE,
    },
  };
}
