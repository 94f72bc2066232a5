import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { iso } from '../../platform/admin/rules.ts';
import { ConflictError, ValidationError } from '../../platform/errors.ts';
import { permissionIdsByName, syncRolePermissions } from './permission-names.ts';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';

interface RoleRow {
  id: number | string;
  name: string;
  permissions: string[];
  created_at: Date | string;
  updated_at: Date | string;
}

interface RoleBody {
  name?: string;
  permissions?: string[];
}

/**
 * Roles the code itself names: super-admin holds every permission, and registration gives every
 * new account `player`. Renaming or deleting them would silently change who may do what.
 */
const BUILT_IN = new Set([SUPER_ADMIN, 'player']);

export const RoleRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  permissions: Type.Array(Type.String(), { description: 'Permission names.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const RoleBody = Type.Object({
  name: Type.String({
    maxLength: 255,
    pattern: '^[a-z0-9][a-z0-9_-]*$',
    'x-message': 'The :attribute field must be lower-case letters, digits, - or _.',
  }),
  permissions: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 500, description: 'Permission names.' })),
});

export const rolesResource = defineResource<RoleRow, RoleBody>({
  path: '/api/admin/roles',
  param: 'role',
  permission: 'roles',
  tag: 'Admin: roles',
  table: 'roles',
  select: sql`t.id, t.name, t.created_at, t.updated_at, coalesce((select array_agg(p.name order by p.name)
    from permission_role pr join permissions p on p.id = pr.permission_id where pr.role_id = t.id), '{}') as permissions`,
  record: RoleRecord,
  createBody: RoleBody,
  filters: { name: { schema: Type.String({ maxLength: 255 }) } },
  search: ['name'],
  unique: [{ field: 'name', column: 'name', constraint: 'roles_name_unique' }],
  values: async (body, { existing }) => {
    if (existing !== undefined && BUILT_IN.has(existing.name)) {
      if (body.name !== undefined && body.name !== existing.name) {
        throw ValidationError.field('name', `The ${existing.name} role cannot be renamed.`);
      }
      if (existing.name === SUPER_ADMIN && body.permissions !== undefined) {
        throw ValidationError.field('permissions', 'The super-admin role always holds every permission.');
      }
    }
    return body.name === undefined ? {} : { name: body.name };
  },
  afterWrite: async (id, body, { tx }) => {
    if (body.permissions !== undefined) await syncRolePermissions(tx, id, await permissionIdsByName(tx, body.permissions));
  },
  beforeDelete: async (row) => {
    if (BUILT_IN.has(row.name)) throw new ConflictError(`The ${row.name} role cannot be deleted.`);
  },
  present: (row) => ({
    id: Number(row.id),
    name: row.name,
    permissions: row.permissions,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }),
});
