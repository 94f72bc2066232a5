import { and, eq, ne } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import { mustExist } from '../../platform/admin/rules.ts';
import type { AppContext } from '../../platform/context.ts';
import { idExists } from '../../platform/db/exists.ts';
import { ConflictError, ValidationError } from '../../platform/errors.ts';
import { IdempotencyKeyHeaders, idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { equals, IdFilter } from '../../platform/pagination/list.ts';
import { users } from '../users/tables.ts';
import { BalanceRecord, CurrencyFilter, presentBalance, TransactionRecord, transactionFields, TypeFilter } from './present.ts';
import type { WalletService } from './service.ts';
import { balances, ledgerEntries } from './tables.ts';

const BalanceBody = Type.Object({
  user_id: Type.Integer({ minimum: 1, 'x-message': 'The selected user id is invalid.' }),
  currency: Type.String({ pattern: '^[A-Za-z]{3}$', 'x-message': 'The :attribute field must be a 3-letter currency code.' }),
  amount: Type.Optional(Type.Unknown({ description: 'Refused: money moves only through POST /api/admin/balances/{balance}/adjust.' })),
});

const AdjustBody = Type.Object({
  amount: Type.Union([Type.Number(), Type.String()], { description: 'Signed currency units, non-zero, at most 2 decimals.' }),
  reason: Type.String({ minLength: 1, maxLength: 255 }),
});

const BalanceParams = Type.Object({ balance: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const balancesResource = defineResource({
  path: '/api/admin/balances',
  param: 'balance',
  permission: 'balances',
  tag: 'Admin: balances',
  table: balances,
  record: BalanceRecord,
  createBody: BalanceBody,
  filters: { user_id: equals(balances.userId, IdFilter), currency: equals(balances.currency, CurrencyFilter) },
  inUse: { record: 'balance', keptBy: { ledger_entries: 'has ledger lines' } },
  values: async (body, { tx, existing }) => {
    if (body.amount !== undefined) {
      throw ValidationError.field('amount', 'The amount cannot be set directly; use POST /api/admin/balances/{balance}/adjust.');
    }
    const userId = body.user_id ?? existing?.userId ?? 0;
    const currency = body.currency?.toUpperCase() ?? existing?.currency ?? '';
    if (body.user_id !== undefined) await mustExist(tx, users, body.user_id, 'user_id');
    const moved = existing !== undefined && (userId !== existing.userId || currency !== existing.currency);
    if (moved) {
      const lines = await tx.select({ id: ledgerEntries.id }).from(ledgerEntries).where(eq(ledgerEntries.balanceId, existing.id)).limit(1);
      if (lines.length > 0) throw new ConflictError('The balance has ledger lines; its user and currency cannot change.');
    }
    if (existing === undefined || moved) {
      const taken = await tx
        .select({ id: balances.id })
        .from(balances)
        .where(and(eq(balances.userId, userId), eq(balances.currency, currency), ne(balances.id, existing?.id ?? 0)));
      if (taken.length > 0) throw ValidationError.field('currency', 'The user already has a balance in this currency.');
    }
    return { userId: body.user_id, currency: body.currency === undefined ? undefined : currency };
  },
});

const transactionsResource = defineResource({
  path: '/api/admin/transactions',
  param: 'transaction',
  permission: 'transactions',
  tag: 'Admin: transactions',
  table: ledgerEntries,
  select: transactionFields,
  record: TransactionRecord,
  actions: ['list', 'show'],
  filters: {
    user_id: equals(ledgerEntries.userId, IdFilter),
    balance_id: equals(ledgerEntries.balanceId, IdFilter),
    type: equals(ledgerEntries.type, TypeFilter),
    currency: equals(ledgerEntries.currency, CurrencyFilter),
    reference_type: equals(ledgerEntries.referenceType, Type.String({ maxLength: 64 })),
    reference_id: equals(ledgerEntries.referenceId, IdFilter),
  },
  search: [ledgerEntries.description],
});

/** Admin balances (CRUD, amounts only through adjust) and the admin statement. */
export function registerAdminWalletRoutes(app: App, ctx: AppContext, wallet: WalletService): void {
  registerResource(app, ctx, balancesResource);
  registerResource(app, ctx, transactionsResource);

  app.post(
    '/api/admin/balances/:balance/adjust',
    {
      config: { permission: 'balances.manage', pathRecord: { param: 'balance', exists: idExists(balances) } },
      schema: {
        tags: ['Admin: balances'],
        summary: 'Move money by hand: one `adjustment` ledger line (an Idempotency-Key header makes a retry safe)',
        params: BalanceParams,
        headers: IdempotencyKeyHeaders,
        body: AdjustBody,
        response: { 200: Type.Object({ data: BalanceRecord }), ...errorResponses },
      },
    },
    async (request) => {
      const adjustment = {
        balanceId: request.params.balance,
        amount: request.body.amount,
        reason: request.body.reason,
        idempotencyKey: idempotencyKeyOf(request.headers),
      };
      return { data: presentBalance(await wallet.adjust(operationEntry(request), adjustment)) };
    },
  );
}
