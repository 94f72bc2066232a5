import { sql } from 'drizzle-orm';
import { rows, transaction, type Db } from '../../platform/db/client.ts';
import { toCents } from '../../platform/money.ts';
import { isCalendarDate, saoPauloDate, saoPauloDay } from '../../platform/sao-paulo.ts';
import { dayTotalsSql, parseDayTotals, type GameTotals, type StoredDayTotals } from './day-totals.ts';

/**
 * The daily report (docs/api.md section 14, docs/regulation.md): what the ledger moved during one
 * São Paulo calendar day, attributed to its bets, games, top-ups and withdrawals. It is read
 * from the ledger lines of the day (their `created_at`, written with the business record in
 * one transaction), so its totals are the ledger's by construction, and a line belongs to
 * exactly one day. A bet placed before midnight and won after it has its stake in one day's
 * report and its win in the next's.
 */
export interface BetRow {
  source: 'draw' | 'provider';
  betId: number;
  userId: number;
  /** The provider's code; empty for an in-house (draw) game. */
  provider: string;
  game: string;
  stake: bigint;
  win: bigint;
  refund: bigint;
}

export interface BettorRow {
  userId: number;
  /** The verified identity's CPF and name (REGULATION=br); empty without one. */
  cpf: string;
  fullName: string;
  bets: number;
  stake: bigint;
  win: bigint;
  refund: bigint;
}

export interface TopupRow {
  topupId: number;
  userId: number;
  gateway: string;
  amount: bigint;
  gift: bigint;
}

export interface WithdrawalRow {
  withdrawalId: number;
  userId: number;
  status: number;
  /** Held from the balance that day (the request). */
  requested: bigint;
  /** Given back that day (rejected or failed). */
  returned: bigint;
}

/** A ledger line of the day that is none of the others': an operator's adjustment, a referral reward. */
export interface OtherLineRow {
  lineId: number;
  userId: number;
  type: string;
  amount: bigint;
  referenceType: string;
  referenceId: number | null;
  createdAt: Date;
}

/**
 * A PIX payment received that day (recorded, `created_at`) and never credited: it went back to
 * its payer (a third party's under REGULATION=br, a wrong amount, a top-up no longer pending).
 * It moved the operator's account twice and the ledger not at all, so only this file shows it.
 */
export interface ReturnedPaymentRow {
  endToEndId: string;
  topupId: number;
  userId: number;
  amount: bigint;
  paidAt: Date;
  reason: string;
  /** Where the return stands (pending, requested, returned, failed…). */
  returnStatus: string;
  returnedAt: Date | null;
}

/** A game's totals of the day: db/functions/report_day_totals.sql's, the daily report's and the dashboard's one sum. */
export type GameRow = GameTotals;

export interface DailyReport {
  date: string;
  currency: string;
  from: Date;
  to: Date;
  bets: BetRow[];
  bettors: BettorRow[];
  topups: TopupRow[];
  withdrawals: WithdrawalRow[];
  /** Read with the other files in the same snapshot, from the totals every reader of the day shares (day-totals.ts). */
  games: GameRow[];
  /** The other lines of the day, by ledger type (referral rewards, operators' adjustments), in cents. */
  otherLines: Record<string, bigint>;
  /** The same lines one by one. */
  otherRows: OtherLineRow[];
  returnedPayments: ReturnedPaymentRow[];
}

type Text = string | number;

/** A day a report can be asked for: a calendar day of the years 2000 to 2999 (nothing happened before). */
export function isReportDate(text: string): boolean {
  return isCalendarDate(text) && text >= '2000-01-01' && text <= '2999-12-31';
}

/** The calendar day after `day` (YYYY-MM-DD): the São Paulo date of its report's end. */
export function nextDay(day: string): string {
  return saoPauloDate(saoPauloDay(day).to);
}

function dayLines(from: Date, to: Date, currency: string) {
  return sql`l.created_at >= ${from.toISOString()}::timestamptz and l.created_at < ${to.toISOString()}::timestamptz and l.currency = ${currency}`;
}

const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);

