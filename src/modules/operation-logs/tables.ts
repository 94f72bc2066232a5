import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { instant, int8 } from '../../platform/db/columns.ts';

/** user_id has no foreign key: what an operator did outlives the operator's account. */
export const operationLogs = pgTable('operation_logs', {
  id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: int8('user_id').notNull(),
  path: text('path').notNull(),
  method: text('method').notNull(),
  ip: text('ip').notNull(),
  // The request body after redaction (redact.ts): any JSON value.
  payload: jsonb('payload').notNull().default({}),
  createdAt: instant('created_at').notNull().defaultNow(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});

export type OperationLog = typeof operationLogs.$inferSelect;
