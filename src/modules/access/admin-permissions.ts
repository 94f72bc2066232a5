import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';
import { equals } from '../../platform/pagination/list.ts';
import { permissions } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

export const PermissionRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: '`<resource>.<action>`, e.g. `users.view`.' }),
  ...timestamps,
});

const PermissionBody = Type.Object({
  name: Type.String({
    maxLength: 255,
    pattern: '^[a-z0-9-]+(\\.[a-z0-9-]+)+$',
    'x-message': 'The :attribute field must look like resource.action (lower-case letters, digits and -).',
  }),
});

export const permissionsResource = defineResource({
  path: '/api/admin/permissions',
  param: 'permission',
  permission: 'permissions',
  tag: 'Admin: permissions',
  table: permissions,
  record: PermissionRecord,
  createBody: PermissionBody,
  filters: { name: equals(permissions.name, Type.String({ maxLength: 255 })) },
  search: [permissions.name],
  unique: [{ field: 'name', column: permissions.name }],
  // super-admin holds everything in code; the link keeps what operators see in line with that.
  afterWrite: async (id, _body, { tx, existing }) => {
    if (existing !== undefined) return;
    await tx.execute(sql`insert into permission_role (role_id, permission_id) select id, ${id} from roles where name = ${SUPER_ADMIN}`);
  },
});
