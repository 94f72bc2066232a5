// A real PgBouncer (Debian's `pgbouncer` package) in front of the test's PostgreSQL database,
// started by the test from a generated configuration and stopped after it.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { answersOn, freePort } from './instances.ts';

/** Where the pgbouncer binary is (Debian installs it in /usr/sbin, often not on a user's PATH), or undefined. */
export function findPgBouncer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/bin'];
  return dirs.map((dir) => join(dir, 'pgbouncer')).find((path) => path !== 'pgbouncer' && existsSync(path));
}

export interface PgBouncer {
  /** The URL of `database` through the pooler. */
  readonly url: string;
  /** What pgbouncer logged (connections, errors). */
  output(): string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** `transaction` (each transaction on any server connection) or `session`. */
  poolMode: 'transaction' | 'session';
  /** Server connections per database and user: fewer than the clients', as in production. */
  poolSize: number;
}

/**
 * Starts `binary` listening on a free port of 127.0.0.1, pooling connections to the database of
 * `directUrl` (the same user, no authentication of its own: `auth_type = any`), and resolves once
 * it accepts connections.
 */
export async function startPgBouncer(binary: string, directUrl: string, options: PgBouncerOptions): Promise<PgBouncer> {
  const server = new URL(directUrl);
  const name = server.pathname.slice(1);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'croupier-pgbouncer-'));
  // Run as root, pgbouncer refuses to start unless told to become another user, who must read this.
  chmodSync(dir, 0o755);
  const password = server.password === '' ? '' : ` password=${decodeURIComponent(server.password)}`;
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `${name} = host=${server.hostname} port=${server.port || '5432'} dbname=${name} user=${decodeURIComponent(server.username)}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      `pool_mode = ${options.poolMode}`,
      `default_pool_size = ${options.poolSize}`,
      'max_client_conn = 500',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const child = spawn(binary, [...asRoot, ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const stop = async () => {
    if (!gone) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; !(await answersOn(port)); attempt++) {
    if (gone || attempt > 200) {
      await stop();
      throw new Error(`pgbouncer did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = new URL(directUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), output: () => output, stop };
}
