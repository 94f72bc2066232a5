import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { idsByName } from '../../platform/admin/rules.ts';
import { permissions } from './tables.ts';

/** Ids of the named permissions; an unknown name is a 422 on `permissions.<index>`. */
export function permissionIdsByName(tx: Db, names: string[]): Promise<number[]> {
  return idsByName(tx, permissions, names, 'permissions');
}

/** Makes the role's permissions exactly `permissionIds`. */
export async function syncRolePermissions(tx: Db, roleId: number, permissionIds: number[]): Promise<void> {
  await tx.execute(
    sql`delete from permission_role where role_id = ${roleId} and not (permission_id = any(${sql.param(permissionIds)}::bigint[]))`,
  );
  if (permissionIds.length > 0) {
    await tx.execute(
      sql`insert into permission_role (role_id, permission_id) select ${roleId}, unnest(${sql.param(permissionIds)}::bigint[]) on conflict do nothing`,
    );
  }
}
