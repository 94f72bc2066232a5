import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { permissionsResource } from './admin-permissions.ts';
import { rolesResource } from './admin-roles.ts';

/** /api/admin/roles and /api/admin/permissions. */
export function registerAccessRoutes(app: App, ctx: AppContext): void {
  registerResource(app, ctx, {
    ...rolesResource,
    // Sessions cache their user's role names: a role renamed or deleted changes every holder's.
    afterCommit: async (event) => {
      if (event.action !== 'create') await ctx.sessions.userChanged();
    },
  });
  registerResource(app, ctx, permissionsResource);
}
