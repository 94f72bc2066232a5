import { sql } from 'drizzle-orm';
import { correlated } from '../../platform/db/columns.ts';
import { roles, roleUser } from '../access/tables.ts';
import { users } from './tables.ts';

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
  roles: correlated<string[]>(sql`coalesce((select array_agg(${roles.name} order by ${roles.name}) from ${roleUser}
    join ${roles} on ${roles.id} = ${roleUser.roleId} where ${roleUser.userId} = ${users.id}), '{}')`),
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};
