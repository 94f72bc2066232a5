import { bigint, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** user_id has no foreign key: what an operator did outlives the operator's account. */
export const operationLogs = pgTable('operation_logs', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  userId: bigint('user_id', { mode: 'number' }).notNull(),
  path: text('path').notNull(),
  method: text('method').notNull(),
  ip: text('ip').notNull(),
  // The request body after redaction (redact.ts): any JSON value.
  payload: jsonb('payload').notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type OperationLog = typeof operationLogs.$inferSelect;
