// Real `croupier serve` processes for the resilience tests, and a client that talks to them over
// HTTP the way the SPA and the machine callers do.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { NODE_FLAGS } from '../../bin/node-flags.js';

const BIN = join(import.meta.dirname, '../../bin/croupier.js');

/** Whether something accepts connections on `port` of 127.0.0.1 (Redis, before relying on it). */
export function answersOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port nothing listens on now, so a restarted instance can take its predecessor's port again. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface Instance {
  readonly url: string;
  readonly pid: number;
  /** Resolves with the exit code or signal once the process is gone. */
  readonly exited: Promise<string>;
  output(): string;
  kill(signal: NodeJS.Signals): void;
}

/**
 * Starts `croupier serve` on `port` and resolves once `/ready` answers 200. Fails, and leaves
 * nothing running, when the process exits first or is not ready within `startMs`.
 */
export async function startInstance(port: number, env: Record<string, string>, startMs = 60_000): Promise<Instance> {
  const child: ChildProcess = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve'], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (gone) throw new Error(`croupier serve exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`croupier serve was not ready in time:\n${output}`);
    }
    const status = await fetch(`${url}/ready`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) break;
    // Polled, not slept on: the loop ends as soon as the process answers or exits.
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  return {
    url,
    pid: child.pid!,
    exited,
    output: () => output,
    kill: (signal) => {
      if (!gone) child.kill(signal);
    },
  };
}

/** Stops an instance gracefully, or for good when it does not stop in time. */
export async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (instance === undefined) return;
  instance.kill('SIGTERM');
  const timer = setTimeout(() => instance.kill('SIGKILL'), 15_000);
  await instance.exited;
  clearTimeout(timer);
}

export interface Answer {
  status: number;
  json: unknown;
  text: string;
  retryAfter: string | null;
}

/** Cookies and the XSRF header of one signed-in browser, usable on every instance (sessions live in Redis). */
export class Browser {
  readonly #jar = new Map<string, string>();

  headers(): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
    if (this.#jar.size > 0) headers.cookie = [...this.#jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const xsrf = this.#jar.get('XSRF-TOKEN');
    if (xsrf !== undefined) headers['x-xsrf-token'] = decodeURIComponent(xsrf);
    return headers;
  }

  async call(baseUrl: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer> {
    const headers = { ...this.headers(), ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const value = pair.slice(index + 1);
      if (value === '' || /max-age=0(;|$)/i.test(line)) this.#jar.delete(pair.slice(0, index));
      else this.#jar.set(pair.slice(0, index), value);
    }
    return read(res);
  }
}

/** A machine caller's signed POST (webhooks, wallet callbacks): no cookies. */
export async function postRaw(url: string, raw: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw,
    signal: AbortSignal.timeout(30_000),
  });
  return read(res);
}

export async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, retryAfter: res.headers.get('retry-after') };
}

/** Registers a player through the real endpoints; the browser stays signed in. */
export async function registerPlayer(baseUrl: string, email: string): Promise<{ browser: Browser; id: number }> {
  const browser = new Browser();
  const csrf = await browser.call(baseUrl, 'GET', '/api/csrf-cookie');
  if (csrf.status !== 204) throw new Error(`csrf-cookie: ${csrf.status} ${csrf.text}`);
  const password = 'a long enough password';
  const res = await browser.call(baseUrl, 'POST', '/api/register', {
    name: 'Player',
    email,
    password,
    password_confirmation: password,
    agreement: true,
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
  const me = await browser.call(baseUrl, 'GET', '/api/user');
  if (me.status !== 200) throw new Error(`user: ${me.status} ${me.text}`);
  return { browser, id: (me.json as { id: number }).id };
}
