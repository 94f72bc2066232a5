import { getTableColumns } from 'drizzle-orm';
import { Type } from 'typebox';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { idExists } from '../../platform/db/exists.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { equals, IdFilter, MAX_ID } from '../../platform/pagination/list.ts';
import { users } from '../users/tables.ts';
import { AdminIdentityRecord, IdentityRecord, presentAdminIdentity, presentIdentity } from './present.ts';
import type { IdentityService } from './service.ts';
import { userIdentities } from './tables.ts';

const tags = ['Identity'];
const adminTags = ['Admin: identities'];

const IdentityBody = Type.Object({
  cpf: Type.String({ maxLength: 32, description: '11 digits, punctuation allowed (123.456.789-09).' }),
  full_name: Type.String({ maxLength: 300, description: 'As on the CPF registry: at least two words.' }),
  birth_date: Type.String({ maxLength: 32, description: 'YYYY-MM-DD; 18 or older in São Paulo’s calendar.' }),
});
const Wrapped = Type.Object({ data: IdentityRecord });
const AdminWrapped = Type.Object({ data: AdminIdentityRecord });
const UserParams = Type.Object({ user: Type.Integer({ minimum: 1, maximum: MAX_ID }) });
const ReasonBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 255, description: 'Shown to the player.' }) });
const AdminStatusFilter = Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('rejected')], {
  'x-message': 'The selected :attribute is invalid.',
});

/**
 * docs/api.md section 14: the player's identity and the operators' review. The routes exist
 * under every REGULATION (an operator may collect identities before turning `br` on); only `br`
 * makes money and play wait for a verified one.
 */
export function registerIdentityRoutes(app: App, ctx: AppContext, service: IdentityService): void {
  app.get(
    '/api/user/identity',
    {
      config: { auth: true },
      schema: { tags, summary: 'The signed-in player’s identity and its verification', response: { 200: Wrapped, ...errorResponses } },
    },
    async (request) => ({ data: presentIdentity(await service.show(currentUser(request).id)) }),
  );

  app.put(
    '/api/user/identity',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Submit or correct the identity (CPF, full name, birth date): pending until verified; 409 once verified',
        body: IdentityBody,
        response: { 200: Wrapped, ...errorResponses },
      },
    },
    async (request) => ({ data: presentIdentity(await service.submit(currentUser(request).id, request.body, request.log)) }),
  );

  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/identities',
      param: 'identity',
      permission: 'identities',
      tag: 'Admin: identities',
      table: userIdentities,
      select: getTableColumns(userIdentities),
      record: AdminIdentityRecord,
      actions: ['list'],
      filters: {
        status: equals(userIdentities.status, AdminStatusFilter),
        user_id: equals(userIdentities.userId, IdFilter),
        cpf: equals(userIdentities.cpf, Type.String({ pattern: '^[0-9]{11}$', description: 'The 11 digits.' })),
      },
      timestamp: userIdentities.submittedAt,
      present: presentAdminIdentity,
    }),
  );

  const config = { permission: 'identities.manage', pathRecord: { param: 'user', exists: idExists(users) } };
  app.post(
    '/api/admin/users/:user/identity/approve',
    {
      config,
      schema: {
        tags: adminTags,
        summary: 'Approve the user’s pending identity (→ verified); 409 when there is none pending',
        params: UserParams,
        response: { 200: AdminWrapped, ...errorResponses },
      },
    },
    async (request) => {
      const row = await service.review(operationEntry(request), request.params.user, { status: 'verified' });
      return { data: presentAdminIdentity(row) };
    },
  );
  app.post(
    '/api/admin/users/:user/identity/reject',
    {
      config,
      schema: {
        tags: adminTags,
        summary: 'Reject the user’s pending identity with a reason shown to them; 409 when there is none pending',
        params: UserParams,
        body: ReasonBody,
        response: { 200: AdminWrapped, ...errorResponses },
      },
    },
    async (request) => {
      const row = await service.review(operationEntry(request), request.params.user, { status: 'rejected', reason: request.body.reason });
      return { data: presentAdminIdentity(row) };
    },
  );
}
