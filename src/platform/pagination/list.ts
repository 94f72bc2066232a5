import { eq, getTableColumns, type Placeholder, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgColumn, PgTable, SelectedFields } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import { Type, type Static, type TObject, type TOptional, type TSchema } from 'typebox';
import type { Db } from '../db/client.ts';
import { ValidationError } from '../errors.ts';
import { ListStatements } from './reader.ts';

export { escapeLike } from './reader.ts';

/**
 * Laravel's LengthAwarePaginator, for admin lists and customer lists alike (docs/api.md section 4):
 * `page`, `per_page` (default 15, capped at 100), filters named after fields, `q`, `from`/`to`.
 */
export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;
/** Ids are BIGINT; beyond this a number is no longer exact in JavaScript. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** A table (or an alias of one) whose primary key is its numeric `id` column. */
export type ListTable = PgTable & { id: AnyPgColumn<{ data: number; notNull: true }> };

/**
 * One query-string filter: its schema, and its condition built once around a placeholder
 * (pagination/reader.ts) that gets the value, as sent or as `value` turns it.
 */
export interface Filter<S extends TSchema = TSchema> {
  schema: S;
  condition(param: Placeholder): SQL;
  value?(value: Static<S>): unknown;
}

/** A filter that matches a column exactly. */
export function equals<S extends TSchema>(column: PgColumn, schema: S): Filter<S> {
  return { schema, condition: (param) => eq(column, param) };
}

/**
 * A filter with its own condition (a case-folded match, an `exists` over a join table): the
 * condition around the placeholder, and what the value sent becomes in it.
 */
export function filter<S extends TSchema>(
  schema: S,
  condition: (param: Placeholder) => SQL,
  value?: (value: Static<S>) => unknown,
): Filter<S> {
  return value === undefined ? { schema, condition } : { schema, condition, value };
}

export type Filters = Record<string, Filter>;

/** What a list reads: rows of `select` from `table`, narrowed by the query. */
export interface ListSource<S extends SelectedFields = SelectedFields> {
  table: ListTable;
  /** The row: the table's columns and any typed computed fields (`sql<T>`, mapped where drivers differ). */
  select: S;
  filters: Filters;
  /** Text columns `q` matches case-insensitively, anywhere in the value. */
  search: PgColumn[];
  /** With a sort column the order is `sort asc, id asc`, otherwise `id desc`. */
  sort: PgColumn | undefined;
  /** Column `from`/`to` apply to, or null when the records carry no time. */
  timestamp: PgColumn | null;
  /** A condition every page is pinned to, whatever the query says (e.g. only what customers may see). */
  where?: SQL;
  /** The column of a customer list's owner: every page is pinned to the signed-in user's rows. */
  owner?: PgColumn;
}

/** The row type of a selection. */
export type RowOf<S extends SelectedFields> = SelectResultFields<S>;

/** A list source as declared: only the table and the selection are required. */
export type ListSourceSpec<S extends SelectedFields> = Pick<ListSource<S>, 'table' | 'select'> &
  Partial<Omit<ListSource<S>, 'table' | 'select'>>;

/** The source with its defaults: no filters, no `q`, newest first, `from`/`to` on the table's `createdAt`. */
export function listSource<S extends SelectedFields>(source: ListSourceSpec<S>): ListSource<S> {
  const createdAt = (getTableColumns(source.table) as Record<string, PgColumn | undefined>).createdAt ?? null;
  return {
    table: source.table,
    select: source.select,
    filters: source.filters ?? {},
    search: source.search ?? [],
    sort: source.sort,
    timestamp: source.timestamp === undefined ? createdAt : source.timestamp,
    ...(source.where === undefined ? {} : { where: source.where }),
    ...(source.owner === undefined ? {} : { owner: source.owner }),
  };
}

const paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number, from 1.' })),
  per_page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      description: `Page size, default ${DEFAULT_PER_PAGE}; above ${MAX_PER_PAGE} reads as ${MAX_PER_PAGE}.`,
    }),
  ),
  q: Type.Optional(Type.String({ maxLength: 255 })),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
};

