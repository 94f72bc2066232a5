import type { FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { transaction, type Db } from '../db/client.ts';
import { currentUser } from '../http/guard.ts';
import { redactPayload } from './redact.ts';

/**
 * How to use: every admin change (POST/PUT/PATCH/DELETE under /api/admin) runs inside
 * `loggedTransaction(db, entry, async (tx) => { ...the change, with tx... })`. The route turns
 * its request into the entry (`operationEntry(request)`: plain data, so the service that owns
 * the change opens the transaction without knowing Fastify); `loggedTransaction` opens one
 * transaction, writes the operation-log row (acting user, path, method, client IP, redacted
 * body) and runs the change in it: if the change throws, the log row is rolled back with it.
 * Never use the database itself inside `work` (the embedded database has one connection); use
 * `tx`. The admin-resource convention (resource.ts beside this file) already does this for
 * CRUD; the module operation-logs only reads and deletes the rows.
 */
export async function loggedTransaction<T>(db: Db, entry: OperationEntry, work: (tx: Db) => Promise<T>): Promise<T> {
  return transaction(db, async (tx) => {
    // Written first, so a change that fails after it provably takes the log row with it.
    await insertOperationLog(tx, entry);
    return work(tx);
  });
}

export interface OperationEntry {
  userId: number;
  path: string;
  method: string;
  ip: string;
  payload: unknown;
}

/** The log row for this request; `request.ip` honours TRUSTED_PROXIES only (Fastify trustProxy). */
export function operationEntry(request: FastifyRequest, payload: unknown = request.body ?? {}): OperationEntry {
  return {
    userId: currentUser(request).id,
    path: (request.url.split('?')[0] ?? '/').slice(0, 2048),
    method: request.method,
    ip: request.ip,
    payload: redactPayload(payload),
  };
}

export async function insertOperationLog(tx: Db, entry: OperationEntry): Promise<void> {
  await tx.execute(sql`insert into operation_logs (user_id, path, method, ip, payload)
    values (${entry.userId}, ${entry.path}, ${entry.method}, ${entry.ip}, ${JSON.stringify(entry.payload)}::jsonb)`);
}
