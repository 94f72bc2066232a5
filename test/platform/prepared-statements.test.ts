// The pool keeps named prepared statements on PostgreSQL itself (each is planned once per
// connection: the benches' figures depend on it), and sends none behind a transaction pooler,
// where the next transaction may run on a server connection that never saw the name.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { roles } from '../../src/modules/access/tables.ts';
import { openDatabase, rows, sql, type Database, type DatabaseOptions } from '../../src/platform/db/client.ts';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';

describe('named prepared statements', { skip: backend !== 'postgres' && 'needs PostgreSQL: the embedded database has no pool' }, () => {
  let database: TestDatabase;
  const opened: Database[] = [];

  before(async () => {
    database = await freshDatabase();
  });
  after(async () => {
    for (const each of opened) await each.close();
    await database?.drop();
  });

  /** Runs a named statement twice on a pool of one connection; answers its rows and the names that connection holds. */
  async function runNamed(options: Partial<DatabaseOptions>): Promise<{ found: string[]; prepared: string[] }> {
    const opening = await openDatabase({ databaseUrl: database.url, dataDir: '', poolSize: 1, ...options });
    opened.push(opening);
    const statement = opening.db
      .select({ name: roles.name })
      .from(roles)
      .where(eq(roles.name, sql.placeholder('name')))
      .prepare('probe_role');
    await statement.execute({ name: 'super-admin' });
    const found = (await statement.execute({ name: 'super-admin' })) as { name: string }[];
    const prepared = await rows<{ name: string }>(opening.db, sql`select name from pg_prepared_statements order by name`);
    return { found: found.map((row) => row.name), prepared: prepared.map((row) => row.name) };
  }

  test('on PostgreSQL itself a named statement is prepared on the connection and kept', async () => {
    const { found, prepared } = await runNamed({});
    assert.deepEqual(found, ['super-admin']);
    assert.ok(prepared.includes('probe_role'), `prepared: ${prepared.join(', ')}`);
  });

  test('behind a transaction pooler (a direct URL of its own) the same statement runs unnamed and leaves nothing prepared', async () => {
    const { found, prepared } = await runNamed({ directUrl: `${database.url!}?application_name=direct` });
    assert.deepEqual(found, ['super-admin']);
    assert.deepEqual(prepared, []);
  });

  test('behind a pooler that keeps them (DATABASE_PREPARED_STATEMENTS=on) the names are sent', async () => {
    const { prepared } = await runNamed({ directUrl: `${database.url!}?application_name=direct`, preparedStatements: true });
    assert.ok(prepared.includes('probe_role'), `prepared: ${prepared.join(', ')}`);
  });
});
