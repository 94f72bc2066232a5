import type { FastifyInstance } from 'fastify';
import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { LocalDiskStorage } from '../../platform/storage/local-disk.ts';
import { registerStorageRoutes } from '../../platform/storage/routes.ts';
import { permissionsResource } from '../access/admin-permissions.ts';
import { rolesResource } from '../access/admin-roles.ts';
import { PasswordHasher, type HashingOptions } from '../auth/hashing.ts';
import { adminUsersResource } from '../users/admin-users.ts';
import { registerUploadRoutes } from './upload.ts';

/** Users, roles, permissions, the upload endpoint and the files it stores. */
export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext, options: { hashing?: HashingOptions | undefined } = {}): void {
  registerResource(app, ctx, adminUsersResource(ctx, new PasswordHasher(options.hashing)));
  registerResource(app, ctx, rolesResource);
  registerResource(app, ctx, permissionsResource);
  const storage = new LocalDiskStorage(ctx.config.dataDir);
  registerUploadRoutes(app, ctx, storage);
  registerStorageRoutes(app, storage);
}
