import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { dailyReport, type DailyReport } from './daily.ts';
import { dayTotalsOf, type DayTotals } from './day-totals.ts';

/** The regulator's reports (docs/regulation.md): today, the daily report in the default currency. */
export class ReportService {
  /** The primary: kept days are written there (day-totals.ts). */
  readonly db: Db;
  /** The currency every report is in: the default one. */
  readonly currency: string;

  constructor(ctx: AppContext) {
    this.db = ctx.db;
    this.currency = ctx.config.defaultCurrency;
  }

  daily(date: string): Promise<DailyReport> {
    return dailyReport(this.db, date, this.currency);
  }

  /** Each day's totals (the one source of the daily totals and the dashboard: day-totals.ts). */
  totals(days: string[]): Promise<DayTotals[]> {
    return dayTotalsOf(this.db, days, this.currency);
  }
}
