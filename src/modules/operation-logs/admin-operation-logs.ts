import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { IdFilter } from '../../platform/admin/list.ts';
import { defineResource } from '../../platform/admin/resource.ts';
import { iso } from '../../platform/admin/rules.ts';

interface OperationLogRow {
  id: number | string;
  user_id: number | string;
  path: string;
  method: string;
  ip: string;
  payload: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

/** Exactly the fields of the interface's Operation log resource. */
export const OperationLogRecord = Type.Object({
  id: Type.Integer(),
  path: Type.String({ description: 'Request path, without the query string.' }),
  method: Type.String(),
  ip: Type.String({ description: 'Client address (X-Forwarded-For believed only from TRUSTED_PROXIES).' }),
  payload: Type.Unknown({ description: 'The request body, secrets redacted, card numbers cut to their last four digits.' }),
  user_id: Type.Integer({ description: 'The acting user.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * Read and delete only: rows are written by adminTransaction. Reads are not logged; a delete is
 * an admin change like any other, so it leaves its own log row behind (a log cannot be emptied
 * without trace).
 */
export const operationLogsResource = defineResource<OperationLogRow>({
  path: '/api/admin/operation-logs',
  param: 'operation_log',
  permission: 'operation-logs',
  tag: 'Admin: operation logs',
  table: 'operation_logs',
  record: OperationLogRecord,
  actions: ['list', 'show', 'delete'],
  filters: {
    user_id: { schema: IdFilter },
    method: {
      schema: Type.String({ pattern: '^[A-Za-z]{3,7}$', 'x-message': 'The selected :attribute is invalid.' }),
      where: (value: string, alias) => sql`${sql.raw(alias)}.method = ${value.toUpperCase()}`,
    },
    path: {
      schema: Type.String({ maxLength: 2048, description: 'Path prefix: `/api/admin/users` also finds `/api/admin/users/5`.' }),
      where: (value: string, alias) => sql`${sql.raw(alias)}.path like ${`${escapeLike(value.startsWith('/') ? value : `/${value}`)}%`}`,
    },
  },
  present: (row) => ({
    id: Number(row.id),
    path: row.path,
    method: row.method,
    ip: row.ip,
    payload: row.payload,
    user_id: Number(row.user_id),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }),
});
