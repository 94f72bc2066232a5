import { date, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import type { IdentityStatus } from '../../platform/auth/identity.ts';
import { instant, int8 } from '../../platform/db/columns.ts';
import { users } from '../users/tables.ts';

/** What a stored identity can be: `unverified` is the absence of a row. */
export type StoredIdentityStatus = Exclude<IdentityStatus, 'unverified'>;
/** What a history row records. */
export type IdentityEvent = 'submitted' | 'verified' | 'rejected';

/** migrations/20261128200000_identities.sql: the player's identity as it stands (docs/api.md section 14). */
export const userIdentities = pgTable(
  'user_identities',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: int8('user_id')
      .notNull()
      .unique()
      .references(() => users.id),
    /** The CPF's 11 digits (shown masked: present.ts). */
    cpf: text('cpf').notNull(),
    fullName: text('full_name').notNull(),
    /** YYYY-MM-DD as written, no time zone. */
    birthDate: date('birth_date', { mode: 'string' }).notNull(),
    status: text('status').$type<StoredIdentityStatus>().notNull(),
    reason: text('reason'),
    /** The verifier adapter's code the submission went to. */
    verifier: text('verifier').notNull(),
    submittedAt: instant('submitted_at').notNull().defaultNow(),
    verifiedAt: instant('verified_at'),
    decidedBy: int8('decided_by').references(() => users.id),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('user_identities_cpf_held_idx')
      .on(table.cpf)
      .where(sql`status in ('pending', 'verified')`),
    index('user_identities_cpf_idx').on(table.cpf),
    index('user_identities_status_idx').on(table.status, table.id),
  ],
);

/** Every submission and decision, append-only (db/functions/user_identity_history_append_only.sql). */
export const userIdentityHistory = pgTable(
  'user_identity_history',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: int8('user_id')
      .notNull()
      .references(() => users.id),
    event: text('event').$type<IdentityEvent>().notNull(),
    cpf: text('cpf').notNull(),
    fullName: text('full_name').notNull(),
    birthDate: date('birth_date', { mode: 'string' }).notNull(),
    status: text('status').$type<StoredIdentityStatus>().notNull(),
    reason: text('reason'),
    verifier: text('verifier').notNull(),
    actorId: int8('actor_id').references(() => users.id),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (table) => [index('user_identity_history_user_idx').on(table.userId, table.id)],
);

export type IdentityRow = typeof userIdentities.$inferSelect;
