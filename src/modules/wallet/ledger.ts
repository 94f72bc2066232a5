import { sql } from 'drizzle-orm';
import { errorCode, type Db } from '../../platform/db/client.ts';
import { resultColumn } from '../../platform/db/function-calls.ts';
import { ValidationError } from '../../platform/errors.ts';
import { formatUnits, toCents } from '../../platform/money.ts';
import { ledgerEntries } from './tables.ts';

export const LEDGER_TYPES = [
  'topup',
  'topup_gift',
  'referral_bonus',
  'withdrawal',
  'withdrawal_refund',
  'bet',
  'win',
  'bet_refund',
  'adjustment',
] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

/** One money movement on one user's balance in one currency. */
export interface LedgerOperation {
  userId: number;
  currency: string;
  type: LedgerType;
  /** Signed cents: positive credits, negative debits. */
  amount: bigint;
  referenceType?: string | null;
  referenceId?: number | null;
  description?: string | null;
  /**
   * Names the operation for ever (e.g. `topup:12`, `provider:3:bet:tx-99`): the same key never
   * moves money twice, whoever sends it and however often.
   */
  idempotencyKey: string;
}

export interface LedgerOutcome {
  entryId: number;
  balanceId: number;
  amount: bigint;
  balanceAfter: bigint;
  /** True when the key was already used: nothing moved, the first outcome is returned. */
  replayed: boolean;
}

/** The debit would take the balance below zero. Callers usually rethrow with their own words. */
export class InsufficientFundsError extends ValidationError {
  override readonly code = 'insufficient_funds';
  readonly available: bigint;

  constructor(available: bigint, field = 'amount') {
    super({ [field]: [`The balance is not sufficient; it is ${formatUnits(available)}.`] });
    this.available = available;
  }
}

/** The key was used before for a different movement: a caller bug, never a silent replay. */
export class IdempotencyMismatchError extends Error {
  override name = 'IdempotencyMismatchError';
}

/** `ledger_apply`'s line, new or replayed (`replayed`: the key was seen before, nothing moved). */
const appliedLine = {
  entryId: resultColumn('entry_id', ledgerEntries.id),
  balanceId: resultColumn('balance_id', ledgerEntries.balanceId),
  balanceAfter: resultColumn('balance_after', ledgerEntries.balanceAfter),
  replayed: sql<boolean>`replayed`,
};

/**
 * The SQLSTATEs `ledger_apply` (db/functions/ledger_apply.sql) refuses a movement with: a
 * shortfall (DETAIL: the available cents) and a key used before for another movement.
 */
export const LEDGER_REFUSALS = { insufficientFunds: 'WL001', keyMismatch: 'WL002' } as const;

/** The DETAIL of a database error, looking through drizzle's wrapper (ledger_apply puts the available cents there). */
function errorDetail(error: unknown): string | undefined {
  for (let current: unknown = error; current !== undefined && current !== null; current = (current as { cause?: unknown }).cause) {
    const detail = (current as { detail?: unknown }).detail;
    if (typeof detail === 'string') return detail;
  }
  return undefined;
}

/**
 * The ledger's refusal, as a domain error, in an error raised by a statement that ran
 * ledger_apply (directly, or inside a money function such as request_withdrawal); undefined for
 * any other error.
 */
export function ledgerRefusal(error: unknown, key = 'the key'): InsufficientFundsError | IdempotencyMismatchError | undefined {
  const code = errorCode(error);
  if (code === LEDGER_REFUSALS.insufficientFunds) return new InsufficientFundsError(toCents(errorDetail(error) ?? '0'));
  if (code === LEDGER_REFUSALS.keyMismatch) return new IdempotencyMismatchError(`Idempotency key ${key} was used for another movement.`);
  return undefined;
}

/**
 * A player's own request refused by the ledger (a withdrawal, a draw bet): a shortfall is the
 * 422 on `amount` that names the balance, as docs/api.md section 3 asks of the loser of a race;
 * undefined for any other error.
 */
export function playerRefusal(error: unknown): ValidationError | IdempotencyMismatchError | undefined {
  const refusal = ledgerRefusal(error);
  if (refusal instanceof InsufficientFundsError) {
    return ValidationError.field('amount', `The amount must not be greater than your balance of ${formatUnits(refusal.available)}.`);
  }
  return refusal;
}

/**
 * Applies one ledger operation inside the caller's transaction (so the business record, the
 * balance and the ledger row commit together), through `ledger_apply`, the database function
 * that is the one spelling of the rule: the balance is created on first credit, a replayed key
 * returns the first outcome and moves nothing, a key reused for another movement throws
 * IdempotencyMismatchError, and a debit beyond the balance throws InsufficientFundsError. Both
 * errors abort the caller's transaction, as every caller wants (nothing of it may commit).
 * Money operations written in SQL (pay_topup) call the same function.
 */
export async function applyLedgerOperation(tx: Db, op: LedgerOperation): Promise<LedgerOutcome> {
  const [row] = await tx
    .select(appliedLine)
    .from(
      sql`ledger_apply(${op.userId}::bigint, ${op.currency}::text, ${op.type}::text, ${op.amount}::bigint,
        ${op.referenceType ?? null}::text, ${op.referenceId ?? null}::bigint, ${op.description ?? null}::text,
        ${op.idempotencyKey}::text)`,
    )
    .catch((error: unknown) => {
      throw ledgerRefusal(error, op.idempotencyKey) ?? error;
    });
  return {
    entryId: row!.entryId!,
    balanceId: row!.balanceId!,
    amount: op.amount,
    balanceAfter: row!.balanceAfter!,
    replayed: row!.replayed,
  };
}
