import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { bankCardsResource } from './admin-bank-cards.ts';
import { banksResource } from './admin-banks.ts';

/** /api/admin/banks and /api/admin/bank-cards. */
export function registerBankRoutes(app: App, ctx: AppContext): void {
  registerResource(app, ctx, banksResource);
  registerResource(app, ctx, bankCardsResource);
}
