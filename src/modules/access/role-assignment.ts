import { sql } from 'drizzle-orm';
import { idsByName } from '../../platform/admin/rules.ts';
import { one, rows, type Db } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';
import { SUPER_ADMIN, type AuthUser } from '../../platform/auth/identity.ts';
import { permissionNamesOf } from './repository.ts';
import { roles } from './tables.ts';

/** Ids of the named roles; a name that is no role is a 422 on `roles.<index>`, as Laravel reports it. */
export function roleIdsByName(tx: Db, names: string[]): Promise<number[]> {
  return idsByName(tx, roles, names, 'roles');
}

/** Makes the user's roles exactly `roleIds`. */
export async function syncUserRoles(tx: Db, userId: number, roleIds: number[]): Promise<void> {
  await tx.execute(sql`delete from role_user where user_id = ${userId} and not (role_id = any(${sql.param(roleIds)}::bigint[]))`);
  if (roleIds.length > 0) {
    await tx.execute(
      sql`insert into role_user (user_id, role_id) select ${userId}, unnest(${sql.param(roleIds)}::bigint[]) on conflict do nothing`,
    );
  }
}

/**
 * Granting is bounded by what the actor holds: only a super-admin grants or revokes super-admin,
 * and anyone else may hand out or take away only roles whose permissions they hold themselves
 * (an admin with users.manage cannot promote anybody, themselves included, above their own rank).
 */
export async function assertMayAssign(tx: Db, actor: AuthUser, changed: string[]): Promise<void> {
  if (actor.roles.includes(SUPER_ADMIN) || changed.length === 0) return;
  if (changed.includes(SUPER_ADMIN)) {
    throw ValidationError.field('roles', 'Only a super-admin can grant or revoke the super-admin role.');
  }
  const held = await permissionNamesOf(tx, actor.id);
  const needed = await rows<{ name: string }>(
    tx,
    sql`select distinct p.name from roles r join permission_role pr on pr.role_id = r.id
      join permissions p on p.id = pr.permission_id where r.name = any(${sql.param(changed)}::text[])`,
  );
  if (needed.some((row) => !held.has(row.name))) {
    throw ValidationError.field('roles', 'You can only grant or revoke roles whose permissions you hold.');
  }
}

/**
 * Whether an active super-admin other than `userId` remains. The super-admin role row is locked
 * first, so two concurrent demotions cannot each see the other as the survivor.
 */
export async function anotherActiveSuperAdmin(tx: Db, userId: number): Promise<boolean> {
  await tx.execute(sql`select id from roles where name = ${SUPER_ADMIN} for update`);
  const row = await one(
    tx,
    sql`select 1 from role_user ru join roles r on r.id = ru.role_id join users u on u.id = ru.user_id
      where r.name = ${SUPER_ADMIN} and u.status = 1 and u.id <> ${userId} limit 1`,
  );
  return row !== undefined;
}
