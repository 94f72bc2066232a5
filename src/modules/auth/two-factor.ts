import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { randomAlphanumeric, safeEqual, type Keyring } from '../../platform/crypto.ts';

export const TOTP_PERIOD_S = 30;
const RECOVERY_CODE_COUNT = 8;

export function newTotpSecret(length: 16 | 32 = 16): string {
  // Base32 carries 5 bits a character: 16 characters are 10 bytes.
  return new Secret({ size: (length * 5) / 8 }).base32;
}

function totp(secret: string, label = 'user', issuer = 'croupier'): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });
}

/**
 * The time-step a 6-digit code belongs to (RFC 6238, SHA-1, ±1 step), or null. The caller must
 * still claim the step so a code is never accepted twice.
 */
export function matchTotpStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

/** The current code of a secret; the tests play the authenticator app with it. */
export function totpCode(secret: string, now = Date.now()): string {
  return totp(secret).generate({ timestamp: now });
}

export function otpauthUrl(secret: string, appName: string, email: string): string {
  const name = encodeURIComponent(appName);
  return `otpauth://totp/${name}:${encodeURIComponent(email)}?secret=${secret}&issuer=${name}&algorithm=SHA1&digits=6&period=30`;
}

export async function qrCodeSvg(url: string): Promise<string> {
  const svg = await QRCode.toString(url, { type: 'svg', margin: 0, width: 192, color: { dark: '#2d3748ff', light: '#ffffffff' } });
  return svg.replace(/^<\?xml[^>]*>\s*/, '').trim();
}

export function newRecoveryCode(): string {
  return `${randomAlphanumeric(10)}-${randomAlphanumeric(10)}`;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
}

/** Secret and recovery codes are stored encrypted with the app key (AES-256-GCM). */
export class TwoFactorVault {
  readonly #keys: Keyring;

  constructor(keys: Keyring) {
    this.#keys = keys;
  }

  sealSecret(secret: string): string {
    return this.#keys.encrypt(secret);
  }

  openSecret(sealed: string | null): string | null {
    return sealed === null ? null : this.#keys.decrypt(sealed);
  }

  sealCodes(codes: string[]): string {
    return this.#keys.encrypt(JSON.stringify(codes));
  }

  openCodes(sealed: string | null): string[] {
    return sealed === null ? [] : (JSON.parse(this.#keys.decrypt(sealed)) as string[]);
  }
}

/** Index of the matching recovery code; every code is compared, so timing tells nothing. */
export function findRecoveryCode(codes: string[], candidate: string): number {
  let found = -1;
  codes.forEach((code, index) => {
    if (safeEqual(code, candidate) && found === -1) found = index;
  });
  return found;
}
