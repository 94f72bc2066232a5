import { Type, type Static } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { toUnits } from '../../platform/money.ts';
import { ValidationError } from '../../platform/errors.ts';
import { saoPauloDate, saoPauloDay } from '../../platform/sao-paulo.ts';
import { isReportDate, nextDay } from './daily.ts';
import type { ReportService } from './service.ts';
import { addFigures, figuresOf, ggrOf, queuesOf, type Figures, type GgrRow } from './stats.ts';

/** The longest range the dashboard may ask for: a year, leap day included (and as many days before it). */
export const MAX_STATS_DAYS = 366;

const Money = Type.Number({ description: 'Currency units.' });
const FigureFields = {
  registrations: Type.Integer({ description: 'Accounts created.' }),
  first_depositors: Type.Integer({ description: 'Players whose first top-up ever was credited.' }),
  deposits: Money,
  deposits_count: Type.Integer({ description: 'Top-ups credited.' }),
  paid_withdrawals: Money,
  paid_withdrawals_count: Type.Integer({ description: 'Withdrawals paid out (completed).' }),
  net_deposits: Type.Number({ description: 'deposits − paid_withdrawals, in currency units.' }),
  stakes: Money,
  wins: Money,
  refunds: Money,
  ggr: Type.Number({ description: 'Gross gaming revenue: stakes − wins − refunds, in currency units.' }),
};
const FiguresSchema = Type.Object(FigureFields);
const Ggr = Type.Object({
  source: Type.String({ description: '`draw` (in-house) or `provider`.' }),
  provider: Type.String({ description: 'The provider’s code; empty for in-house games.' }),
  game: Type.String({ description: 'The game’s code (empty in by_provider).' }),
  stakes: Money,
  wins: Money,
  refunds: Money,
  ggr: Money,
});
const Stats = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  currency: Type.String(),
  totals: FiguresSchema,
  previous: Type.Object(
    { from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }), ...FigureFields },
    { description: 'The same figures for as many days just before `from`.' },
  ),
  daily: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...FigureFields }), {
    description: 'One entry per day of the range, in order; each day’s money equals GET /api/admin/reports/daily?date= for it.',
  }),
  by_game: Type.Array(Ggr, { description: 'Highest GGR first.' }),
  by_provider: Type.Array(Ggr, { description: 'Highest GGR first.' }),
  queues: Type.Object({
    withdrawals: Type.Object({
      count: Type.Integer({ description: 'Withdrawals pending review.' }),
      amount: Money,
      oldest_created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      oldest_age_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'How long the oldest one has waited.' }),
    }),
    identities: Type.Object({ count: Type.Integer({ description: 'Identities pending review.' }) }),
    topups: Type.Object({ count: Type.Integer({ description: 'Top-ups pending payment (not expired).' }), amount: Money }),
  }),
});
const Query = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 10, description: 'The first day (YYYY-MM-DD, São Paulo).' })),
  to: Type.Optional(Type.String({ maxLength: 10, description: `The last day, included; at most ${MAX_STATS_DAYS} days from \`from\`.` })),
});

const DATE_MESSAGE = (field: string) => `The ${field} field must be a valid date (YYYY-MM-DD, 2000 to 2999).`;

/** The days from `from` to `to`, in order; a 422 on the field at fault. */
function rangeOf(query: Static<typeof Query>): string[] {
  if (query.from === undefined) throw ValidationError.field('from', 'The from field is required.');
  if (!isReportDate(query.from)) throw ValidationError.field('from', DATE_MESSAGE('from'));
  if (query.to === undefined) throw ValidationError.field('to', 'The to field is required.');
  if (!isReportDate(query.to)) throw ValidationError.field('to', DATE_MESSAGE('to'));
  if (query.to < query.from) throw ValidationError.field('to', 'The to field must be a date after or equal to from.');
  const days: string[] = [];
  for (let day = query.from; day <= query.to; day = nextDay(day)) {
    if (days.length === MAX_STATS_DAYS) throw ValidationError.field('to', `The range may span at most ${MAX_STATS_DAYS} days.`);
    days.push(day);
  }
  return days;
}

/** The `count` days before `first`, in order, from sao-paulo.ts's own day boundaries. */
function daysBefore(first: string, count: number): string[] {
  const days: string[] = [];
  let day = first;
  while (days.length < count) {
    day = saoPauloDate(new Date(saoPauloDay(day).from.getTime() - 1));
    days.unshift(day);
  }
  return days;
}

const presentFigures = (figures: Figures): Static<typeof FiguresSchema> => ({
  registrations: figures.registrations,
  first_depositors: figures.firstDepositors,
  deposits: toUnits(figures.deposits.amount),
  deposits_count: figures.deposits.count,
  paid_withdrawals: toUnits(figures.paidWithdrawals.amount),
  paid_withdrawals_count: figures.paidWithdrawals.count,
  net_deposits: toUnits(figures.netDeposits),
  stakes: toUnits(figures.stakes),
  wins: toUnits(figures.wins),
  refunds: toUnits(figures.refunds),
  ggr: toUnits(figures.ggr),
});

const presentGgr = (row: GgrRow) => ({
  source: row.source,
  provider: row.provider,
  game: row.game,
  stakes: toUnits(row.stakes),
  wins: toUnits(row.wins),
  refunds: toUnits(row.refunds),
  ggr: toUnits(row.ggr),
});

/** GET /api/admin/stats?from=&to= (docs/api.md section 8, "The dashboard"): the back office's dashboard. */
export function registerStatsRoutes(app: App, service: ReportService): void {
  app.get(
    '/api/admin/stats',
    {
      config: { permission: 'reports.view' },
      schema: {
        tags: ['Admin: dashboard'],
        summary:
          'The dashboard of São Paulo days `from` to `to`: totals, the previous period of the same length, each day, gross gaming revenue by game and by provider, and the queues waiting on staff',
        querystring: Query,
        response: { 200: Type.Object({ data: Stats }), ...errorResponses },
      },
    },
    async (request) => {
      const days = rangeOf(request.query);
      const previousDays = daysBefore(days[0]!, days.length);
      const [current, previous, queues] = await Promise.all([
        service.totals(days),
        service.totals(previousDays),
        queuesOf(service.db, service.currency),
      ]);
      const daily = current.map(figuresOf);
      return {
        data: {
          from: days[0]!,
          to: days.at(-1)!,
          currency: service.currency,
          totals: presentFigures(addFigures(daily)),
          previous: { from: previousDays[0]!, to: previousDays.at(-1)!, ...presentFigures(addFigures(previous.map(figuresOf))) },
          daily: daily.map((figures, index) => ({ date: days[index]!, ...presentFigures(figures) })),
          by_game: ggrOf(current, false).map(presentGgr),
          by_provider: ggrOf(current, true).map(presentGgr),
          queues: {
            withdrawals: {
              count: queues.withdrawals.count,
              amount: toUnits(queues.withdrawals.amount),
              oldest_created_at: queues.withdrawals.oldestCreatedAt?.toISOString() ?? null,
              oldest_age_seconds: queues.withdrawals.oldestAgeSeconds,
            },
            identities: queues.identities,
            topups: { count: queues.topups.count, amount: toUnits(queues.topups.amount) },
          },
        },
      };
    },
  );
}