/** The query-string schema of a list over `filters`; its static type is the list's query. */
export type ListQuerySchema<F extends Filters = Filters> = TObject<
  typeof paging & (string extends keyof F ? unknown : { [K in keyof F]: TOptional<F[K]['schema']> })
>;

/** What a list request asks for: paging, search, time range, and filter values by name. */
export interface ListQuery {
  page?: number;
  per_page?: number;
  q?: string;
  from?: string;
  to?: string;
  [filter: string]: unknown;
}

const DATE = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$';
const DateParam = Type.String({ pattern: DATE, 'x-message': 'The :attribute field must be a valid date.' });

/** The query-string schema of a list: paging, search, time range and the source's filters. */
export function listQuerySchema<F extends Filters>(source: {
  filters: F;
  search: PgColumn[];
  timestamp: PgColumn | null;
}): ListQuerySchema<F> {
  const properties: Record<string, TSchema> = { page: paging.page, per_page: paging.per_page };
  if (source.search.length > 0) {
    const names = source.search.map((column) => column.name).join(', ');
    properties.q = Type.Optional(Type.String({ maxLength: 255, description: `Case-insensitive partial match on ${names}.` }));
  }
  if (source.timestamp !== null) {
    const on = `on ${source.timestamp.name}; a bare date is that whole UTC day.`;
    properties.from = Type.Optional({ ...DateParam, description: `Inclusive lower bound ${on}` });
    properties.to = Type.Optional({ ...DateParam, description: `Inclusive upper bound ${on}` });
  }
  for (const [name, item] of Object.entries(source.filters)) properties[name] = Type.Optional(item.schema);
  // The properties are built from `filters` one by one; the static type says what they add up to.
  return Type.Object(properties) as unknown as ListQuerySchema<F>;
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

const statements = new WeakMap<Db, WeakMap<ListSource, ListStatements<SelectedFields>>>();

/** The prepared statements of `source` on `db` (built on first use; the source is declared once). */
export function statementsOf<S extends SelectedFields>(db: Db, source: ListSource<S>): ListStatements<S> {
  let byDb = statements.get(db);
  if (byDb === undefined) {
    byDb = new WeakMap();
    statements.set(db, byDb);
  }
  let found = byDb.get(source);
  if (found === undefined) {
    found = new ListStatements(db, source);
    byDb.set(source, found);
  }
  // Stored under the source it was built for, so its rows are of that source's selection.
  return found as unknown as ListStatements<S>;
}

/**
 * One page of a list. The page's ids are chosen first (an index scan over the primary key or the
 * sort index, no per-row work for skipped rows), then only those rows are read in full. A page
 * in the back half of the list is read from the other end of the index, so the last page costs
 * what the first does. `ownerId` is the signed-in user of a list pinned to its owner.
 */
export async function paginate<S extends SelectedFields>(
  db: Db,
  source: ListSource<S>,
  query: ListQuery,
  url: { base: string; path: string },
  ownerId?: number,
): Promise<Page<RowOf<S>>> {
  const perPage = Math.min(query.per_page ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  const page = query.page ?? 1;
  const reader = statementsOf(db, source);
  const bounds: { from?: Date; to?: { at: Date; day: boolean } } = {};
  if (query.from !== undefined) bounds.from = parseDate('from', query.from);
  if (query.to !== undefined) {
    const to = parseDate('to', query.to);
    const day = isBareDate(query.to);
    // A bare date covers the whole day: everything before the next midnight.
    bounds.to = { at: day ? new Date(to.getTime() + 86_400_000) : to, day };
  }
  const { shape, values } = reader.bind(query, bounds, ownerId);

  const total = await reader.total(shape, values);
  const offset = (page - 1) * perPage;
  let data: RowOf<S>[] = [];
  if (offset < total) {
    const take = Math.min(perPage, total - offset);
    // Fewer rows to skip from the far end: walk the index backwards.
    const reversed = total - offset - take < offset;
    data = await reader.rows(shape, values, { limit: take, offset: reversed ? total - offset - take : offset, reversed });
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
export function pageSchema<R extends TSchema>(record: R) {
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
