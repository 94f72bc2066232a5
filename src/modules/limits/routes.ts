import { Type } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { emptiedFields } from '../../platform/input.ts';
import { toUnits } from '../../platform/money.ts';
import { EXCLUSION_PERIODS, type LimitsView, type ResponsibleGambling } from './service.ts';
import { LIMIT_FIELDS, type LimitField } from './tables.ts';

const tags = ['Responsible gambling'];

const Nullable = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });
const LimitsRecord = Type.Object({
  deposit_daily: Nullable('Currency units; null: none.'),
  deposit_weekly: Nullable('Currency units; null: none.'),
  deposit_monthly: Nullable('Currency units; null: none.'),
  loss_daily: Nullable('Currency units of net loss (stakes − wins − refunds); null: none.'),
  loss_weekly: Nullable('Currency units of net loss; null: none.'),
  loss_monthly: Nullable('Currency units of net loss; null: none.'),
  session_minutes: Nullable('Minutes a signed-in session lasts (1–1440); null: none.'),
  pending: Type.Array(
    Type.Object({
      field: Type.String(),
      value: Nullable('The value that applies from `effective_at` (null: the limit is removed then).'),
      effective_at: Type.String({ format: 'date-time' }),
    }),
  ),
});
const LimitInput = Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()]));
const LimitsBody = Type.Object(Object.fromEntries(LIMIT_FIELDS.map((field) => [field, LimitInput])));
const ExclusionBody = Type.Object({
  period: Type.Union(
    EXCLUSION_PERIODS.map((period) => Type.Literal(period)),
    { 'x-message': 'The selected period is invalid.', description: 'How long: 24h, 1w, 1m, 3m, 6m, 1y or permanent.' },
  ),
});
const ExclusionRecord = Type.Object({
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null when permanent.' }),
  permanent: Type.Boolean(),
});

/** A limit as the player reads it: money in units, minutes as a number. */
function shown(field: LimitField, value: bigint | null): number | null {
  if (value === null) return null;
  return field === 'session_minutes' ? Number(value) : toUnits(value);
}

export function presentLimits(view: LimitsView) {
  return {
    ...(Object.fromEntries(LIMIT_FIELDS.map((field) => [field, shown(field, view.values[field])])) as Record<LimitField, number | null>),
    pending: view.pending.map((change) => ({
      field: change.field,
      value: shown(change.field, change.value),
      effective_at: change.effectiveAt.toISOString(),
    })),
  };
}

/** docs/api.md section 14, responsible gambling: limits and self-exclusion. */
export function registerLimitRoutes(app: App, service: ResponsibleGambling): void {
  app.get(
    '/api/user/limits',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'The signed-in player’s deposit, loss and session limits in force, and the changes pending',
        response: { 200: Type.Object({ data: LimitsRecord }), ...errorResponses },
      },
    },
    async (request) => ({ data: presentLimits(await service.limits(currentUser(request).id)) }),
  );

  app.put(
    '/api/user/limits',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Set limits (partial): new or lower ones apply at once, higher ones or removals 24 hours later',
        body: LimitsBody,
        response: { 200: Type.Object({ data: LimitsRecord }), ...errorResponses },
      },
    },
    async (request) => {
      // null (or "") removes a limit; the input normaliser drops such fields, so they are read back here.
      const body: Record<string, unknown> = { ...request.body };
      for (const field of emptiedFields(request.body)) body[field] = null;
      return { data: presentLimits(await service.update(currentUser(request).id, body)) };
    },
  );

  app.post(
    '/api/user/self-exclusion',
    {
      config: { auth: true, confirmPassword: true },
      schema: {
        tags,
        summary: 'Self-exclude for a period or for good (password confirmed): it can be extended, never shortened or lifted',
        body: ExclusionBody,
        response: { 201: Type.Object({ data: ExclusionRecord }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { until } = await service.selfExclude(currentUser(request).id, request.body.period);
      return reply.code(201).send({ data: { until: until?.toISOString() ?? null, permanent: until === null } });
    },
  );
}
