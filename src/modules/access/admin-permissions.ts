import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { iso } from '../../platform/admin/rules.ts';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';

interface PermissionRow {
  id: number | string;
  name: string;
  created_at: Date | string;
  updated_at: Date | string;
}

interface PermissionBody {
  name?: string;
}

export const PermissionRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: '`<resource>.<action>`, e.g. `users.view`.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const PermissionBody = Type.Object({
  name: Type.String({
    maxLength: 255,
    pattern: '^[a-z0-9-]+(\\.[a-z0-9-]+)+$',
    'x-message': 'The :attribute field must look like resource.action (lower-case letters, digits and -).',
  }),
});

export const permissionsResource = defineResource<PermissionRow, PermissionBody>({
  path: '/api/admin/permissions',
  param: 'permission',
  permission: 'permissions',
  tag: 'Admin: permissions',
  table: 'permissions',
  record: PermissionRecord,
  createBody: PermissionBody,
  filters: { name: { schema: Type.String({ maxLength: 255 }) } },
  search: ['name'],
  writable: ['name'],
  unique: [{ field: 'name', column: 'name', constraint: 'permissions_name_unique' }],
  // super-admin holds everything in code; the link keeps what operators see in line with that.
  afterWrite: async (id, _body, { tx, existing }) => {
    if (existing !== undefined) return;
    await tx.execute(sql`insert into permission_role (role_id, permission_id) select id, ${id} from roles where name = ${SUPER_ADMIN}`);
  },
  present: (row) => ({ id: Number(row.id), name: row.name, created_at: iso(row.created_at), updated_at: iso(row.updated_at) }),
});
