import { sql } from 'drizzle-orm';
import { one, type Db } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';
import { formatUnits, toCents } from '../../platform/money.ts';

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

interface EntryRow {
  id: number | string;
  user_id: number | string;
  balance_id: number | string;
  currency: string;
  type: string;
  amount: number | string | bigint;
  balance_after: number | string | bigint;
}

interface AppliedRow {
  balance_id: number | string;
  balance_after: number | string | bigint;
  entry_id: number | string | null;
}

async function findEntry(tx: Db, key: string): Promise<EntryRow | undefined> {
  return one<EntryRow>(
    tx,
    sql`select id, user_id, balance_id, currency, type, amount, balance_after
      from ledger_entries where idempotency_key = ${key}`,
  );
}

function replayOf(entry: EntryRow, op: LedgerOperation): LedgerOutcome {
  const same =
    Number(entry.user_id) === op.userId && entry.currency === op.currency && entry.type === op.type && toCents(entry.amount) === op.amount;
  if (!same) throw new IdempotencyMismatchError(`Idempotency key ${op.idempotencyKey} was used for another movement.`);
  return {
    entryId: Number(entry.id),
    balanceId: Number(entry.balance_id),
    amount: toCents(entry.amount),
    balanceAfter: toCents(entry.balance_after),
    replayed: true,
  };
}

/**
 * Moves the balance and writes the ledger row in one statement. The conditional update is the
 * guard against going negative (it also locks the balance row until the caller commits); the
 * insert is skipped when the key exists, which the caller sees as `entry_id` null.
 */
async function applyOnce(tx: Db, op: LedgerOperation): Promise<AppliedRow | undefined> {
  return one<AppliedRow>(
    tx,
    sql`with moved as (
        update balances set amount = amount + ${op.amount}::bigint, updated_at = now()
        where user_id = ${op.userId} and currency = ${op.currency} and amount + ${op.amount}::bigint >= 0
        returning id, amount
      ), entry as (
        insert into ledger_entries
          (user_id, balance_id, currency, type, amount, balance_after, reference_type, reference_id, description, idempotency_key)
        select ${op.userId}::bigint, moved.id, ${op.currency}::text, ${op.type}::text, ${op.amount}::bigint, moved.amount,
          ${op.referenceType ?? null}::text, ${op.referenceId ?? null}::bigint, ${op.description ?? null}::text, ${op.idempotencyKey}::text
        from moved
        on conflict (idempotency_key) do nothing
        returning id
      )
      select moved.id as balance_id, moved.amount as balance_after, (select id from entry) as entry_id from moved`,
  );
}

/**
 * Applies one ledger operation inside the caller's transaction (so the business record, the
 * balance and the ledger row commit together). Idempotent by `idempotencyKey`: a replay returns
 * the first outcome and moves nothing. Throws InsufficientFundsError when a debit would take
 * the balance below zero. The balance is created on first use.
 */
export async function applyLedgerOperation(tx: Db, op: LedgerOperation): Promise<LedgerOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const applied = await applyOnce(tx, op);
    if (applied !== undefined && applied.entry_id !== null) {
      return {
        entryId: Number(applied.entry_id),
        balanceId: Number(applied.balance_id),
        amount: op.amount,
        balanceAfter: toCents(applied.balance_after),
        replayed: false,
      };
    }
    if (applied !== undefined) {
      // Someone committed the same key first: undo our half of it and answer as they did.
      await tx.execute(sql`update balances set amount = amount - ${op.amount}::bigint where id = ${applied.balance_id}`);
      const first = await findEntry(tx, op.idempotencyKey);
      if (first === undefined) throw new Error(`Ledger entry ${op.idempotencyKey} vanished.`);
      return replayOf(first, op);
    }
    // Nothing moved: a missing balance, a shortfall, a replay of a debit the balance can no
    // longer cover, or a balance created by a transaction that committed after our statement
    // began. Lock the row (waiting for whoever holds it) and decide on what is committed now.
    if (op.amount >= 0n && (await createBalance(tx, op.userId, op.currency))) continue;
    const balance = await one<{ amount: number | string | bigint }>(
      tx,
      sql`select amount from balances where user_id = ${op.userId} and currency = ${op.currency} for update`,
    );
    if (balance === undefined) {
      if (op.amount < 0n) throw new InsufficientFundsError(0n);
      await createBalance(tx, op.userId, op.currency);
      continue;
    }
    const existing = await findEntry(tx, op.idempotencyKey);
    if (existing !== undefined) return replayOf(existing, op);
    const available = toCents(balance.amount);
    if (available + op.amount < 0n) throw new InsufficientFundsError(available);
  }
  throw new Error(`Ledger operation ${op.idempotencyKey} could not be applied.`);
}

/** Creates the empty balance of a user and currency; false when it already exists. */
export async function createBalance(tx: Db, userId: number, currency: string): Promise<boolean> {
  const created = await one(
    tx,
    sql`insert into balances (user_id, currency) values (${userId}, ${currency})
      on conflict (user_id, currency) do nothing returning id`,
  );
  return created !== undefined;
}
