import { sql, type SQL } from 'drizzle-orm';
import { Type, type TSchema } from 'typebox';
import { one, rows, type Db } from '../db/client.ts';
import { ValidationError } from '../errors.ts';

/**
 * Laravel's LengthAwarePaginator for admin lists (contract section 4): `page`, `per_page`
 * (default 15, capped at 100), filters named after fields, `q`, `from`/`to`.
 */
export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;
/** Ids are BIGINT; beyond this a number is no longer exact in JavaScript. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** One query-string filter: an exact match on a column unless `where` says otherwise. */
export interface Filter {
  schema: TSchema;
  /** Column of the resource's table alias; defaults to the filter's name. */
  column?: string;
  /** A custom condition (e.g. an `exists` over a join table); `alias` is the table alias. */
  where?: (value: never, alias: string) => SQL;
}

export interface ListSpec {
  table: string;
  alias: string;
  /** Select list over the alias; the rows handed to the presenter. */
  select: SQL;
  filters: Record<string, Filter>;
  /** Text columns `q` matches case-insensitively, anywhere in the value. */
  search: string[];
  /** With a sort column the order is `sort asc, id asc`, otherwise `id desc`. */
  sort: string | undefined;
  /** Column `from`/`to` apply to, or null when the records carry no time. */
  timestamp: string | null;
}

export interface ListQuery {
  page?: number;
  per_page?: number;
  q?: string;
  from?: string;
  to?: string;
  [filter: string]: unknown;
}

export interface Page<Row> {
  data: Row[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    path: string;
    per_page: number;
    to: number | null;
    total: number;
  };
}

const DATE = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$';
const DateParam = Type.String({ pattern: DATE, 'x-message': 'The :attribute field must be a valid date.' });

/** The query-string schema of a list: paging, search, time range and the resource's filters. */
export function listQuerySchema(spec: Pick<ListSpec, 'filters' | 'search' | 'timestamp'>): TSchema {
  const properties: Record<string, TSchema> = {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number, from 1.' })),
    per_page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ID,
        description: `Page size, default ${DEFAULT_PER_PAGE}; above ${MAX_PER_PAGE} reads as ${MAX_PER_PAGE}.`,
      }),
    ),
  };
  if (spec.search.length > 0) {
    properties.q = Type.Optional(
      Type.String({ maxLength: 255, description: `Case-insensitive partial match on ${spec.search.join(', ')}.` }),
    );
  }
  if (spec.timestamp !== null) {
    properties.from = Type.Optional({
      ...DateParam,
      description: `Inclusive lower bound on ${spec.timestamp}; a bare date is that whole UTC day.`,
    });
    properties.to = Type.Optional({
      ...DateParam,
      description: `Inclusive upper bound on ${spec.timestamp}; a bare date is that whole UTC day.`,
    });
  }
  for (const [name, filter] of Object.entries(spec.filters)) properties[name] = Type.Optional(filter.schema);
  return Type.Object(properties);
}

/** Query flags as they come in a URL: 1/0/true/false. */
export const FlagFilter = Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], {
  'x-message': 'The :attribute field must be true or false.',
});

export function flagValue(value: string): boolean {
  return value === '1' || value === 'true';
}

/** An id filter: a positive integer within the bounds path ids have, exact match. */
export const IdFilter = Type.Integer({ minimum: 1, maximum: MAX_ID });

function isBareDate(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value);
}

function parseDate(field: string, value: string): Date {
  const date = new Date(isBareDate(value) ? `${value}T00:00:00.000Z` : value.replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) throw ValidationError.field(field, `The ${field} field must be a valid date.`);
  return date;
}

function column(alias: string, name: string): SQL {
  return sql.raw(`${alias}.${name}`);
}

