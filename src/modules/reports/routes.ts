import { Type, type Static } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { toUnits } from '../../platform/money.ts';
import { ValidationError } from '../../platform/errors.ts';
import { saoPauloDay } from '../../platform/sao-paulo.ts';
import { isReportDate, nextDay } from './daily.ts';
import type { DayTotals } from './day-totals.ts';
import type { ReportService } from './service.ts';
import { registerStatsRoutes } from './stats-routes.ts';

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
  withdrawals: Type.Object({
    count: Type.Integer(),
    requested: Money,
    returned: Money,
    paid_count: Type.Integer({ description: 'Withdrawals paid out that day (completed), whenever requested.' }),
    paid: Money,
  }),
  returned_payments: Type.Object(
    { count: Type.Integer(), amount: Money },
    { description: 'PIX payments received that day and sent back to their payer, never credited (returned_payments.csv).' },
  ),
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
const Day = (description: string) => Type.String({ maxLength: 10, description });
const Query = Type.Object({
  date: Type.Optional(Day('YYYY-MM-DD, a calendar day in São Paulo: its totals as one object.')),
  from: Type.Optional(Day('With `to`, instead of `date`: the first day of a range (YYYY-MM-DD), its days’ totals as a list.')),
  to: Type.Optional(Day('The range’s last day, included; at most 31 days from `from`.')),
});

/** The longest range one request may ask for: a month's days, each a report read of its own. */
export const MAX_REPORT_DAYS = 31;
const DATE_MESSAGE = (field: string) => `The ${field} field must be a valid date (YYYY-MM-DD, 2000 to 2999).`;

/** The days a query asks for: `date` alone, or `from` to `to`; a 422 on the field at fault otherwise. */
function daysOf(query: { date?: string; from?: string; to?: string }): { days: string[]; range: boolean } {
  if (query.from === undefined && query.to === undefined) {
    if (query.date === undefined) throw ValidationError.field('date', 'The date field is required when from and to are not present.');
    if (!isReportDate(query.date)) throw ValidationError.field('date', DATE_MESSAGE('date'));
    return { days: [query.date], range: false };
  }
  if (query.date !== undefined) throw ValidationError.field('date', 'The date field is prohibited when from or to is present.');
  if (query.from === undefined) throw ValidationError.field('from', 'The from field is required when to is present.');
  if (!isReportDate(query.from)) throw ValidationError.field('from', DATE_MESSAGE('from'));
  if (query.to === undefined) throw ValidationError.field('to', 'The to field is required when from is present.');
  if (!isReportDate(query.to)) throw ValidationError.field('to', DATE_MESSAGE('to'));
  if (query.to < query.from) throw ValidationError.field('to', 'The to field must be a date after or equal to from.');
  const days: string[] = [];
  for (let day = query.from; day <= query.to; day = nextDay(day)) {
    if (days.length === MAX_REPORT_DAYS) throw ValidationError.field('to', `The range may span at most ${MAX_REPORT_DAYS} days.`);
    days.push(day);
  }
  return { days, range: true };
}

/**
 * GET /api/admin/reports/daily?date= (docs/api.md section 14): the totals of the daily report;
 * `?from=&to=` the same for each day of a range, in order (the back office's daily series).
 */
export function registerReportRoutes(app: App, service: ReportService): void {
  app.get(
    '/api/admin/reports/daily',
    {
      config: { permission: 'reports.view' },
      schema: {
        tags: ['Admin: reports'],
        summary:
          'The totals of one São Paulo day’s report (or of each day from `from` to `to`): bettors, bets, gross gaming revenue by game, top-ups, withdrawals',
        querystring: Query,
        response: { 200: Type.Object({ data: Type.Union([Totals, Type.Array(Totals)]) }), ...errorResponses },
      },
    },
    async (request) => {
      const { days, range } = daysOf(request.query);
      const totals = (await service.totals(days)).map((day, index) => present(days[index]!, service.currency, day));
      return { data: range ? totals : totals[0]! };
    },
  );
  registerStatsRoutes(app, service);
}

/** One day's totals as the API answers them: money in units. */
function present(date: string, currency: string, totals: DayTotals): Static<typeof Totals> {
  const { from, to } = saoPauloDay(date);
  return {
    date,
    currency,
    from: from.toISOString(),
    to: to.toISOString(),
    bettors: totals.bettors,
    bets: { count: totals.bets, stake: toUnits(totals.stake), win: toUnits(totals.win), refund: toUnits(totals.refund) },
    ggr: toUnits(totals.ggr),
    topups: { count: totals.topups.count, amount: toUnits(totals.topups.amount), gift: toUnits(totals.topups.gift) },
    withdrawals: {
      count: totals.withdrawals.count,
      requested: toUnits(totals.withdrawals.requested),
      returned: toUnits(totals.withdrawals.returned),
      paid_count: totals.paidWithdrawals.count,
      paid: toUnits(totals.paidWithdrawals.amount),
    },
    returned_payments: { count: totals.returnedPayments.count, amount: toUnits(totals.returnedPayments.amount) },
    games: totals.games.map((game) => ({
      source: game.source,
      provider: game.provider,
      game: game.game,
      stake: toUnits(game.stake),
      win: toUnits(game.win),
      refund: toUnits(game.refund),
      ggr: toUnits(game.ggr),
    })),
    other_lines: Object.fromEntries(Object.entries(totals.otherLines).map(([type, cents]) => [type, toUnits(cents)])),
  };
}
