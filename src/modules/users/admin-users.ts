import { eq, sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { identityStatusSchema, isSuperAdmin, SUPER_ADMIN, type AuthUser } from '../../platform/auth/identity.ts';
import { defineResource, type BodyOf, type Values, type WriteContext } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { randomAlphanumeric } from '../../platform/crypto.ts';
import { ConflictError, ForbiddenError, ValidationError } from '../../platform/errors.ts';
import { anotherActiveSuperAdmin, assertMayAssign, roleIdsByName, syncUserRoles } from '../access/role-assignment.ts';
import type { PasswordHasher } from '../../platform/auth/passwords.ts';
import { equals, filter, FlagFilter, flagValue, IdFilter } from '../../platform/pagination/list.ts';
import { roles, roleUser } from '../access/tables.ts';
import { AdminResponsibleFields, excludedNow, presentResponsible, responsibleOf } from '../limits/admin-view.ts';
import { authUserFields, identityStatusOf } from './auth-user.ts';
import { presentUser, UserSchema } from './present.ts';
import { users } from './tables.ts';

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
};

/** The body the hooks see: the password hashed by `prepare` before the transaction opens. */
type UserBody = BodyOf<typeof UserBody> & { passwordHash?: string };

/** Who may touch a super-admin's account: only another super-admin (no takeover from below). */
function assertMayManage(w: WriteContext<AuthUser>, row: AuthUser): void {
  if (isSuperAdmin(row) && !isSuperAdmin(w.actor)) throw new ForbiddenError();
}

async function userValues(body: UserBody, w: WriteContext<AuthUser>): Promise<Values<typeof users>> {
  const { existing, actor, tx } = w;
  if (existing !== undefined) {
    assertMayManage(w, existing);
    const self = existing.id === actor.id;
    const losesRole = body.roles !== undefined && isSuperAdmin(existing) && !body.roles.includes(SUPER_ADMIN);
    const disabled = body.status === 0 && existing.status === 1;
    if (disabled && self) throw ValidationError.field('status', MESSAGES.disableSelf);
    if ((losesRole || disabled) && isSuperAdmin(existing) && !(await anotherActiveSuperAdmin(tx, existing.id))) {
      throw losesRole
        ? ValidationError.field('roles', MESSAGES.lastSuperAdminRole)
        : ValidationError.field('status', MESSAGES.lastSuperAdminDisabled);
    }
  }
  // A new password or a disabled account retires every remember-me cookie of the user.
  const retire = existing === undefined || body.passwordHash !== undefined || body.status === 0;
  return {
    email: body.email?.toLowerCase(),
    name: body.name,
    status: body.status,
    isPartner: body.is_partner,
    password: body.passwordHash,
    rememberNonce: retire ? randomAlphanumeric(40) : undefined,
  };
}

async function userRoles(id: number, body: UserBody, w: WriteContext<AuthUser>): Promise<void> {
  const names = body.roles ?? (w.existing === undefined ? ['player'] : undefined);
  if (names === undefined) return;
  const roleIds = await roleIdsByName(w.tx, names);
  const before = w.existing?.roles ?? [];
  const changed = [...names.filter((name) => !before.includes(name)), ...before.filter((name) => !names.includes(name))];
  await assertMayAssign(w.tx, w.actor, changed);
  await syncUserRoles(w.tx, id, roleIds);
}

/** The identity filter's OpenAPI text (a description, not an answer: the catalogue scan leaves it out). */
const IDENTITY_FILTER = { description: 'Users whose identity is unverified, pending, verified or rejected.' };

