import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { toUnits } from '../../platform/money.ts';
import { registerCustomerList } from '../../platform/pagination/customer-list.ts';
import { equals } from '../../platform/pagination/list.ts';
import { registerAdminWalletRoutes } from './admin-routes.ts';
import { BalanceRecord, CurrencyFilter, presentBalance, TransactionRecord, transactionFields, TypeFilter } from './present.ts';
import type { WalletService } from './service.ts';
import { ledgerEntries } from './tables.ts';

const tags = ['Wallet'];

/** The customer's balance and statement (docs/api.md sections 5 and 7), and the admin wallet endpoints. */
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
          amount: main === undefined ? 0 : toUnits(main.amount),
          balances: balances.map(presentBalance),
        },
      };
    },
  );

  registerCustomerList(app, ctx, {
    path: '/api/transactions',
    tags,
    summary: 'The user’s statement (ledger lines), newest first; filters type, currency, from/to',
    source: {
      table: ledgerEntries,
      select: transactionFields,
      filters: { type: equals(ledgerEntries.type, TypeFilter), currency: equals(ledgerEntries.currency, CurrencyFilter) },
    },
    scope: { owner: ledgerEntries.userId },
    record: TransactionRecord,
  });

  registerAdminWalletRoutes(app, ctx, wallet);
}
