import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';

interface DrizzleInternals {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: {
    prepareQuery(
      query: { sql: string; params: unknown[] },
      fields: undefined,
      name: string,
      arrayMode: boolean,
    ): { execute(): Promise<unknown> };
  };
}

/**
 * Runs a hot statement as a named prepared statement (the name is a hash of its text), so
 * PostgreSQL parses it once per connection and can keep a generic plan: planning the paid
 * path's large statements on every call cost more server CPU than executing them.
 */
export async function namedOne<T>(db: Db, query: SQL): Promise<T | undefined> {
  const internals = db as unknown as DrizzleInternals;
  const compiled = internals.dialect.sqlToQuery(query);
  const name = `w_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 24)}`;
  const result = (await internals.session.prepareQuery(compiled, undefined, name, false).execute()) as { rows: T[] };
  return result.rows[0];
}
