import { registerResource } from '../../platform/admin/resource.ts';
import type { PasswordHasher } from '../../platform/auth/passwords.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { adminUsersResource } from './admin-users.ts';
import { registerAdminSignOutRoute } from './admin-sign-out.ts';

/** /api/admin/users, and signing a user out everywhere. */
export function registerUserRoutes(app: App, ctx: AppContext, hasher: PasswordHasher): void {
  registerResource(app, ctx, adminUsersResource(ctx, hasher));
  registerAdminSignOutRoute(app, ctx);
}