/** The WHERE clause of a list query; every part is a parameterised condition. */
export function listConditions(spec: ListSpec, query: ListQuery): SQL {
  const parts: SQL[] = [];
  for (const [name, filter] of Object.entries(spec.filters)) {
    const value = query[name];
    if (value === undefined) continue;
    parts.push(
      filter.where !== undefined ? filter.where(value as never, spec.alias) : sql`${column(spec.alias, filter.column ?? name)} = ${value}`,
    );
  }
  if (query.q !== undefined && query.q !== '' && spec.search.length > 0) {
    const pattern = `%${query.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const any = sql.join(
      spec.search.map((name) => sql`${column(spec.alias, name)} ilike ${pattern}`),
      sql` or `,
    );
    parts.push(sql`(${any})`);
  }
  if (spec.timestamp !== null) {
    const at = column(spec.alias, spec.timestamp);
    if (query.from !== undefined) parts.push(sql`${at} >= ${parseDate('from', query.from).toISOString()}::timestamptz`);
    if (query.to !== undefined) {
      const to = parseDate('to', query.to);
      // A bare date covers the whole day: everything before the next midnight.
      if (isBareDate(query.to)) parts.push(sql`${at} < ${new Date(to.getTime() + 86_400_000).toISOString()}::timestamptz`);
      else parts.push(sql`${at} <= ${to.toISOString()}::timestamptz`);
    }
  }
  return parts.length === 0 ? sql`true` : sql.join(parts, sql` and `);
}

function orderBy(spec: ListSpec, reversed: boolean): SQL {
  const [up, down] = reversed ? ['desc', 'asc'] : ['asc', 'desc'];
  if (spec.sort !== undefined) return sql.raw(`${spec.alias}.${spec.sort} ${up}, ${spec.alias}.id ${up}`);
  return sql.raw(`${spec.alias}.id ${down}`);
}

/**
 * One page of a list. The page's ids are chosen first (an index scan over the primary key or the
 * sort index, no per-row work for skipped rows), then only those rows are read in full. A page
 * in the back half of the list is read from the other end of the index, so the last page costs
 * what the first does.
 */
export async function paginate<Row>(db: Db, spec: ListSpec, query: ListQuery, url: { base: string; path: string }): Promise<Page<Row>> {
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  const page = query.page ?? 1;
  const where = listConditions(spec, query);
  const table = sql.identifier(spec.table);
  const alias = sql.raw(spec.alias);

  const counted = await one<{ total: string | number }>(db, sql`select count(*) as total from ${table} ${alias} where ${where}`);
  const total = Number(counted?.total ?? 0);
  const offset = (page - 1) * perPage;
  let data: Row[] = [];
  if (offset < total) {
    const take = Math.min(perPage, total - offset);
    // Fewer rows to skip from the far end: walk the index backwards.
    const reversed = total - offset - take < offset;
    const skip = reversed ? total - offset - take : offset;
    const ids = sql`select ${alias}.id from ${table} ${alias} where ${where} order by ${orderBy(spec, reversed)} limit ${take} offset ${skip}`;
    data = await rows<Row>(
      db,
      sql`select ${spec.select} from ${table} ${alias} where ${alias}.id in (${ids}) order by ${orderBy(spec, false)}`,
    );
  }

  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const path = `${url.base}${url.path}`;
  const link = (n: number): string => `${path}?page=${n}${query.per_page === undefined ? '' : `&per_page=${perPage}`}`;
  return {
    data,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? link(page + 1) : null,
    },
    meta: {
      current_page: page,
      from: data.length === 0 ? null : offset + 1,
      last_page: lastPage,
      path,
      per_page: perPage,
      to: data.length === 0 ? null : offset + data.length,
      total,
    },
  };
}

/** The response schema of a list of `record`. */
export function pageSchema(record: TSchema): TSchema {
  const Link = Type.Union([Type.String(), Type.Null()]);
  return Type.Object({
    data: Type.Array(record),
    links: Type.Object({ first: Type.String(), last: Type.String(), prev: Link, next: Link }),
    meta: Type.Object({
      current_page: Type.Integer(),
      from: Type.Union([Type.Integer(), Type.Null()]),
      last_page: Type.Integer(),
      path: Type.String(),
      per_page: Type.Integer(),
      to: Type.Union([Type.Integer(), Type.Null()]),
      total: Type.Integer(),
    }),
  });
}
