import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Hub88's request signing (docs.hub88.io, "Request signing"; docs/games.md, "Connecting a Hub88
 * operator account"): the raw body, exactly as sent, is signed with RSA-SHA256 (PKCS #1 v1.5)
 * and the signature travels base64-encoded in `X-Hub88-Signature`. Each side signs with its
 * private key and the other verifies with the matching public key: Hub88's wallet calls with
 * Hub88's key (`hub88_public_key` verifies them), our Games API calls with ours (`private_key`).
 * No timestamp or nonce is signed; Hub88's `request_uuid` answered once (the request memo) and
 * its transaction ids applied once (the wallet) are what make a replayed body harmless.
 */
export const SIGNATURE_HEADER = 'x-hub88-signature';

/** Parsing a PEM costs far more than a verification: each key is parsed once, kept by its text. */
const parsed = new Map<string, KeyObject>();
const KEPT = 64;

function keyOf(pem: string, parse: (pem: string) => KeyObject): KeyObject {
  let key = parsed.get(pem);
  if (key === undefined) {
    key = parse(pem);
    if (parsed.size >= KEPT) parsed.delete(parsed.keys().next().value!);
    parsed.set(pem, key);
  }
  return key;
}

/** An RSA public key from its PEM text (SPKI `PUBLIC KEY` or PKCS #1 `RSA PUBLIC KEY`); throws when it is not one. */
export function rsaPublicKey(pem: string): KeyObject {
  return keyOf(`public:${pem}`, () => {
    const key = createPublicKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not an RSA key');
    return key;
  });
}

/** An RSA private key from its unencrypted PEM text (PKCS #8 or PKCS #1); throws when it is not one. */
export function rsaPrivateKey(pem: string): KeyObject {
  return keyOf(`private:${pem}`, () => {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not an RSA key');
    return key;
  });
}

/** `X-Hub88-Signature` for `body`: base64 of its RSA-SHA256 signature with `privateKeyPem`. */
export function hub88Signature(body: string, privateKeyPem: string): string {
  return sign('sha256', Buffer.from(body, 'utf8'), rsaPrivateKey(privateKeyPem)).toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Whether `signature` (the header's value) is `body`'s RSA-SHA256 signature by the holder of `publicKeyPem`. */
export function hub88Verifies(body: string, signature: unknown, publicKeyPem: string): boolean {
  if (typeof signature !== 'string' || signature.length > 2048 || !BASE64.test(signature.trim())) return false;
  try {
    return verify('sha256', Buffer.from(body, 'utf8'), rsaPublicKey(publicKeyPem), Buffer.from(signature.trim(), 'base64'));
  } catch {
    return false;
  }
}
