import { randomBytes } from 'node:crypto';

/** A browser's view of a signed-in session: the cookies and the CSRF header axios would send. */
export interface BenchSession {
  email: string;
  password: string;
  /** The `Cookie` request header. */
  cookie: string;
  /** The XSRF-TOKEN value, for X-XSRF-TOKEN on writes. */
  xsrf: string;
  /** Request headers for autocannon or fetch: cookie, X-XSRF-TOKEN, accept. */
  headers: Record<string, string>;
}

class CookieJar {
  readonly #cookies = new Map<string, string>();

  take(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const pair = header.split(';', 1)[0] ?? '';
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value === '' || /max-age=0(;|$)/i.test(header)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

async function expect(response: Response, status: number, what: string): Promise<void> {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status} ${await response.text()}`);
}

/** Fetches the CSRF cookie and posts `body` to `path` the way the SPA does, keeping the new cookies. */
async function signedInThrough(baseUrl: string, path: string, body: Record<string, unknown>, status: number): Promise<CookieJar> {
  const jar = new CookieJar();
  const csrf = await fetch(`${baseUrl}/api/csrf-cookie`, { headers: { accept: 'application/json' } });
  await expect(csrf, 204, 'GET /api/csrf-cookie');
  jar.take(csrf);
  const xsrf = jar.get('XSRF-TOKEN');
  if (xsrf === undefined) throw new Error('GET /api/csrf-cookie set no XSRF-TOKEN cookie.');
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-xsrf-token': decodeURIComponent(xsrf),
      cookie: jar.header(),
    },
    body: JSON.stringify(body),
  });
  await expect(response, status, `POST ${path}`);
  jar.take(response);
  return jar;
}

function sessionOf(jar: CookieJar, email: string, password: string): BenchSession {
  const cookie = jar.header();
  const xsrf = decodeURIComponent(jar.get('XSRF-TOKEN') ?? '');
  return { email, password, cookie, xsrf, headers: { accept: 'application/json', cookie, 'x-xsrf-token': xsrf } };
}

/** Registers a new player through the real endpoints and returns its signed-in session. */
export async function registerAndSignIn(baseUrl: string, name = 'Bench Player'): Promise<BenchSession> {
  const email = `bench-${randomBytes(6).toString('hex')}@example.com`;
  const password = randomBytes(12).toString('base64url');
  const jar = await signedInThrough(
    baseUrl,
    '/api/register',
    { name, email, password, password_confirmation: password, agreement: true },
    201,
  );
  return sessionOf(jar, email, password);
}

/** Signs an existing user in (e.g. an admin made with `croupier admin:create`). */
export async function signIn(baseUrl: string, email: string, password: string): Promise<BenchSession> {
  const jar = await signedInThrough(baseUrl, '/api/login', { email, password }, 200);
  return sessionOf(jar, email, password);
}

/** Checks a route answers `status` before it is put under load, so a bench never measures errors. */
export async function expectStatus(baseUrl: string, path: string, headers: Record<string, string>, status = 200): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, { headers });
  const text = await response.text();
  if (response.status !== status) throw new Error(`GET ${path}: expected ${status}, got ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}
