import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { SUPER_ADMIN } from '../../platform/auth/identity.ts';
import { FlagFilter, flagValue, IdFilter } from '../../platform/admin/list.ts';
import { defineResource, type WriteContext } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { randomAlphanumeric } from '../../platform/crypto.ts';
import { ConflictError, ForbiddenError, ValidationError } from '../../platform/errors.ts';
import { anotherActiveSuperAdmin, assertMayAssign, roleIdsByName, syncUserRoles } from '../access/role-assignment.ts';
import type { PasswordHasher } from '../../platform/auth/passwords.ts';
import { authUserColumns, toAuthUser, type AuthUserRow } from './auth-user.ts';
import { presentUser, UserSchema } from './present.ts';
import { USERS_EMAIL_UNIQUE } from './repository.ts';

interface UserBody {
  email?: string;
  name?: string;
  password?: string;
  password_confirmation?: string;
  roles?: string[];
  status?: 0 | 1;
  is_partner?: boolean;
  /** Set by `prepare`: the password is hashed before the transaction opens. */
  passwordHash?: string;
}

type UserRow = AuthUserRow & { id: number | string };

const Status = Type.Union([Type.Literal(0), Type.Literal(1)], {
  'x-message': 'The selected :attribute is invalid.',
  description: '1 active, 0 disabled.',
});

const UserBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 255 }),
  name: Type.String({ maxLength: 255 }),
  password: Type.String({ minLength: 8, description: 'Write-only; hashed with argon2id.' }),
  password_confirmation: Type.Optional(Type.String({ description: 'Checked against password when sent.' })),
  roles: Type.Optional(
    Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50, description: 'Role names; default ["player"] on create.' }),
  ),
  status: Type.Optional(Status),
  is_partner: Type.Optional(Type.Boolean()),
});

export const MESSAGES = {
  disableSelf: 'You cannot disable your own account.',
  deleteSelf: 'You cannot delete your own account.',
  lastSuperAdminRole: 'The last super-admin cannot lose the role.',
  lastSuperAdminDisabled: 'The last super-admin cannot be disabled.',
  lastSuperAdminDeleted: 'The last super-admin cannot be deleted.',
  inUse: 'The user has records that must be kept.',
};

const isSuperAdmin = (row: UserRow): boolean => row.user_roles.includes(SUPER_ADMIN);

/** Who may touch a super-admin's account: only another super-admin (no takeover from below). */
function assertMayManage(w: WriteContext<UserRow>, row: UserRow): void {
  if (isSuperAdmin(row) && !w.actor.roles.includes(SUPER_ADMIN)) throw new ForbiddenError();
}

async function userValues(body: UserBody, w: WriteContext<UserRow>): Promise<Record<string, unknown>> {
  const { existing, actor, tx } = w;
  const values: Record<string, unknown> = {};
  if (existing !== undefined) {
    assertMayManage(w, existing);
    const self = Number(existing.id) === actor.id;
    const losesRole = body.roles !== undefined && isSuperAdmin(existing) && !body.roles.includes(SUPER_ADMIN);
    const disabled = body.status === 0 && Number(existing.user_status) === 1;
    if (disabled && self) throw ValidationError.field('status', MESSAGES.disableSelf);
    if ((losesRole || disabled) && isSuperAdmin(existing) && !(await anotherActiveSuperAdmin(tx, Number(existing.id)))) {
      throw losesRole
        ? ValidationError.field('roles', MESSAGES.lastSuperAdminRole)
        : ValidationError.field('status', MESSAGES.lastSuperAdminDisabled);
    }
  }
  if (body.email !== undefined) values.email = body.email.toLowerCase();
  if (body.name !== undefined) values.name = body.name;
  if (body.status !== undefined) values.status = body.status;
  if (body.is_partner !== undefined) values.is_partner = body.is_partner;
  if (body.passwordHash !== undefined) values.password = body.passwordHash;
  // A new password or a disabled account retires every remember-me cookie of the user.
  if (existing === undefined || body.passwordHash !== undefined || body.status === 0) values.remember_nonce = randomAlphanumeric(40);
  return values;
}

async function userRoles(id: number, body: UserBody, w: WriteContext<UserRow>): Promise<void> {
  const names = body.roles ?? (w.existing === undefined ? ['player'] : undefined);
  if (names === undefined) return;
  const roleIds = await roleIdsByName(w.tx, names);
  const before = w.existing?.user_roles ?? [];
  const changed = [...names.filter((name) => !before.includes(name)), ...before.filter((name) => !names.includes(name))];
  await assertMayAssign(w.tx, w.actor, changed);
  await syncUserRoles(w.tx, id, roleIds);
}

/** `/api/admin/users`: the user record of contract section 5; the password is write-only. */
export function adminUsersResource(ctx: AppContext, hasher: PasswordHasher) {
  return defineResource<UserRow, UserBody>({
    path: '/api/admin/users',
    param: 'user',
    permission: 'users',
    tag: 'Admin: users',
    table: 'users',
    alias: 'u',
    select: sql`u.id, ${authUserColumns}`,
    record: UserSchema,
    present: (row) => presentUser(toAuthUser(row)),
    createBody: UserBody,
    filters: {
      email: { schema: Type.String({ maxLength: 255 }), where: (value: string) => sql`u.email = ${value.toLowerCase()}` },
      status: { schema: Type.Integer({ minimum: 0, maximum: 1 }) },
      is_partner: { schema: FlagFilter, where: (value: string) => sql`u.is_partner = ${flagValue(value)}` },
      ref: { schema: IdFilter },
      role: {
        schema: Type.String({ maxLength: 255, description: 'Users holding this role.' }),
        where: (value: string) =>
          sql`exists (select 1 from role_user ru join roles r on r.id = ru.role_id where ru.user_id = u.id and r.name = ${value})`,
      },
    },
    search: ['name', 'email'],
    unique: [{ field: 'email', column: 'email', constraint: USERS_EMAIL_UNIQUE }],
    inUse: MESSAGES.inUse,
    prepare: async (body) => {
      if (body.password_confirmation !== undefined && body.password_confirmation !== body.password) {
        throw ValidationError.field('password', 'The password field confirmation does not match.');
      }
      return body.password === undefined ? body : { ...body, passwordHash: await hasher.hash(body.password) };
    },
    values: userValues,
    afterWrite: userRoles,
    beforeDelete: async (row, w) => {
      assertMayManage(w, row);
      if (Number(row.id) === w.actor.id) throw new ConflictError(MESSAGES.deleteSelf);
      if (isSuperAdmin(row) && !(await anotherActiveSuperAdmin(w.tx, Number(row.id))))
        throw new ConflictError(MESSAGES.lastSuperAdminDeleted);
    },
    // Sessions live outside the transaction (possibly in Redis): ended only once the change is committed.
    afterCommit: async (event) => {
      const ended = event.action === 'delete' || event.body.status === 0 || event.body.passwordHash !== undefined;
      if (event.action === 'create' || !ended) return;
      // An admin who resets their own password here stays signed in on this device only.
      const keep = event.id === event.actor.id ? event.request.session?.id : undefined;
      await ctx.sessions.store.destroyForUser(event.id, keep);
    },
  });
}
