import { sql, type SQL } from 'drizzle-orm';
import { Type } from 'typebox';
import { correlated } from '../../platform/db/columns.ts';
import { presentLimits } from './routes.ts';
import { LIMIT_FIELDS, type LimitField } from './tables.ts';

/** What an operator sees of a player's responsible gambling, as one JSON value read with the user. */
interface ResponsibleJson {
  excluded_until: string | null;
  permanent: boolean;
  listed: boolean;
  limits: Array<{ field: LimitField; value: number | null; pending_value: number | null; pending_at: string | null }>;
}

/**
 * One correlated subquery per user record (the admin list reads 15 a page): the self-exclusion in
 * force, whether the CPF is on the national list, and the limit rows. `user` is the users.id
 * column as the select writes it.
 */
export function responsibleOf(user: SQL): SQL<ResponsibleJson> {
  return correlated<ResponsibleJson>(sql`json_build_object(
    'excluded_until', (select max(x.until) from self_exclusions x where x.user_id = ${user} and x.until > now()),
    'permanent', exists (select 1 from self_exclusions x where x.user_id = ${user} and x.permanent),
    'listed', exists (select 1 from player_standing s where s.user_id = ${user} and s.listed),
    'limits', coalesce((select json_agg(json_build_object('field', l.field, 'value', l.value, 'pending_value', l.pending_value,
      'pending_at', l.pending_at)) from user_limits l where l.user_id = ${user}), '[]'::json))`);
}

/**
 * Players excluded now: by themselves (in force) or on the national list (the admin list's
 * `excluded` filter). Listing is read from player_standing, where SQL derives it
 * (db/functions/player_standing_refresh.sql), as the check of a stake reads it.
 */
export function excludedNow(user: SQL): SQL {
  return sql`(exists (select 1 from self_exclusions x where x.user_id = ${user} and (x.permanent or x.until > now()))
    or exists (select 1 from player_standing s where s.user_id = ${user} and s.listed))`;
}

const Limit = Type.Union([Type.Number(), Type.Null()]);
/** The fields REGULATION=br adds to an admin user record (docs/api.md section 14). */
export const AdminResponsibleFields = {
  limits: Type.Optional(
    Type.Object(
      {
        ...Object.fromEntries(LIMIT_FIELDS.map((field) => [field, Limit])),
        pending: Type.Array(Type.Object({ field: Type.String(), value: Limit, effective_at: Type.String({ format: 'date-time' }) })),
      },
      { description: 'Only with REGULATION=br: the limits in force and the changes pending, as the player sees them.' },
    ),
  ),
  self_excluded_until: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Only with REGULATION=br: the end of the self-exclusion in force; null when none or permanent.',
    }),
  ),
  self_excluded_permanently: Type.Optional(Type.Boolean({ description: 'Only with REGULATION=br.' })),
  listed: Type.Optional(Type.Boolean({ description: 'Only with REGULATION=br: the CPF is on the national self-exclusion list.' })),
};

export function presentResponsible(raw: ResponsibleJson | string, now: Date) {
  const json: ResponsibleJson = typeof raw === 'string' ? (JSON.parse(raw) as ResponsibleJson) : raw;
  const rows = new Map(json.limits.map((row) => [row.field, row]));
  const big = (value: number | null) => (value === null ? null : BigInt(value));
  const values = Object.fromEntries(
    LIMIT_FIELDS.map((field) => {
      const row = rows.get(field);
      if (row === undefined) return [field, null];
      const due = row.pending_at !== null && new Date(row.pending_at) <= now;
      return [field, big(due ? row.pending_value : row.value)];
    }),
  ) as Record<LimitField, bigint | null>;
  const pending = json.limits
    .filter((row) => row.pending_at !== null && new Date(row.pending_at) > now)
    .map((row) => ({ field: row.field, value: big(row.pending_value), effectiveAt: new Date(row.pending_at!) }));
  return {
    limits: presentLimits({ values, pending }),
    self_excluded_until: json.permanent || json.excluded_until === null ? null : new Date(json.excluded_until).toISOString(),
    self_excluded_permanently: json.permanent,
    listed: json.listed,
  };
}
