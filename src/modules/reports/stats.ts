import { sql } from 'drizzle-orm';
import { rows, type Db } from '../../platform/db/client.ts';
import { toCents } from '../../platform/money.ts';
import { TOPUP_STATUS, topupStatusCodes } from '../topups/repository.ts';
import { WITHDRAWAL_STATUS } from '../withdrawals/tables.ts';
import type { DayTotals } from './day-totals.ts';

/**
 * The back office's dashboard (GET /api/admin/stats, docs/api.md section 8): the figures of a
 * range of São Paulo days are sums of the days' totals (day-totals.ts), the same totals the daily
 * report answers for each day, so a day on the dashboard and that day's report cannot differ.
 */
export interface Figures {
  registrations: number;
  firstDepositors: number;
  deposits: { count: number; amount: bigint };
  paidWithdrawals: { count: number; amount: bigint };
  /** Deposits − paid withdrawals. */
  netDeposits: bigint;
  stakes: bigint;
  wins: bigint;
  refunds: bigint;
  /** Stakes − wins − refunds. */
  ggr: bigint;
}

export interface GgrRow {
  source: 'draw' | 'provider';
  provider: string;
  game: string;
  stakes: bigint;
  wins: bigint;
  refunds: bigint;
  ggr: bigint;
}

/** What waits on staff now. */
export interface Queues {
  withdrawals: { count: number; amount: bigint; oldestCreatedAt: Date | null; oldestAgeSeconds: number | null };
  identities: { count: number };
  topups: { count: number; amount: bigint };
}

/** The dashboard's figures of one day, from its totals. */
export function figuresOf(day: DayTotals): Figures {
  return {
    registrations: day.registrations,
    firstDepositors: day.firstDepositors,
    deposits: { count: day.topups.count, amount: day.topups.amount },
    paidWithdrawals: { count: day.paidWithdrawals.count, amount: day.paidWithdrawals.amount },
    netDeposits: day.topups.amount - day.paidWithdrawals.amount,
    stakes: day.stake,
    wins: day.win,
    refunds: day.refund,
    ggr: day.ggr,
  };
}

/** The figures of several days together: every figure is a count or a sum of the day's. */
export function addFigures(days: Figures[]): Figures {
  const total = figuresOf({
    bettors: 0,
    bets: 0,
    stake: 0n,
    win: 0n,
    refund: 0n,
    ggr: 0n,
    games: [],
    topups: { count: 0, amount: 0n, gift: 0n },
    withdrawals: { count: 0, requested: 0n, returned: 0n },
    paidWithdrawals: { count: 0, amount: 0n },
    returnedPayments: { count: 0, amount: 0n },
    otherLines: {},
    registrations: 0,
    firstDepositors: 0,
  });
  for (const day of days) {
    total.registrations += day.registrations;
    total.firstDepositors += day.firstDepositors;
    total.deposits.count += day.deposits.count;
    total.deposits.amount += day.deposits.amount;
    total.paidWithdrawals.count += day.paidWithdrawals.count;
    total.paidWithdrawals.amount += day.paidWithdrawals.amount;
    total.netDeposits += day.netDeposits;
    total.stakes += day.stakes;
    total.wins += day.wins;
    total.refunds += day.refunds;
    total.ggr += day.ggr;
  }
  return total;
}

/** The games' totals of the days, summed per game, or per provider when `byProvider` (game then empty); highest GGR first. */
export function ggrOf(days: DayTotals[], byProvider: boolean): GgrRow[] {
  const rowsByKey = new Map<string, GgrRow>();
  for (const day of days) {
    for (const game of day.games) {
      const name = byProvider ? '' : game.game;
      const key = JSON.stringify([game.source, game.provider, name]);
      const row = rowsByKey.get(key) ?? {
        source: game.source,
        provider: game.provider,
        game: name,
        stakes: 0n,
        wins: 0n,
        refunds: 0n,
        ggr: 0n,
      };
      row.stakes += game.stake;
      row.wins += game.win;
      row.refunds += game.refund;
      row.ggr += game.ggr;
      rowsByKey.set(key, row);
    }
  }
  const key = (row: GgrRow) => `${row.source}\u0000${row.provider}\u0000${row.game}`;
  return [...rowsByKey.values()].sort((a, b) => (a.ggr === b.ggr ? key(a).localeCompare(key(b)) : a.ggr > b.ggr ? -1 : 1));
}

/**
 * The queues, read now: withdrawals pending review (their partial index withdrawals_open_idx), identities
 * pending, top-ups pending and not yet expired (topup_status, as every reader of a top-up sees it).
 */
export async function queuesOf(db: Db, currency: string): Promise<Queues> {
  const [row] = await rows<{
    withdrawals: string;
    withdrawn: string;
    oldest: string | null;
    age: string | null;
    identities: string;
    topups: string;
    topped: string;
  }>(
    db,
    sql`select w.count as withdrawals, w.amount as withdrawn, w.oldest, floor(extract(epoch from now() - w.oldest))::bigint as age,
        (select count(*) from user_identities i where i.status = 'pending') as identities, t.count as topups, t.amount as topped
      from (select count(*) as count, coalesce(sum(amount), 0) as amount, min(created_at) as oldest
          from withdrawals where status = ${WITHDRAWAL_STATUS.pending} and currency = ${currency}) w,
        (select count(*) as count, coalesce(sum(amount), 0) as amount from topups
          where status = ${TOPUP_STATUS.pending} and created_at >= now() - interval '24 hours' and currency = ${currency}
            and topup_status(status, created_at, ${topupStatusCodes('pending', 'expired')}) = ${TOPUP_STATUS.pending}) t`,
  );
  return {
    withdrawals: {
      count: Number(row!.withdrawals),
      amount: toCents(row!.withdrawn),
      oldestCreatedAt: row!.oldest === null ? null : new Date(row!.oldest),
      oldestAgeSeconds: row!.age === null ? null : Number(row!.age),
    },
    identities: { count: Number(row!.identities) },
    topups: { count: Number(row!.topups), amount: toCents(row!.topped) },
  };
}
