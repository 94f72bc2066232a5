import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const BENCH_LOCK = 'croupier-bench';

export interface BenchDatabase {
  /** What the server gets as DATABASE_URL; undefined runs the embedded database in `dataDir`. */
  databaseUrl: string | undefined;
  /** A throw-away DATA_DIR (app key, embedded database files). */
  dataDir: string;
  /** Where the figures were taken, for the report. */
  label: string;
  cleanup(): Promise<void>;
}

export interface BenchDatabaseOptions {
  /** The embedded database instead of PostgreSQL. */
  pglite?: boolean;
  /** A database to use as it is (never dropped); without it a fresh `name` is made on the local server. */
  databaseUrl?: string;
  /** The throw-away database recreated on each run. */
  name?: string;
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

/**
 * The database a bench runs on: the one given, the embedded one, or a throw-away PostgreSQL
 * database recreated empty so every run starts from the same state, and dropped at the end.
 */
export async function benchDatabase(options: BenchDatabaseOptions = {}): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'croupier-bench-'));
  const removeDataDir = async () => rmSync(dataDir, { recursive: true, force: true });
  if (options.pglite === true) {
    return { databaseUrl: undefined, dataDir, label: 'PGlite (embedded)', cleanup: removeDataDir };
  }
  if (options.databaseUrl !== undefined) {
    return { databaseUrl: options.databaseUrl, dataDir, label: `PostgreSQL ${redact(options.databaseUrl)}`, cleanup: removeDataDir };
  }
  const name = options.name ?? 'croupier_bench';
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain database name: ${name}`);
  // Held for the whole run: a second bench would drop this one's database under its server
  // (same name) or measure its load as well as its own (any name), so it waits its turn.
  const admin = new pg.Client({ connectionString: DEFAULT_SERVER_URL });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const [first] = (await admin.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [BENCH_LOCK])).rows;
    if (first?.locked !== true) {
      console.error('Another croupier bench is running on this PostgreSQL server; waiting for it to finish.');
      await admin.query('select pg_advisory_lock(hashtext($1))', [BENCH_LOCK]);
    }
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } catch (error) {
    await admin.end();
    throw error;
  }
  const url = new URL(DEFAULT_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    label: `PostgreSQL ${url.toString()} (fresh)`,
    async cleanup() {
      try {
        await admin.query(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
        await removeDataDir();
      }
    },
  };
}
