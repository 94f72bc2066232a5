import { sql } from 'drizzle-orm';
import { rows, type Db } from '../../platform/db/client.ts';
import { toCents } from '../../platform/money.ts';
import { saoPauloDay } from '../../platform/sao-paulo.ts';

/**
 * One São Paulo day's totals, in cents, as db/functions/report_day_totals.sql adds them up: the
 * one source of the daily report's totals and of the dashboard's figures (GET /api/admin/stats).
 */
export interface DayTotals {
  bettors: number;
  /** Bets with a line that day. */
  bets: number;
  stake: bigint;
  win: bigint;
  refund: bigint;
  /** Gross gaming revenue: stake − win − refund. */
  ggr: bigint;
  games: GameTotals[];
  topups: { count: number; amount: bigint; gift: bigint };
  withdrawals: { count: number; requested: bigint; returned: bigint };
  paidWithdrawals: { count: number; amount: bigint };
  returnedPayments: { count: number; amount: bigint };
  /** The other lines by ledger type (referral rewards, operators' adjustments), sorted by type. */
  otherLines: Record<string, bigint>;
  registrations: number;
  firstDepositors: number;
}

export interface GameTotals {
  source: 'draw' | 'provider';
  /** The provider's code; empty for an in-house (draw) game. */
  provider: string;
  game: string;
  stake: bigint;
  win: bigint;
  refund: bigint;
  ggr: bigint;
}

/**
 * How long after a day's end its totals may be kept, besides the check that no transaction which
 * began before the end is still open: a safety margin for a session the check cannot see (another
 * database role's, whose `xact_start` pg_stat_activity hides).
 */
const KEEP_AFTER = '10 minutes';

/** What report_day_totals answers (money as text cents). */
export interface StoredDayTotals {
  bettors: number;
  bets: number;
  games: { source: string; provider: string; game: string; stake: string; win: string; refund: string }[];
  topups: { count: number; amount: string; gift: string };
  withdrawals: { count: number; requested: string; returned: string };
  paid_withdrawals: { count: number; amount: string };
  returned_payments: { count: number; amount: string };
  other_lines: Record<string, string>;
  registrations: number;
  first_depositors: number;
}

const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);
const gameKey = (game: Pick<GameTotals, 'source' | 'provider' | 'game'>) => `${game.source}\u0000${game.provider}\u0000${game.game}`;

/** The function's answer as cents; games in one fixed order (source, provider, game). */
export function parseDayTotals(stored: StoredDayTotals): DayTotals {
  const games = stored.games
    .map((game) => {
      const [stake, win, refund] = [toCents(game.stake), toCents(game.win), toCents(game.refund)];
      return {
        source: game.source as GameTotals['source'],
        provider: game.provider,
        game: game.game,
        stake,
        win,
        refund,
        ggr: stake - win - refund,
      };
    })
    .sort((a, b) => gameKey(a).localeCompare(gameKey(b)));
  const stake = sum(games.map((game) => game.stake));
  const win = sum(games.map((game) => game.win));
  const refund = sum(games.map((game) => game.refund));
  return {
    bettors: Number(stored.bettors),
    bets: Number(stored.bets),
    stake,
    win,
    refund,
    ggr: sum(games.map((game) => game.ggr)),
    games,
    topups: { count: Number(stored.topups.count), amount: toCents(stored.topups.amount), gift: toCents(stored.topups.gift) },
    withdrawals: {
      count: Number(stored.withdrawals.count),
      requested: toCents(stored.withdrawals.requested),
      returned: toCents(stored.withdrawals.returned),
    },
    paidWithdrawals: { count: Number(stored.paid_withdrawals.count), amount: toCents(stored.paid_withdrawals.amount) },
    returnedPayments: { count: Number(stored.returned_payments.count), amount: toCents(stored.returned_payments.amount) },
    otherLines: Object.fromEntries(
      Object.entries(stored.other_lines)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([type, amount]) => [type, toCents(amount)]),
    ),
    registrations: Number(stored.registrations),
    firstDepositors: Number(stored.first_depositors),
  };
}

/** The SQL that computes a day's totals live, for a caller that reads them inside its own snapshot. */
export function dayTotalsSql(date: string, currency: string) {
  const { from, to } = saoPauloDay(date);
  return sql`report_day_totals(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz, ${currency})`;
}

/**
 * The totals of each of `days` (YYYY-MM-DD, São Paulo), in their order: a kept day's from
 * report_days (when kept by the current report_day_totals), the others computed, and kept when
 * closed. A day is closed once it ended more than KEEP_AFTER ago and no transaction that began
 * before its end is still open: the ledger stamps a line with its transaction's now() and never
 * changes it, so after that no line can join the day. The check runs before the totals are read,
 * each in its own statement (a snapshot of its own), so a transaction the check saw finishing
 * has its lines in the totals.
 */
export async function dayTotalsOf(db: Db, days: string[], currency: string): Promise<DayTotals[]> {
  if (days.length === 0) return [];
  const kept = await rows<{ day: string; totals: StoredDayTotals }>(
    db,
    sql`select r.day::text as day, r.totals from report_days r
      join schema_functions f on f.name = 'report_day_totals' and f.hash = r.rule_hash
      where r.currency = ${currency} and r.day = any(${sql.param(days)}::date[])`,
  );
  const found = new Map(kept.map((row) => [row.day, row.totals]));
  const answers: DayTotals[] = [];
  for (const day of days) {
    const stored = found.get(day) ?? (await computeDay(db, day, currency));
    answers.push(parseDayTotals(stored));
  }
  return answers;
}

async function computeDay(db: Db, day: string, currency: string): Promise<StoredDayTotals> {
  const { to } = saoPauloDay(day);
  const [closed] = await rows<{ closed: boolean }>(
    db,
    sql`select ${to.toISOString()}::timestamptz < now() - ${KEEP_AFTER}::interval
      and not exists (select 1 from pg_stat_activity a
        where a.datname = current_database() and a.pid <> pg_backend_pid() and a.xact_start < ${to.toISOString()}::timestamptz) as closed`,
  );
  const [computed] = await rows<{ totals: StoredDayTotals }>(db, sql`select ${dayTotalsSql(day, currency)} as totals`);
  const totals = computed!.totals;
  if (closed?.closed === true) {
    // Two requests computing the same day write the same figures: the first one's row stays.
    await db.execute(sql`insert into report_days (day, currency, rule_hash, totals)
      select ${day}::date, ${currency}, f.hash, ${JSON.stringify(totals)}::jsonb from schema_functions f where f.name = 'report_day_totals'
      on conflict (day, currency) do update set rule_hash = excluded.rule_hash, totals = excluded.totals, computed_at = now()
        where report_days.rule_hash <> excluded.rule_hash`);
  }
  return totals;
}
