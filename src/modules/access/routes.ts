import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { permissionsResource } from './admin-permissions.ts';
import { rolesResource } from './admin-roles.ts';

/** /api/admin/roles and /api/admin/permissions. */
export function registerAccessRoutes(app: App, ctx: AppContext): void {
  registerResource(app, ctx, rolesResource);
  registerResource(app, ctx, permissionsResource);
}
