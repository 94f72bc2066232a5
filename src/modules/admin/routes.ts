import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { LocalDiskStorage } from '../../platform/storage/local-disk.ts';
import { registerStorageRoutes } from '../../platform/storage/routes.ts';
import { registerUploadRoutes } from './upload.ts';

/** The upload endpoint and the files it stores. */
export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const storage = new LocalDiskStorage(ctx.config.dataDir);
  registerUploadRoutes(app, ctx, storage);
  registerStorageRoutes(app, storage);
}