/** `/api/admin/users`: the user record of docs/api.md section 5; the password is write-only. */
export function adminUsersResource(ctx: AppContext, hasher: PasswordHasher) {
  return defineResource({
    path: '/api/admin/users',
    param: 'user',
    permission: 'users',
    tag: 'Admin: users',
    table: users,
    // REGULATION=br: the player's limits, self-exclusion and national listing (src/modules/limits/admin-view.ts).
    select: { ...authUserFields, responsible: responsibleOf(sql.raw('"users"."id"')) },
    record: Type.Object({ ...UserSchema.properties, ...AdminResponsibleFields }),
    present: ({ responsible, ...user }) => ({
      ...presentUser(user, ctx.config.regulation),
      ...(ctx.config.regulation === 'br' ? presentResponsible(responsible, new Date()) : {}),
    }),
    createBody: UserBody,
    filters: {
      email: filter(
        Type.String({ maxLength: 255 }),
        (param) => eq(users.email, param),
        (value) => value.toLowerCase(),
      ),
      status: equals(users.status, Type.Integer({ minimum: 0, maximum: 1 })),
      is_partner: filter(FlagFilter, (param) => eq(users.isPartner, param), flagValue),
      excluded: filter(
        FlagFilter,
        (param) => (param ? excludedNow(sql.raw('"users"."id"')) : sql`not ${excludedNow(sql.raw('"users"."id"'))}`),
        flagValue,
      ),
      ref: equals(users.ref, IdFilter),
      // The kyc module's status, `unverified` without an identity on record (docs/api.md section 14).
      identity_status: filter(
        {
          ...identityStatusSchema(IDENTITY_FILTER.description),
          'x-message': 'The selected :attribute is invalid.',
        },
        (param) => sql`${identityStatusOf(sql.raw('"users"."id"'))} = ${param}`,
      ),
      role: filter(
        Type.String({ maxLength: 255, description: 'Users holding this role.' }),
        (param) => sql`exists (select 1 from ${roleUser} join ${roles} on ${roles.id} = ${roleUser.roleId}
          where ${roleUser.userId} = ${users.id} and ${roles.name} = ${param})`,
      ),
    },
    search: [users.name, users.email],
    unique: [{ field: 'email', column: users.email }],
    // A user's money and play are history (a balance keeps its ledger lines); their sessions, role
    // links and bank cards go with them, and records that only name them (a reviewer, a referrer) forget them.
    inUse: {
      record: 'user',
      keptBy: {
        balances: 'has a balance',
        topups: 'has top-ups',
        topup_counters: 'has paid top-ups',
        withdrawals: 'has withdrawals',
        game_sessions: 'has launched games',
        draw_bets: 'has draw bets',
        // Identities are records kept under REGULATION=br (docs/regulation.md); a reviewer's decisions name them.
        user_identities: 'has an identity on record or decided one',
        user_identity_history: 'has identity history',
        // Responsible-gambling records (docs/regulation.md): limits and exclusions are kept as history.
        user_limits: 'has responsible-gambling limits',
        self_exclusions: 'has self-excluded',
      },
      disable: true,
    },
    prepare: async (body): Promise<UserBody> => {
      if (body.password_confirmation !== undefined && body.password_confirmation !== body.password) {
        throw ValidationError.field('password', 'The password field confirmation does not match.');
      }
      return body.password === undefined ? body : { ...body, passwordHash: await hasher.hash(body.password) };
    },
    values: userValues,
    afterWrite: userRoles,
    beforeDelete: async (row, w) => {
      assertMayManage(w, row);
      if (row.id === w.actor.id) throw new ConflictError(MESSAGES.deleteSelf);
      if (isSuperAdmin(row) && !(await anotherActiveSuperAdmin(w.tx, row.id))) throw new ConflictError(MESSAGES.lastSuperAdminDeleted);
    },
    // Sessions live outside the transaction (possibly in Redis): ended only once the change is committed.
    afterCommit: async (event) => {
      if (event.action === 'create') return;
      const ended = event.action === 'delete' || event.body.status === 0 || event.body.passwordHash !== undefined;
      // Any other change (name, e-mail, roles, partner flag) shows in their sessions' cached user.
      if (!ended) return ctx.sessions.userChanged(event.id);
      // An admin who resets their own password here stays signed in on this device only.
      const keep = event.id === event.actor.id ? event.request.session?.id : undefined;
      await ctx.sessions.store.destroyForUser(event.id, keep);
    },
  });
}
