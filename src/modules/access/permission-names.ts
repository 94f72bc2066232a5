import { sql } from 'drizzle-orm';
import { rows, type Db } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';

/** Ids of the named permissions; an unknown name is a 422 on `permissions.<index>`. */
export async function permissionIdsByName(tx: Db, names: string[]): Promise<number[]> {
  const found = await rows<{ id: number | string; name: string }>(
    tx,
    sql`select id, name from permissions where name = any(${sql.param(names)}::text[])`,
  );
  const byName = new Map(found.map((row) => [row.name, Number(row.id)]));
  const errors: Record<string, string[]> = {};
  names.forEach((name, index) => {
    if (!byName.has(name)) errors[`permissions.${index}`] = [`The selected permissions.${index} is invalid.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return [...new Set(names.map((name) => byName.get(name)!))];
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
