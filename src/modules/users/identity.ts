import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { AuthUser, Identity, IdentityStatus } from '../../platform/auth/identity.ts';
import { randomAlphanumeric } from '../../platform/crypto.ts';
import type { Db } from '../../platform/db/client.ts';
import { permissionNamesOf } from '../access/repository.ts';
import { roles, roleUser } from '../access/tables.ts';
import { identityStatusOf } from './auth-user.ts';
import { findAuthUser } from './repository.ts';
import { users } from './tables.ts';

interface UserJson {
  id: number;
  name: string;
  email: string;
  ref: number | null;
  status: number;
  is_partner: boolean;
  two_factor_enabled: boolean;
  email_verified_at: string | null;
  identity_status: IdentityStatus;
  roles: string[];
  created_at: string;
  updated_at: string;
}

/** The users module's answer to the platform's questions about users (src/platform/auth/identity.ts). */
export class UserIdentity implements Identity {
  activeUserJson(userId: SQL): SQL {
    return sql`(select json_build_object(
        'id', ${users.id}, 'name', ${users.name}, 'email', ${users.email}, 'ref', ${users.ref},
        'status', ${users.status}, 'is_partner', ${users.isPartner},
        'two_factor_enabled', (${users.twoFactorSecret} is not null and ${users.twoFactorConfirmedAt} is not null),
        'email_verified_at', ${users.emailVerifiedAt},
        'identity_status', ${identityStatusOf(users.id)},
        'created_at', ${users.createdAt}, 'updated_at', ${users.updatedAt},
        'roles', coalesce((select array_agg(${roles.name} order by ${roles.name}) from ${roleUser}
          join ${roles} on ${roles.id} = ${roleUser.roleId} where ${roleUser.userId} = ${users.id}), '{}'))
      from ${users} where ${users.id} = ${userId} and ${users.status} = 1)`;
  }

  fromJson(value: unknown): AuthUser {
    const row = (typeof value === 'string' ? JSON.parse(value) : value) as UserJson;
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      ref: row.ref,
      status: row.status,
      isPartner: row.is_partner,
      twoFactorEnabled: row.two_factor_enabled,
      emailVerifiedAt: row.email_verified_at === null ? null : new Date(row.email_verified_at),
      identityStatus: row.identity_status,
      roles: row.roles,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    };
  }

  async findActive(db: Db, userId: number): Promise<AuthUser | undefined> {
    const user = await findAuthUser(db, userId);
    return user?.status === 1 ? user : undefined;
  }

  permissionsOf(db: Db, userId: number): Promise<Set<string>> {
    return permissionNamesOf(db, userId);
  }

  async rememberNonceOf(db: Db, userId: number): Promise<string | undefined> {
    const [row] = await db
      .select({ nonce: users.rememberNonce })
      .from(users)
      .where(and(eq(users.id, userId), eq(users.status, 1)));
    return row?.nonce;
  }

  async cycleRememberNonce(db: Db, userId: number): Promise<void> {
    await db
      .update(users)
      .set({ rememberNonce: randomAlphanumeric(40) })
      .where(eq(users.id, userId));
  }
}
