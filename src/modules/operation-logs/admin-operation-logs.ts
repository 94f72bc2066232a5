import { eq, like } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { ConflictError } from '../../platform/errors.ts';
import { equals, escapeLike, filter, IdFilter } from '../../platform/pagination/list.ts';
import { operationLogs } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

/** Exactly the fields of the interface's Operation log resource. */
export const OperationLogRecord = Type.Object({
  id: Type.Integer(),
  path: Type.String({ description: 'Request path, without the query string.' }),
  method: Type.String(),
  ip: Type.String({ description: 'Client address (X-Forwarded-For believed only from TRUSTED_PROXIES).' }),
  payload: Type.Unknown({ description: 'The request body, secrets redacted, card numbers cut to their last four digits.' }),
  user_id: Type.Integer({ description: 'The acting user.' }),
  ...timestamps,
});

/** Why REGULATION=br refuses a delete: the regulated mode keeps every record five years. */
export const KEPT_FIVE_YEARS =
  'Operation logs are kept for five years under REGULATION=br (Law 14.790/2023, Portaria SPA/MF 1.207/2024) and cannot be deleted.';

/**
 * Read and delete only: rows are written by loggedTransaction (src/platform/admin/operation-log.ts).
 * Reads are not logged; a delete is an admin change like any other, so it leaves its own log row
 * behind (a log cannot be emptied without trace). Under REGULATION=br nothing is deleted: the
 * operation log is one of the records kept five years (docs/regulation.md).
 */
export const operationLogsResource = defineResource({
  path: '/api/admin/operation-logs',
  param: 'operation_log',
  permission: 'operation-logs',
  tag: 'Admin: operation logs',
  table: operationLogs,
  record: OperationLogRecord,
  actions: ['list', 'show', 'delete'],
  async beforeDelete(_row, w) {
    if (w.ctx.config.regulation === 'br') throw new ConflictError(KEPT_FIVE_YEARS, 'record_kept');
  },
  filters: {
    user_id: equals(operationLogs.userId, IdFilter),
    method: filter(
      Type.String({ pattern: '^[A-Za-z]{3,7}$', 'x-message': 'The selected :attribute is invalid.' }),
      (param) => eq(operationLogs.method, param),
      (value) => value.toUpperCase(),
    ),
    path: filter(
      Type.String({ maxLength: 2048, description: 'Path prefix: `/api/admin/users` also finds `/api/admin/users/5`.' }),
      (param) => like(operationLogs.path, param),
      (value) => `${escapeLike(value.startsWith('/') ? value : `/${value}`)}%`,
    ),
  },
});
