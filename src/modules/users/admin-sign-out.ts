import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { loggedTransaction, operationEntry } from '../../platform/admin/operation-log.ts';
import { isSuperAdmin, SUPER_ADMIN } from '../../platform/auth/identity.ts';
import type { AppContext } from '../../platform/context.ts';
import { one } from '../../platform/db/client.ts';
import { idExists } from '../../platform/db/exists.ts';
import { ForbiddenError } from '../../platform/errors.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses, NoContent, sendNoContent } from '../../platform/http/schemas.ts';
import { endGameSessions, lockPlayer } from '../limits/repository.ts';
import { users } from './tables.ts';

const UserParams = Type.Object({ user: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

/**
 * `POST /api/admin/users/:user/sign-out`: ends everything the user is signed in with, as a
 * self-exclusion does (src/modules/limits/service.ts): their open game sessions stop taking bets
 * and their remember-me cookies stop reviving (both in the logged transaction), then, once that
 * committed, every session of theirs on every instance. A staff member may sign themselves out:
 * their own session ends with the others, as the answer says (204, the next request 401).
 */
export function registerAdminSignOutRoute(app: App, ctx: AppContext): void {
  app.post(
    '/api/admin/users/:user/sign-out',
    {
      config: { permission: 'users.manage', pathRecord: { param: 'user', exists: idExists(users) } },
      schema: {
        tags: ['Admin: users'],
        summary: 'Sign a user out everywhere: every session, remember-me cookie and open game session',
        params: UserParams,
        response: { 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const userId = request.params.user;
      await loggedTransaction(ctx.db, operationEntry(request), async (tx) => {
        await lockPlayer(tx, userId);
        // Only a super-admin touches a super-admin's account, as for every other change of it.
        const target = await one<{ top: boolean }>(
          tx,
          sql`select exists (select 1 from role_user join roles on roles.id = role_user.role_id
            where role_user.user_id = ${userId} and roles.name = ${SUPER_ADMIN}) as top`,
        );
        if (target?.top === true && !isSuperAdmin(currentUser(request))) throw new ForbiddenError();
        await endGameSessions(tx, userId);
        await ctx.identity.cycleRememberNonce(tx, userId);
      });
      // Sessions live outside the transaction (possibly in Redis): ended only once it is committed.
      await ctx.sessions.store.destroyForUser(userId);
      return sendNoContent(reply);
    },
  );
}
