// Runs the real command line (bin/croupier.js) in child processes, and talks to a running server
// the way the SPA does.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { backend, freshDatabase, type TestDatabase } from './database.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export const BIN = join(import.meta.dirname, '../../bin/croupier.js');

export function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...extra };
}

export function run(args: string[], extra: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Scratch {
  /** A new empty DATA_DIR. */
  dataDir: () => string;
  /** The database this run of the suite targets: the embedded one in a new DATA_DIR, or a fresh PostgreSQL database beside one. */
  target: () => Promise<Record<string, string>>;
}

/**
 * What the processes of one suite run on, removed after it: call it inside `describe`, whose
 * `after` it registers. `prefix` names the temporary directories (`croupier-cli-`).
 */
export function scratch(prefix: string): Scratch {
  const dirs: string[] = [];
  const databases: TestDatabase[] = [];
  after(async () => {
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
    for (const database of databases) await database.drop();
  });
  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  }
  async function target(): Promise<Record<string, string>> {
    if (backend === 'pglite') return { DATA_DIR: dataDir() };
    const database = await freshDatabase();
    databases.push(database);
    return { DATA_DIR: dataDir(), DATABASE_URL: database.url! };
  }
  return { dataDir, target };
}

/** Starts `croupier serve [args]` on a free port and waits until it listens. */
export async function serve(extra: Record<string, string>, args: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve', ...args], { env: env({ PORT: '0', LOG_LEVEL: 'trace', ...extra }) });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server still starting would outlive the test and keep its file's process from ending.
      child.kill('SIGKILL');
      reject(new Error(`serve did not start:\n${output}`));
    }, 120_000);
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`serve exited:\n${output}`)));
  });
  return {
    child,
    url,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * A minimal browser over real HTTP: cookies and the XSRF header, as axios sends them. Each call
 * opens a connection of its own, so calls to `serve --workers N` spread over the workers.
 */
export class Browser {
  readonly jar = new Map<string, string>();
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  call(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest', ...extraHeaders };
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const xsrf = this.jar.get('XSRF-TOKEN');
    if (xsrf !== undefined) headers['x-xsrf-token'] = xsrf;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return new Promise((resolve, reject) => {
      const request = http.request(this.baseUrl + path, { method, headers, agent: false }, (res) => {
        for (const line of res.headers['set-cookie'] ?? []) {
          const [pair = ''] = line.split(';');
          const index = pair.indexOf('=');
          const value = pair.slice(index + 1);
          if (value === '') this.jar.delete(pair.slice(0, index));
          else this.jar.set(pair.slice(0, index), value);
        }
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      request.on('error', reject);
      request.end(payload);
    });
  }
}
