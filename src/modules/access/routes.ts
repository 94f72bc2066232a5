import type { FastifyInstance } from 'fastify';
import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { permissionsResource } from './admin-permissions.ts';
import { rolesResource } from './admin-roles.ts';

/** /api/admin/roles and /api/admin/permissions. */
export function registerAccessRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerResource(app, ctx, rolesResource);
  registerResource(app, ctx, permissionsResource);
}
