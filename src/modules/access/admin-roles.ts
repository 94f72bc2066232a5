import { getTableColumns, sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';
import { correlated } from '../../platform/db/columns.ts';
import { ConflictError, ValidationError } from '../../platform/errors.ts';
import { equals } from '../../platform/pagination/list.ts';
import { permissionIdsByName, syncRolePermissions } from './permission-names.ts';
import { permissionRole, permissions, roles } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

/**
 * Roles the code itself names: super-admin holds every permission, and registration gives every
 * new account `player`. Renaming or deleting them would silently change who may do what.
 */
const BUILT_IN = new Set([SUPER_ADMIN, 'player']);

export const RoleRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  permissions: Type.Array(Type.String(), { description: 'Permission names.' }),
  ...timestamps,
});

const RoleBody = Type.Object({
  name: Type.String({
    maxLength: 255,
    pattern: '^[a-z0-9][a-z0-9_-]*$',
    'x-message': 'The :attribute field must be lower-case letters, digits, - or _.',
  }),
  permissions: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 500, description: 'Permission names.' })),
});

export const rolesResource = defineResource({
  path: '/api/admin/roles',
  param: 'role',
  permission: 'roles',
  tag: 'Admin: roles',
  table: roles,
  select: {
    ...getTableColumns(roles),
    permissions: correlated<
      string[]
    >(sql`coalesce((select array_agg(${permissions.name} order by ${permissions.name}) from ${permissionRole}
      join ${permissions} on ${permissions.id} = ${permissionRole.permissionId} where ${permissionRole.roleId} = ${roles.id}), '{}')`),
  },
  record: RoleRecord,
  createBody: RoleBody,
  filters: { name: equals(roles.name, Type.String({ maxLength: 255 })) },
  search: [roles.name],
  unique: [{ field: 'name', column: roles.name }],
  values: async (body, { existing }) => {
    if (existing !== undefined && BUILT_IN.has(existing.name)) {
      if (body.name !== undefined && body.name !== existing.name) {
        throw ValidationError.field('name', `The ${existing.name} role cannot be renamed.`);
      }
      if (existing.name === SUPER_ADMIN && body.permissions !== undefined) {
        throw ValidationError.field('permissions', 'The super-admin role always holds every permission.');
      }
    }
    return { name: body.name };
  },
  afterWrite: async (id, body, { tx }) => {
    if (body.permissions !== undefined) await syncRolePermissions(tx, id, await permissionIdsByName(tx, body.permissions));
  },
  beforeDelete: async (row) => {
    if (BUILT_IN.has(row.name)) throw new ConflictError(`The ${row.name} role cannot be deleted.`);
  },
});
