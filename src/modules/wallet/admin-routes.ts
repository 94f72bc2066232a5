import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { IdFilter } from '../../platform/admin/list.ts';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import { mustExist } from '../../platform/admin/rules.ts';
import type { AppContext } from '../../platform/context.ts';
import { one } from '../../platform/db/client.ts';
import { ConflictError, ValidationError } from '../../platform/errors.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import {
  BalanceRecord,
  presentBalance,
  presentTransaction,
  TransactionRecord,
  TypeFilter,
  type BalanceRow,
  type LedgerRow,
} from './present.ts';
import type { WalletService } from './service.ts';

interface BalanceBody {
  user_id?: number;
  currency?: string;
  amount?: unknown;
}

const BalanceBody = Type.Object({
  user_id: Type.Integer({ minimum: 1, 'x-message': 'The selected user id is invalid.' }),
  currency: Type.String({ pattern: '^[A-Za-z]{3}$', 'x-message': 'The :attribute field must be a 3-letter currency code.' }),
});

const AdjustBody = Type.Object({
  amount: Type.Union([Type.Number(), Type.String()], { description: 'Signed currency units, non-zero, at most 2 decimals.' }),
  reason: Type.String({ minLength: 1, maxLength: 255 }),
});

const BalanceParams = Type.Object({ balance: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const balancesResource = defineResource<BalanceRow, BalanceBody>({
  path: '/api/admin/balances',
  param: 'balance',
  permission: 'balances',
  tag: 'Admin: balances',
  table: 'balances',
  record: BalanceRecord,
  createBody: BalanceBody,
  filters: { user_id: { schema: IdFilter }, currency: { schema: Type.String({ pattern: '^[A-Z]{3}$' }) } },
  inUse: 'The balance has ledger lines and cannot be deleted.',
  values: async (body, w) => {
    if (body.amount !== undefined) {
      throw ValidationError.field('amount', 'The amount cannot be set directly; use POST /api/admin/balances/{balance}/adjust.');
    }
    const userId = body.user_id ?? Number(w.existing?.user_id);
    const currency = body.currency?.toUpperCase() ?? w.existing?.currency ?? '';
    if (body.user_id !== undefined) await mustExist(w.tx, 'users', body.user_id, 'user_id');
    const moved = w.existing !== undefined && (userId !== Number(w.existing.user_id) || currency !== w.existing.currency);
    if (moved) {
      const lines = await one(w.tx, sql`select 1 from ledger_entries where balance_id = ${w.existing!.id} limit 1`);
      if (lines !== undefined) throw new ConflictError('The balance has ledger lines; its user and currency cannot change.');
    }
    if (w.existing === undefined || moved) {
      const taken = await one(
        w.tx,
        sql`select 1 from balances where user_id = ${userId} and currency = ${currency} and id <> ${w.existing?.id ?? 0}`,
      );
      if (taken !== undefined) throw ValidationError.field('currency', 'The user already has a balance in this currency.');
    }
    return {
      ...(body.user_id === undefined ? {} : { user_id: body.user_id }),
      ...(body.currency === undefined ? {} : { currency }),
    };
  },
  present: presentBalance,
});

const transactionsResource = defineResource<LedgerRow>({
  path: '/api/admin/transactions',
  param: 'transaction',
  permission: 'transactions',
  tag: 'Admin: transactions',
  table: 'ledger_entries',
  record: TransactionRecord,
  actions: ['list', 'show'],
  filters: {
    user_id: { schema: IdFilter },
    balance_id: { schema: IdFilter },
    type: { schema: TypeFilter },
    currency: { schema: Type.String({ pattern: '^[A-Z]{3}$' }) },
    reference_type: { schema: Type.String({ maxLength: 64 }) },
    reference_id: { schema: IdFilter },
  },
  search: ['description'],
  present: presentTransaction,
});

/** Admin balances (CRUD, amounts only through adjust) and the admin statement. */
export function registerAdminWalletRoutes(app: App, ctx: AppContext, wallet: WalletService): void {
  registerResource(app, ctx, balancesResource);
  registerResource(app, ctx, transactionsResource);

  app.post(
    '/api/admin/balances/:balance/adjust',
    {
      config: { permission: 'balances.manage' },
      schema: {
        tags: ['Admin: balances'],
        summary: 'Move money by hand: one `adjustment` ledger line (an Idempotency-Key header makes a retry safe)',
        params: BalanceParams,
        body: AdjustBody,
        response: { 200: Type.Object({ data: BalanceRecord }), ...errorResponses },
      },
    },
    async (request) => {
      const header = request.headers['idempotency-key'];
      const adjustment = {
        balanceId: request.params.balance,
        amount: request.body.amount,
        reason: request.body.reason,
        idempotencyKey: typeof header === 'string' ? header : undefined,
      };
      return { data: presentBalance(await wallet.adjust(request, adjustment, currentUser(request).id)) };
    },
  );
}
