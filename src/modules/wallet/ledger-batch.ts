import { sql, type SQL } from 'drizzle-orm';
import { one, type Db } from '../../platform/db/client.ts';
import { toCents } from '../../platform/money.ts';
import { applyLedgerOperation, type LedgerOperation, type LedgerOutcome } from './ledger.ts';

/** Thrown when some keys of a batch were used before and others not: the caller's transaction must roll back. */
export class PartialReplayError extends Error {
  override name = 'PartialReplayError';
}

interface Group {
  userId: number;
  currency: string;
  delta: bigint;
  /** The lowest running total inside the group: the balance must cover it. */
  lowest: bigint;
}

interface BatchRow {
  moved: number | string;
  balances: { g: number; id: number | string; amount: number | string }[] | string | null;
  entries: { id: number | string; k: number; balance_id: number | string; balance_after: number | string }[] | string | null;
}

function parsed<T>(value: T[] | string | null): T[] {
  if (value === null) return [];
  return typeof value === 'string' ? (JSON.parse(value) as T[]) : value;
}

/**
 * Several ledger operations as ONE statement (one round trip), with exactly the outcome of
 * applying them one by one with applyLedgerOperation, in order: operations on the same balance
 * share one conditional update that must cover their lowest running total, and each line gets
 * its own balance_after.
 *
 * The fast path needs every balance to exist and cover its movements and no key to be used
 * before. Otherwise nothing is written by it: the balances it moved are put back and the
 * operations run one by one (which creates balances, refuses shortfalls and answers replays).
 * A batch whose keys were partly used before cannot be made consistent in place: that is a
 * PartialReplayError and the caller's transaction must roll back. Callers therefore use it for
 * movements guarded by their own exactly-once gate (e.g. a paid top-up's status change).
 */
export async function applyLedgerOperations(tx: Db, ops: LedgerOperation[]): Promise<LedgerOutcome[]> {
  if (ops.length <= 1) return Promise.all(ops.map((op) => applyLedgerOperation(tx, op)));
  const plan = planBatch(ops);
  const row = (await one<BatchRow>(tx, batchStatement(plan)))!;
  const entries = parsed(row.entries);
  if (entries.length === ops.length) return outcomesOf(plan, entries);
  if (entries.length > 0)
    throw new PartialReplayError(`Some keys of a ledger batch were used before: ${ops.map((op) => op.idempotencyKey).join(', ')}.`);

  // Nothing was written: put back what moved, then the careful path, one operation at a time.
  for (const balance of parsed(row.balances)) {
    await tx.execute(sql`update balances set amount = amount - ${plan.groups[balance.g]!.delta}::bigint where id = ${balance.id}`);
  }
  const outcomes: LedgerOutcome[] = [];
  for (const op of ops) outcomes.push(await applyLedgerOperation(tx, op));
  return outcomes;
}

interface Placed {
  op: LedgerOperation;
  g: number;
  runningTotal: bigint;
}

interface Plan {
  groups: Group[];
  placed: Placed[];
}

function planBatch(ops: LedgerOperation[]): Plan {
  const groups: Group[] = [];
  const placed = ops.map((op) => {
    let g = groups.findIndex((group) => group.userId === op.userId && group.currency === op.currency);
    if (g === -1) g = groups.push({ userId: op.userId, currency: op.currency, delta: 0n, lowest: 0n }) - 1;
    const group = groups[g]!;
    group.delta += op.amount;
    if (group.delta < group.lowest) group.lowest = group.delta;
    return { op, g, runningTotal: group.delta };
  });
  return { groups, placed };
}

function outcomesOf(
  plan: Plan,
  entries: { id: number | string; k: number; balance_id: number | string; balance_after: number | string }[],
): LedgerOutcome[] {
  const byK = new Map(entries.map((entry) => [entry.k, entry]));
  return plan.placed.map(({ op }, k) => {
    const entry = byK.get(k)!;
    return {
      entryId: Number(entry.id),
      balanceId: Number(entry.balance_id),
      amount: op.amount,
      balanceAfter: toCents(entry.balance_after),
      replayed: false,
    };
  });
}

function batchStatement({ groups, placed }: Plan): SQL {
  const updates = groups.map(
    (group, g) => sql`${sql.raw(`b${g}`)} as (
      update balances set amount = amount + ${group.delta}::bigint, updated_at = now()
      where user_id = ${group.userId} and currency = ${group.currency} and amount + ${group.lowest}::bigint >= 0
      returning id, amount, ${g}::int as g
    )`,
  );
  const moved = sql.join(
    groups.map((_, g) => sql.raw(`select id, amount, g from b${g}`)),
    sql` union all `,
  );
  // balance_after of a line = the group's new amount − the group's delta + the running total up to it.
  const values = sql.join(
    placed.map(
      ({ op, g, runningTotal }, k) =>
        sql`(${k}::int, ${g}::int, ${runningTotal - groups[g]!.delta}::bigint, ${op.userId}::bigint, ${op.currency}::text,
          ${op.type}::text, ${op.amount}::bigint, ${op.referenceType ?? null}::text, ${op.referenceId ?? null}::bigint,
          ${op.description ?? null}::text, ${op.idempotencyKey}::text)`,
    ),
    sql`, `,
  );
  return sql`with ${sql.join(updates, sql`, `)},
    moved as (${moved}),
    ops (k, g, offset_after, user_id, currency, type, amount, reference_type, reference_id, description, idempotency_key) as (values ${values}),
    entry as (
      insert into ledger_entries
        (user_id, balance_id, currency, type, amount, balance_after, reference_type, reference_id, description, idempotency_key)
      select o.user_id, m.id, o.currency, o.type, o.amount, m.amount + o.offset_after, o.reference_type, o.reference_id, o.description, o.idempotency_key
      from ops o join moved m on m.g = o.g
      where (select count(*) from moved) = ${groups.length}
      order by o.k
      on conflict (idempotency_key) do nothing
      returning id, idempotency_key, balance_id, balance_after
    )
    select (select count(*) from moved) as moved,
      (select json_agg(json_build_object('g', g, 'id', id, 'amount', amount)) from moved) as balances,
      (select json_agg(json_build_object('id', e.id, 'k', o.k, 'balance_id', e.balance_id, 'balance_after', e.balance_after))
        from entry e join ops o on o.idempotency_key = e.idempotency_key) as entries`;
}
