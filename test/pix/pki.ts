// Certificates made at test start for the PSP simulator's mutual TLS: a CA, the PSP's server
// certificate and the clients' certificates. node:crypto makes keys but not X.509 certificates;
// node-forge (one package, no dependencies, pure JavaScript, maintained by Digital Bazaar since
// 2010) signs them. Keys come from node:crypto (fast, native); forge only builds and signs the
// certificate structures. Nothing here is used outside test/ and bench/.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface KeyAndCertificate {
  /** PEM */
  certificate: string;
  privateKey: string;
}

export interface Issuer extends KeyAndCertificate {
  /** Issues a certificate signed by this CA. */
  issue(options: IssueOptions): KeyAndCertificate;
}

export interface IssueOptions {
  commonName: string;
  /** `server`: TLS server auth with localhost and 127.0.0.1 as names; `client`: TLS client auth. */
  use: 'server' | 'client';
  /** Default: valid from a minute ago for a year. */
  notBefore?: Date;
  notAfter?: Date;
}

function rsaKeys(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(pem);
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), pem };
}

function serial(): string {
  // Positive (first bit clear), 16 bytes, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0]! &= 0x7f;
  return bytes.toString('hex');
}

const DAY = 86_400_000;

function build(
  subject: string,
  publicKey: forge.pki.rsa.PublicKey,
  issuer: { name: string; key: forge.pki.rsa.PrivateKey },
  extensions: object[],
  notBefore: Date,
  notAfter: Date,
): string {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = publicKey;
  certificate.serialNumber = serial();
  certificate.validity.notBefore = notBefore;
  certificate.validity.notAfter = notAfter;
  certificate.setSubject([{ name: 'commonName', value: subject }]);
  certificate.setIssuer([{ name: 'commonName', value: issuer.name }]);
  certificate.setExtensions(extensions);
  certificate.sign(issuer.key, forge.md.sha256.create());
  return forge.pki.certificateToPem(certificate);
}

/** A self-signed certificate authority that issues server and client certificates. */
export function certificateAuthority(name = 'croupier test CA'): Issuer {
  const keys = rsaKeys();
  const now = Date.now();
  const certificate = build(
    name,
    keys.publicKey,
    { name, key: keys.privateKey },
    [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ],
    new Date(now - 60_000),
    new Date(now + 365 * DAY),
  );
  return {
    certificate,
    privateKey: keys.pem,
    issue(options) {
      const leaf = rsaKeys();
      const usage =
        options.use === 'server'
          ? [
              { name: 'extKeyUsage', serverAuth: true },
              {
                name: 'subjectAltName',
                altNames: [
                  { type: 2, value: 'localhost' },
                  { type: 7, ip: '127.0.0.1' },
                ],
              },
            ]
          : [{ name: 'extKeyUsage', clientAuth: true }];
      return {
        certificate: build(
          options.commonName,
          leaf.publicKey,
          { name, key: keys.privateKey },
          [
            { name: 'basicConstraints', cA: false },
            { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
            ...usage,
          ],
          options.notBefore ?? new Date(Date.now() - 60_000),
          options.notAfter ?? new Date(Date.now() + 365 * DAY),
        ),
        privateKey: leaf.pem,
      };
    },
  };
}

/** What one simulated PSP and its clients need: the CA, the PSP's server identity, and a client identity. */
export interface TestPki {
  ca: Issuer;
  server: KeyAndCertificate;
  client: KeyAndCertificate;
}

export function testPki(): TestPki {
  const ca = certificateAuthority();
  return {
    ca,
    server: ca.issue({ commonName: 'localhost', use: 'server' }),
    client: ca.issue({ commonName: 'croupier client', use: 'client' }),
  };
}
