import pg from 'pg';
import { openDatabase } from '../../src/platform/db/client.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { schemaFingerprint } from '../../src/platform/db/template.ts';

/**
 * On PostgreSQL, each test file's databases are copies (`create database … template`, 0.4 s) of
 * one database migrated once per run (scripts/test.ts), as the embedded ones start from the
 * migrated template (src/platform/db/template.ts): applying every migration took each file
 * ~1.5 s more. It is named by the schema's fingerprint, so a changed migration gets its own.
 */
export function templateName(fingerprint = schemaFingerprint()): string {
  return `croupier_template_${fingerprint}`;
}

/** Another checkout sharing this server may be testing with its own template: older ones go. */
const STALE_MS = 60 * 60 * 1000;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether the template of today's schema exists on the server of `adminUrl`. */
export async function hasTemplate(adminUrl: string): Promise<boolean> {
  return withClient(adminUrl, async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [templateName()]);
    return found.rowCount === 1;
  });
}

/**
 * Makes the template of today's schema unless it exists (built under another name and renamed, so
 * a half-made one is never copied), and drops other schemas' templates made over an hour ago.
 */
export async function preparePostgresTemplate(adminUrl: string): Promise<void> {
  const name = templateName();
  const building = `${name}_building_${process.pid}`;
  const exists = await withClient(adminUrl, async (client) => {
    const others = await client.query<{ datname: string; made: string | null }>(
      `select datname, shobj_description(oid, 'pg_database') as made from pg_database where datname like 'croupier\\_template\\_%' and datname <> $1`,
      [name],
    );
    for (const other of others.rows) {
      const made = Number(other.made ?? 0);
      if (Date.now() - made > STALE_MS) await client.query(`drop database if exists ${other.datname} with (force)`);
    }
    if ((await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1) return true;
    await client.query(`create database ${building}`);
    // Dated from its creation, so another run's clean-up does not take a half-made one for stale.
    await client.query(`comment on database ${building} is '${Date.now()}'`);
    return false;
  });
  if (exists) return;
  const url = new URL(adminUrl);
  url.pathname = `/${building}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 1 });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
  await withClient(adminUrl, async (client) => {
    try {
      await client.query(`alter database ${building} rename to ${name}`);
    } catch {
      // Another run made it meanwhile: theirs serves as well.
      await client.query(`drop database if exists ${building} with (force)`);
    }
  });
}
