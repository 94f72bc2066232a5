import { sql, type SQL } from 'drizzle-orm';
import type { IdentityStatus } from '../../platform/auth/identity.ts';
import { correlated } from '../../platform/db/columns.ts';
import { roles, roleUser } from '../access/tables.ts';
import { users } from './tables.ts';

/**
 * The identity status of the user whose id is `userId` (docs/api.md section 14): the kyc
 * module's row, `unverified` without one. Named by SQL, not imported, since the kyc module
 * reads the users table (no cycle).
 */
export function identityStatusOf(userId: SQL | typeof users.id): SQL<IdentityStatus> {
  return sql<IdentityStatus>`coalesce((select ui.status from user_identities ui where ui.user_id = ${userId}), 'unverified')`;
}

/** The selection of an AuthUser from `users`: its row is the AuthUser itself (findAuthUser checks that). */
export const authUserFields = {
  id: users.id,
  name: users.name,
  email: users.email,
  ref: users.ref,
  status: users.status,
  isPartner: users.isPartner,
  twoFactorEnabled: sql<boolean>`(${users.twoFactorSecret} is not null and ${users.twoFactorConfirmedAt} is not null)`,
  emailVerifiedAt: users.emailVerifiedAt,
  identityStatus: correlated<IdentityStatus>(identityStatusOf(users.id)),
  roles: correlated<string[]>(sql`coalesce((select array_agg(${roles.name} order by ${roles.name}) from ${roleUser}
    join ${roles} on ${roles.id} = ${roleUser.roleId} where ${roleUser.userId} = ${users.id}), '{}')`),
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};
