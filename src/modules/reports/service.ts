import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { dailyReport, type DailyReport } from './daily.ts';

/** The regulator's reports (docs/regulation.md): today, the daily report in the default currency. */
export class ReportService {
  readonly #db: Db;
  readonly #currency: string;

  constructor(ctx: AppContext) {
    this.#db = ctx.db;
    this.#currency = ctx.config.defaultCurrency;
  }

  daily(date: string): Promise<DailyReport> {
    return dailyReport(this.#db, date, this.#currency);
  }
}
