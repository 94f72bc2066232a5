import type { PixApiConfig } from './config.ts';
import { PixApiError } from './errors.ts';
import type { MutualTls } from './transport.ts';

/** A token is renewed this long before the PSP says it expires (or at half its life, if shorter). */
const RENEW_BEFORE_MS = 60_000;
/** RFC 6749 lets `expires_in` out; a token without one is kept this long. */
const ASSUMED_LIFETIME_S = 300;

interface Token {
  value: string;
  renewAt: number;
}

/**
 * OAuth2 client credentials (RFC 6749 section 4.4) for one payment method: the access token is
 * kept until shortly before it expires, and only one request for a new one is in flight at a
 * time, whoever asks. The token request goes over the same mutual TLS as every other call.
 */
export class TokenSource {
  readonly #config: PixApiConfig;
  readonly #tls: MutualTls;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #token: Token | undefined;
  #pending: Promise<string> | undefined;

  constructor(config: PixApiConfig, tls: MutualTls, timeoutMs: number, now: () => number = Date.now) {
    this.#config = config;
    this.#tls = tls;
    this.#timeoutMs = timeoutMs;
    this.#now = now;
  }

  /** A token that is not about to expire: the kept one, the one being fetched, or a new one. */
  get(): Promise<string> {
    if (this.#token !== undefined && this.#now() < this.#token.renewAt) return Promise.resolve(this.#token.value);
    this.#pending ??= this.#fetch().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  /** The PSP refused `value` (it expired or was revoked early): the next `get` fetches another. */
  refused(value: string): void {
    if (this.#token?.value === value) this.#token = undefined;
  }

  async #fetch(): Promise<string> {
    const config = this.#config;
    const url = new URL(config.tokenUrl);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'croupier' };
    const basic = () => `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret ?? ''}`).toString('base64')}`;
    let body: string;
    if (config.gateway === 'efi') {
      // Efí documents HTTP Basic with a JSON body.
      headers.authorization = basic();
      headers['content-type'] = 'application/json';
      body = JSON.stringify({ grant_type: 'client_credentials' });
    } else {
      const form = new URLSearchParams({ grant_type: 'client_credentials', scope: config.scope });
      if (config.tokenAuth === 'basic') headers.authorization = basic();
      else {
        form.set('client_id', config.clientId);
        if (config.clientSecret !== undefined) form.set('client_secret', config.clientSecret);
      }
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = form.toString();
    }
    const answer = await this.#tls.send({ method: 'POST', url, headers, body, timeoutMs: this.#timeoutMs });
    const call = `POST ${url.pathname}`;
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(answer.text);
      if (parsed !== null && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      // An error answer may be anything; a success must be JSON (checked below).
    }
    if (answer.status < 200 || answer.status > 299) {
      // RFC 6749 section 5.2: `error` and `error_description`; some PSPs answer an RFC 7807 problem instead.
      const title = typeof json.error === 'string' ? json.error : typeof json.title === 'string' ? json.title : `HTTP ${answer.status}`;
      const detail =
        typeof json.error_description === 'string' ? json.error_description : typeof json.detail === 'string' ? json.detail : undefined;
      throw new PixApiError('problem', call, `the token request was refused (${title})`, {
        status: answer.status,
        problem: { title, detail: detail?.slice(0, 500), status: answer.status },
      });
    }
    const value = json.access_token;
    const type = json.token_type;
    if (typeof value !== 'string' || value === '' || value.length > 8192 || (typeof type === 'string' && type.toLowerCase() !== 'bearer'))
      throw new PixApiError('unexpected', call, 'the token answer has no bearer access_token', { status: answer.status });
    const seconds = Number(json.expires_in ?? ASSUMED_LIFETIME_S);
    const lifetimeMs = (Number.isFinite(seconds) && seconds > 0 ? seconds : ASSUMED_LIFETIME_S) * 1000;
    this.#token = { value, renewAt: this.#now() + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs / 2) };
    return value;
  }
}
