// The API client the back office (and later the player app) share: Sanctum's handshake on the
// same origin (docs/api.md section 2). Unsafe methods carry the XSRF-TOKEN cookie as X-XSRF-TOKEN;
// a 419 (token expired) fetches a new cookie and retries once; a 401 tells whoever listens.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  /** Laravel's validation errors by field, when the answer has them. */
  get errors(): Record<string, string[]> {
    const body = this.body as { errors?: Record<string, string[]> } | null;
    return body?.errors ?? {};
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const unauthenticatedListeners = new Set<() => void>();

/** Called on every 401 (the session ended): the app goes back to sign-in. */
export function onUnauthenticated(listener: () => void): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export function xsrfToken(): string | undefined {
  const match = /(?:^|;\s*)XSRF-TOKEN=([^;]*)/.exec(document.cookie);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

export async function csrfCookie(): Promise<void> {
  await fetch('/api/csrf-cookie', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
}

export interface ApiResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Plain text answers (CSV files). */
  text?: boolean;
}

function messageOf(status: number, body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : `The request failed (${status}).`;
}

export async function request<T = unknown>(
  method: string,
  path: string,
  options: RequestOptions = {},
  retried = false,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest', ...options.headers };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  if (UNSAFE.has(method)) {
    if (xsrfToken() === undefined) await csrfCookie();
    const token = xsrfToken();
    if (token !== undefined) headers['X-XSRF-TOKEN'] = token;
  }
  const response = await fetch(path, { method, headers, body, credentials: 'same-origin' });
  if (response.status === 419 && !retried) {
    await csrfCookie();
    return request(method, path, options, true);
  }
  const text = await response.text();
  let parsed: unknown = text;
  if (!options.text || !response.ok) {
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (response.status === 401) for (const listener of unauthenticatedListeners) listener();
  if (!response.ok) throw new ApiError(response.status, messageOf(response.status, parsed), parsed);
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export const api = {
  get: <T = unknown>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T = unknown>(path: string, body?: unknown) => request<T>('POST', path, { body }),
  put: <T = unknown>(path: string, body?: unknown) => request<T>('PUT', path, { body }),
  delete: <T = unknown>(path: string) => request<T>('DELETE', path),
};