/** Reads the report of `date` (YYYY-MM-DD, São Paulo) in one read-only snapshot. */
export async function dailyReport(db: Db, date: string, currency: string): Promise<DailyReport> {
  const { from, to } = saoPauloDay(date);
  const day = dayLines(from, to, currency);
  return transaction(db, async (tx) => {
    // One snapshot for every file, so a line committed meanwhile is in all of them or none.
    await tx.execute(sql`set transaction isolation level repeatable read, read only`);
    const bets = await rows<Record<string, Text | null>>(
      tx,
      sql`select case when l.reference_type = 'draw_bet' then 'draw' else 'provider' end as source, l.reference_id as bet_id,
          l.user_id, coalesce(p.code, '') as provider, coalesce(g.code, pg.code, '') as game,
          coalesce(ui.cpf, '') as cpf, coalesce(ui.full_name, '') as full_name,
          coalesce(sum(-l.amount) filter (where l.type = 'bet'), 0) as stake,
          coalesce(sum(l.amount) filter (where l.type = 'win'), 0) as win,
          coalesce(sum(l.amount) filter (where l.type = 'bet_refund'), 0) as refund
        from ledger_entries l
        left join draw_bets db on l.reference_type = 'draw_bet' and db.id = l.reference_id
        left join games g on g.id = db.game_id
        left join provider_bets pb on l.reference_type = 'provider_bet' and pb.id = l.reference_id
        left join provider_games pg on pg.id = pb.provider_game_id
        left join providers p on p.id = pb.provider_id
        left join user_identities ui on ui.user_id = l.user_id and ui.status = 'verified'
        where ${day} and l.type in ('bet', 'win', 'bet_refund')
        group by l.reference_type, l.reference_id, l.user_id, p.code, g.code, pg.code, ui.cpf, ui.full_name
        order by 1, l.reference_id`,
    );
    const topups = await rows<Record<string, Text | null>>(
      tx,
      sql`select t.id as topup_id, t.user_id, t.gateway,
          coalesce(sum(l.amount) filter (where l.type = 'topup'), 0) as amount,
          coalesce(sum(l.amount) filter (where l.type = 'topup_gift'), 0) as gift
        from ledger_entries l join topups t on l.reference_type = 'topup' and t.id = l.reference_id
        where ${day} and l.type in ('topup', 'topup_gift')
        group by t.id order by t.id`,
    );
    const withdrawals = await rows<Record<string, Text | null>>(
      tx,
      sql`select w.id as withdrawal_id, w.user_id, w.status,
          coalesce(sum(-l.amount) filter (where l.type = 'withdrawal'), 0) as requested,
          coalesce(sum(l.amount) filter (where l.type = 'withdrawal_refund'), 0) as returned
        from ledger_entries l join withdrawals w on l.reference_type = 'withdrawal' and w.id = l.reference_id
        where ${day} and l.type in ('withdrawal', 'withdrawal_refund')
        group by w.id order by w.id`,
    );
    const other = await rows<{
      id: Text;
      user_id: Text;
      type: string;
      amount: Text;
      reference_type: string;
      reference_id: Text | null;
      created_at: Text;
    }>(
      tx,
      sql`select l.id, l.user_id, l.type, l.amount, l.reference_type, l.reference_id, l.created_at from ledger_entries l
        where ${day} and l.type not in ('bet', 'win', 'bet_refund', 'topup', 'topup_gift', 'withdrawal', 'withdrawal_refund')
        order by l.id`,
    );
    const returned = await rows<Record<string, Text | null>>(
      tx,
      sql`select p.end_to_end_id, p.topup_id, t.user_id, p.amount, p.paid_at, coalesce(p.reason, '') as reason,
          coalesce(p.return_status, '') as return_status, p.returned_at
        from pix_payments p join topups t on t.id = p.topup_id
        where p.outcome = 'returned' and p.created_at >= ${from.toISOString()}::timestamptz and p.created_at < ${to.toISOString()}::timestamptz
          and t.currency = ${currency}
        order by p.id`,
    );
    const [totals] = await rows<{ totals: StoredDayTotals }>(tx, sql`select ${dayTotalsSql(date, currency)} as totals`);
    const otherRows: OtherLineRow[] = other.map((row) => ({
      lineId: Number(row.id),
      userId: Number(row.user_id),
      type: row.type,
      amount: toCents(row.amount),
      referenceType: row.reference_type,
      referenceId: row.reference_id === null ? null : Number(row.reference_id),
      createdAt: new Date(row.created_at),
    }));
    const otherLines: Record<string, bigint> = {};
    for (const line of otherRows) otherLines[line.type] = (otherLines[line.type] ?? 0n) + line.amount;

    const betRows: BetRow[] = bets.map((row) => ({
      source: row.source as BetRow['source'],
      betId: Number(row.bet_id),
      userId: Number(row.user_id),
      provider: String(row.provider),
      game: String(row.game),
      stake: toCents(row.stake),
      win: toCents(row.win),
      refund: toCents(row.refund),
    }));
    const identities = new Map(bets.map((row) => [Number(row.user_id), { cpf: String(row.cpf), fullName: String(row.full_name) }]));
    return {
      date,
      currency,
      from,
      to,
      bets: betRows,
      bettors: bettorsOf(betRows, identities),
      topups: topups.map((row) => ({
        topupId: Number(row.topup_id),
        userId: Number(row.user_id),
        gateway: String(row.gateway),
        amount: toCents(row.amount),
        gift: toCents(row.gift),
      })),
      withdrawals: withdrawals.map((row) => ({
        withdrawalId: Number(row.withdrawal_id),
        userId: Number(row.user_id),
        status: Number(row.status),
        requested: toCents(row.requested),
        returned: toCents(row.returned),
      })),
      games: parseDayTotals(totals!.totals).games,
      otherLines: Object.fromEntries(Object.entries(otherLines).sort(([a], [b]) => a.localeCompare(b))),
      otherRows,
      returnedPayments: returned.map((row) => ({
        endToEndId: String(row.end_to_end_id),
        topupId: Number(row.topup_id),
        userId: Number(row.user_id),
        amount: toCents(row.amount),
        paidAt: new Date(String(row.paid_at)),
        reason: String(row.reason),
        returnStatus: String(row.return_status),
        returnedAt: row.returned_at === null ? null : new Date(String(row.returned_at)),
      })),
    };
  });
}

function bettorsOf(bets: BetRow[], identities: Map<number, { cpf: string; fullName: string }>): BettorRow[] {
  const byUser = new Map<number, BetRow[]>();
  for (const bet of bets) byUser.set(bet.userId, [...(byUser.get(bet.userId) ?? []), bet]);
  return [...byUser.entries()]
    .sort(([a], [b]) => a - b)
    .map(([userId, own]) => ({
      userId,
      cpf: identities.get(userId)?.cpf ?? '',
      fullName: identities.get(userId)?.fullName ?? '',
      bets: own.length,
      stake: sum(own.map((bet) => bet.stake)),
      win: sum(own.map((bet) => bet.win)),
      refund: sum(own.map((bet) => bet.refund)),
    }));
}
