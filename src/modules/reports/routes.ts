import { Type } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { toUnits } from '../../platform/money.ts';
import { ValidationError } from '../../platform/errors.ts';
import { isReportDate, reportTotals } from './daily.ts';
import type { ReportService } from './service.ts';

const Money = Type.Number({ description: 'Currency units.' });
const Totals = Type.Object({
  date: Type.String({ format: 'date' }),
  currency: Type.String(),
  from: Type.String({ format: 'date-time', description: 'The day’s first instant in São Paulo (inclusive).' }),
  to: Type.String({ format: 'date-time', description: 'The next day’s first instant (exclusive).' }),
  bettors: Type.Integer(),
  bets: Type.Object({ count: Type.Integer(), stake: Money, win: Money, refund: Money }),
  ggr: Money,
  topups: Type.Object({ count: Type.Integer(), amount: Money, gift: Money }),
  withdrawals: Type.Object({ count: Type.Integer(), requested: Money, returned: Money }),
  games: Type.Array(
    Type.Object({
      source: Type.String(),
      provider: Type.String(),
      game: Type.String(),
      stake: Money,
      win: Money,
      refund: Money,
      ggr: Money,
    }),
  ),
  other_lines: Type.Record(Type.String(), Money, { description: 'Other ledger lines of the day by type (referral_bonus, adjustment).' }),
});
const Query = Type.Object({
  date: Type.String({ maxLength: 10, description: 'YYYY-MM-DD, a calendar day in São Paulo.' }),
});

/** GET /api/admin/reports/daily?date= (docs/api.md section 14): the totals of the daily report. */
export function registerReportRoutes(app: App, service: ReportService): void {
  app.get(
    '/api/admin/reports/daily',
    {
      config: { permission: 'reports.view' },
      schema: {
        tags: ['Admin: reports'],
        summary: 'The totals of one São Paulo day’s report: bettors, bets, gross gaming revenue by game, top-ups, withdrawals',
        querystring: Query,
        response: { 200: Type.Object({ data: Totals }), ...errorResponses },
      },
    },
    async (request) => {
      const { date } = request.query;
      if (!isReportDate(date)) throw ValidationError.field('date', 'The date field must be a valid date (YYYY-MM-DD, 2000 to 2999).');
      const report = await service.daily(date);
      const totals = reportTotals(report);
      return {
        data: {
          date,
          currency: report.currency,
          from: report.from.toISOString(),
          to: report.to.toISOString(),
          bettors: totals.bettors,
          bets: {
            count: totals.bets.count,
            stake: toUnits(totals.bets.stake),
            win: toUnits(totals.bets.win),
            refund: toUnits(totals.bets.refund),
          },
          ggr: toUnits(totals.ggr),
          topups: { count: totals.topups.count, amount: toUnits(totals.topups.amount), gift: toUnits(totals.topups.gift) },
          withdrawals: {
            count: totals.withdrawals.count,
            requested: toUnits(totals.withdrawals.requested),
            returned: toUnits(totals.withdrawals.returned),
          },
          games: report.games.map((game) => ({
            source: game.source,
            provider: game.provider,
            game: game.game,
            stake: toUnits(game.stake),
            win: toUnits(game.win),
            refund: toUnits(game.refund),
            ggr: toUnits(game.ggr),
          })),
          other_lines: Object.fromEntries(Object.entries(report.otherLines).map(([type, cents]) => [type, toUnits(cents)])),
        },
      };
    },
  );
}
