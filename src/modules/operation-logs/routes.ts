import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { operationLogsResource } from './admin-operation-logs.ts';

/** GET /api/admin/operation-logs, GET and DELETE /api/admin/operation-logs/:operation_log. */
export function registerOperationLogRoutes(app: App, ctx: AppContext): void {
  registerResource(app, ctx, operationLogsResource);
}
