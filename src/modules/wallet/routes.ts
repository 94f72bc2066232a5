import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { pageSchema, type ListQuery } from '../../platform/admin/list.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { toCents, toUnits } from '../../platform/money.ts';
import { registerAdminWalletRoutes } from './admin-routes.ts';
import { ownList } from './own-list.ts';
import { BalanceRecord, presentBalance, presentTransaction, TransactionRecord, TypeFilter, type LedgerRow } from './present.ts';
import type { WalletService } from './service.ts';

const tags = ['Wallet'];

const ownTransactions = ownList({
  table: 'ledger_entries',
  alias: 'e',
  select: sql`e.*`,
  filters: { type: { schema: TypeFilter }, currency: { schema: Type.String({ pattern: '^[A-Z]{3}$' }) } },
  search: [],
  sort: undefined,
  timestamp: 'created_at',
});

/** The customer's balance and statement (contract sections 5 and 7), and the admin wallet endpoints. */
export function registerWalletRoutes(app: App, ctx: AppContext, wallet: WalletService): void {
  app.get(
    '/api/user/balance',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'The balance in the default currency, and every balance of the user',
        response: {
          200: Type.Object({ data: Type.Object({ currency: Type.String(), amount: Type.Number(), balances: Type.Array(BalanceRecord) }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const balances = await wallet.balancesOf(user.id);
      const main = balances.find((balance) => balance.currency === ctx.config.defaultCurrency);
      return {
        data: {
          currency: ctx.config.defaultCurrency,
          amount: main === undefined ? 0 : toUnits(toCents(main.amount)),
          balances: balances.map(presentBalance),
        },
      };
    },
  );

  app.get(
    '/api/transactions',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'The user’s statement (ledger lines), newest first; filters type, currency, from/to',
        querystring: ownTransactions.querySchema,
        response: { 200: pageSchema(TransactionRecord), ...errorResponses },
      },
    },
    async (request) => {
      const page = await ownTransactions.page<LedgerRow>(ctx, '/api/transactions', request.query as ListQuery, currentUser(request).id);
      return { ...page, data: page.data.map(presentTransaction) };
    },
  );

  registerAdminWalletRoutes(app, ctx, wallet);
}
