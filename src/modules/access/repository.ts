import { sql } from 'drizzle-orm';
import { rows, type Db } from '../../platform/db/client.ts';

/** The permission names the user holds through their roles. */
export async function permissionNamesOf(db: Db, userId: number): Promise<Set<string>> {
  const found = await rows<{ name: string }>(
    db,
    sql`select distinct p.name from role_user ru
      join permission_role pr on pr.role_id = ru.role_id
      join permissions p on p.id = pr.permission_id
      where ru.user_id = ${userId}`,
  );
  return new Set(found.map((row) => row.name));
}

export async function assignRole(db: Db, userId: number, roleName: string): Promise<void> {
  await db.execute(sql`insert into role_user (user_id, role_id)
    select ${userId}, id from roles where name = ${roleName}
    on conflict do nothing`);
}
