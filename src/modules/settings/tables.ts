import { bigint, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import type { SettingName, StoredSettings } from './definitions.ts';

/**
 * One row per saved version (append-only: a trigger refuses update and delete). created_by has
 * no foreign key, so who saved a version stays recorded after that account is gone.
 */
export const settings = pgTable(
  'settings',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').$type<SettingName>().notNull(),
    version: integer('version').notNull(),
    value: jsonb('value').$type<StoredSettings>().notNull(),
    createdBy: bigint('created_by', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [unique('settings_name_version_unique').on(table.name, table.version)],
);

export type Setting = typeof settings.$inferSelect;
