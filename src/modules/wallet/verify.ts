import { sql } from 'drizzle-orm';
import { one, rows, type Db } from '../../platform/db/client.ts';
import { formatUnits, toCents } from '../../platform/money.ts';

export interface LedgerProblem {
  balanceId: number;
  detail: string;
}

export interface LedgerReport {
  balances: number;
  entries: number;
  problems: LedgerProblem[];
}

/** Reported per check; one broken balance can explain thousands of lines. */
const LIMIT = 100;

/** BIGINT and NUMERIC (sums) read as text on both drivers (src/platform/db/client.ts). */
type Cents = string;

/**
 * Recomputes every balance from the ledger: the stored amount must equal the sum of its lines
 * and the last line's balance_after; each line's balance_after must be the previous one plus its
 * amount; a line must belong to its balance's user and currency; the bet turnover kept on the
 * balance must be what ledger_apply's rule gives over its lines in id order: each `bet` adds its
 * stake, each `bet_refund` takes its amount back off, never below 0
 * (db/functions/ledger_apply.sql).
 */
export async function verifyLedger(db: Db): Promise<LedgerReport> {
  const problems: LedgerProblem[] = [];
  const totals = await one<{ balances: Cents; entries: Cents }>(
    db,
    sql`select (select count(*) from balances) as balances, (select count(*) from ledger_entries) as entries`,
  );

  const sums = await rows<{ id: Cents; amount: Cents; total: Cents; last_after: Cents | null }>(
    db,
    sql`select b.id, b.amount, coalesce(s.total, 0) as total, l.balance_after as last_after
      from balances b
      left join (select balance_id, sum(amount) as total, max(id) as last_id from ledger_entries group by balance_id) s on s.balance_id = b.id
      left join ledger_entries l on l.id = s.last_id
      where b.amount <> coalesce(s.total, 0) or (l.id is not null and l.balance_after <> b.amount)
      order by b.id limit ${LIMIT}`,
  );
  for (const row of sums) {
    const amount = toCents(row.amount);
    const total = toCents(row.total);
    if (amount !== total) {
      problems.push({ balanceId: Number(row.id), detail: `stored ${formatUnits(amount)}, ledger sum ${formatUnits(total)}` });
    }
    if (row.last_after !== null && toCents(row.last_after) !== amount) {
      problems.push({
        balanceId: Number(row.id),
        detail: `stored ${formatUnits(amount)}, last balance_after ${formatUnits(toCents(row.last_after))}`,
      });
    }
  }

  const chain = await rows<{ id: Cents; balance_id: Cents; amount: Cents; balance_after: Cents; previous: Cents }>(
    db,
    sql`select id, balance_id, amount, balance_after, previous from (
        select id, balance_id, amount, balance_after,
          lag(balance_after, 1, 0::bigint) over (partition by balance_id order by id) as previous
        from ledger_entries
      ) lines where previous + amount <> balance_after order by id limit ${LIMIT}`,
  );
  for (const row of chain) {
    problems.push({
      balanceId: Number(row.balance_id),
      detail: `line #${Number(row.id)}: ${formatUnits(toCents(row.previous))} + ${formatUnits(toCents(row.amount))} ≠ balance_after ${formatUnits(toCents(row.balance_after))}`,
    });
  }

  const owners = await rows<{ id: Cents; balance_id: Cents }>(
    db,
    sql`select e.id, e.balance_id from ledger_entries e join balances b on b.id = e.balance_id
      where e.user_id <> b.user_id or e.currency <> b.currency order by e.id limit ${LIMIT}`,
  );
  for (const row of owners) {
    problems.push({ balanceId: Number(row.balance_id), detail: `line #${Number(row.id)} names another user or currency than its balance` });
  }

  // A running sum floored at 0 (T = max(0, T + d)) is the plain running sum S minus the lowest
  // value S has reached, when that is below 0: computed set-based, without walking lines one by one.
  const turnovers = await rows<{ id: Cents; bet_turnover: Cents; turnover: Cents; bets: Cents; refunds: Cents }>(
    db,
    sql`select b.id, b.bet_turnover, coalesce(t.turnover, 0) as turnover, coalesce(t.bets, 0) as bets,
        coalesce(t.refunds, 0) as refunds
      from balances b
      left join (
        select balance_id, sum(delta) - least(0, min(running)) as turnover,
          coalesce(sum(delta) filter (where type = 'bet'), 0) as bets, coalesce(-sum(delta) filter (where type = 'bet_refund'), 0) as refunds
        from (
          select balance_id, type, -amount as delta, sum(-amount) over (partition by balance_id order by id) as running
          from ledger_entries where type in ('bet', 'bet_refund')
        ) lines group by balance_id
      ) t on t.balance_id = b.id
      where b.bet_turnover <> coalesce(t.turnover, 0) order by b.id limit ${LIMIT}`,
  );
  for (const row of turnovers) {
    problems.push({
      balanceId: Number(row.id),
      detail:
        `bet turnover ${formatUnits(toCents(row.bet_turnover))}, ledger ${formatUnits(toCents(row.turnover))} ` +
        `(bets ${formatUnits(toCents(row.bets))}, bet refunds ${formatUnits(toCents(row.refunds))})`,
    });
  }

  return { balances: Number(totals?.balances ?? 0), entries: Number(totals?.entries ?? 0), problems };
}

export function formatLedgerReport(report: LedgerReport): string {
  const head = `Checked ${report.balances} balances and ${report.entries} ledger lines:`;
  if (report.problems.length === 0) return `${head} every balance matches its ledger.`;
  const lines = report.problems.map((problem) => `  balance #${problem.balanceId}: ${problem.detail}`);
  return [`${head} ${report.problems.length} difference(s).`, ...lines].join('\n');
}
