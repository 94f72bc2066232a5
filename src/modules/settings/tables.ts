import { integer, jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { instant, int8 } from '../../platform/db/columns.ts';
import type { SettingName, StoredSettings } from './definitions.ts';

/**
 * One row per saved version (append-only: a trigger refuses update and delete). created_by has
 * no foreign key, so who saved a version stays recorded after that account is gone.
 */
export const settings = pgTable(
  'settings',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').$type<SettingName>().notNull(),
    version: integer('version').notNull(),
    value: jsonb('value').$type<StoredSettings>().notNull(),
    createdBy: int8('created_by'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [unique('settings_name_version_unique').on(table.name, table.version)],
);

export type Setting = typeof settings.$inferSelect;
