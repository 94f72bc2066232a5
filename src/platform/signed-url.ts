import { safeEqual, type Keyring } from './crypto.ts';
import { InvalidLinkSignatureError } from './errors.ts';

/**
 * Laravel's temporary signed URLs (`URL::temporarySignedRoute` and the `signed` middleware): the
 * URL with its `expires` (unix seconds) is signed with an HMAC-SHA256 keyed from APP_KEY, written
 * in hex as the last query parameter `signature`. A link names its own expiry, so nothing is
 * stored, and a changed path, parameter or expiry breaks the signature.
 */
export function signedUrl(keys: Keyring, url: string, expiresAt: Date): string {
  const unsigned = `${url}${url.includes('?') ? '&' : '?'}expires=${Math.floor(expiresAt.getTime() / 1000)}`;
  return `${unsigned}&signature=${keys.sign(unsigned)}`;
}

/**
 * Refuses (403 "Invalid signature.") a request whose URL is not one `signedUrl` made or has
 * expired. `base` is APP_URL, the origin the link was made for: the request's own host is not
 * trusted, and behind a proxy it differs anyway. The query is checked as sent, byte for byte,
 * with only the `signature` parameter taken out, as Laravel does, so any other change breaks it.
 */
export function verifySignedUrl(keys: Keyring, base: string, requestUrl: string, now: Date): void {
  const mark = requestUrl.indexOf('?');
  const path = mark === -1 ? requestUrl : requestUrl.slice(0, mark);
  const pairs = mark === -1 ? [] : requestUrl.slice(mark + 1).split('&');
  const isSignature = (pair: string) => pair.split('=')[0] === 'signature';
  const query = pairs.filter((pair) => !isSignature(pair)).join('&');
  const signature = pairs.find(isSignature)?.slice('signature='.length) ?? '';
  const expected = keys.sign(query === '' ? `${base}${path}` : `${base}${path}?${query}`);
  if (!safeEqual(signature, expected)) throw new InvalidLinkSignatureError();
  // Signed, so `expires` is the one we wrote; a link signed without one would never expire.
  const expires = new URLSearchParams(query).get('expires');
  if (expires !== null && now.getTime() > Number(expires) * 1000) throw new InvalidLinkSignatureError();
}
