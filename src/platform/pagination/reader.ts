import { and, asc, count, desc, eq, gte, ilike, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client.ts';
import type { ListQuery, ListSource, RowOf } from './list.ts';

/**
 * The statements behind lists and details, built once and run many times. Building a query with
 * Drizzle and turning it into SQL text costs more server time than PostgreSQL spends answering a
 * page, so each *shape* of request (which filters, search and time bounds it uses, which end it
 * reads from) gets its statements once, with placeholders where the values go. The shapes every
 * request of a list has in common (no filter at all, a customer's own rows, a detail) run as named
 * prepared statements, which PostgreSQL also parses and plans once per connection; the filtered
 * ones stay unnamed, so the statements a connection keeps stay few.
 */

const p = (name: string) => sql.placeholder(name);

/** How a request narrows a list: the parts whose presence changes the SQL, not their values. */
export interface Shape {
  filters: string[];
  q: boolean;
  from: boolean;
  /** `to` as a bare date covers its whole day (`<` the next midnight); a time is inclusive (`<=`). */
  to: 'none' | 'day' | 'instant';
}

function shapeKey(shape: Shape): string {
  return [...shape.filters.map((name) => `f:${name}`), shape.q ? 'q' : '', shape.from ? 'from' : '', shape.to]
    .filter((part) => part !== '')
    .join('|');
}

/** Whether a shape is one every request of its list may share (worth a named statement). */
function isCommon(shape: Shape): boolean {
  return shape.filters.length === 0 && !shape.q && !shape.from && shape.to === 'none';
}

/** The WHERE clause of a shape, with a placeholder for each value. */
function conditions(source: ListSource, shape: Shape): SQL | undefined {
  const parts: (SQL | undefined)[] = [source.where];
  if (source.owner !== undefined) parts.push(eq(source.owner, p('owner')));
  for (const name of shape.filters) parts.push(source.filters[name]!.condition(p(`f_${name}`)));
  if (shape.q) parts.push(or(...source.search.map((column) => ilike(column, p('q')))));
  const at = source.timestamp;
  if (at !== null) {
    if (shape.from) parts.push(gte(at, p('from')));
    if (shape.to === 'day') parts.push(lt(at, p('to')));
    if (shape.to === 'instant') parts.push(lte(at, p('to')));
  }
  return and(...parts);
}

function orderBy(source: ListSource, reversed: boolean): SQL[] {
  const id = source.table.id;
  if (source.sort !== undefined) return reversed ? [desc(source.sort), desc(id)] : [asc(source.sort), asc(id)];
  return [reversed ? asc(id) : desc(id)];
}

let statements = 0;
/** A name no other statement of this process has, for one statement text. */
function statementName(kind: string): string {
  statements += 1;
  return `list_${kind}_${statements}`;
}

function buildShape(db: Db, source: ListSource, shape: Shape) {
  const where = conditions(source, shape);
  const { table } = source;
  const named = isCommon(shape);
  // Drizzle's prepare() takes a name; without one node-postgres sends an unnamed statement.
  const name = (kind: string) => (named ? statementName(kind) : (undefined as unknown as string));
  const total = db.select({ total: count() }).from(table).where(where).prepare(name('count'));
  const rows = [false, true].map((reversed) => {
    const ids = db
      .select({ id: table.id })
      .from(table)
      .where(where)
      .orderBy(...orderBy(source, reversed))
      .limit(p('limit'))
      .offset(p('offset'));
    return db
      .select(source.select)
      .from(table)
      .where(inArray(table.id, ids))
      .orderBy(...orderBy(source, false))
      .prepare(name('page'));
  });
  return { total, forward: rows[0]!, reversed: rows[1]! };
}

type ShapeStatements = ReturnType<typeof buildShape>;

/** The statements of one list on one database, by shape. */
export class ListStatements<S extends SelectedFields> {
  readonly #db: Db;
  readonly #source: ListSource<S>;
  readonly #shapes = new Map<string, ShapeStatements>();
  #detail: ReturnType<ListStatements<S>['buildDetail']> | undefined;

  constructor(db: Db, source: ListSource<S>) {
    this.#db = db;
    this.#source = source;
  }

  /** The shape of a query, and the values its placeholders take. */
  bind(query: ListQuery, parse: { from?: Date; to?: { at: Date; day: boolean } }, ownerId?: number) {
    const source = this.#source;
    const values: Record<string, unknown> = {};
    const filters: string[] = [];
    for (const [name, item] of Object.entries(source.filters)) {
      const value = query[name];
      if (value === undefined) continue;
      filters.push(name);
      values[`f_${name}`] = item.value === undefined ? value : item.value(value);
    }
    const q = query.q !== undefined && query.q !== '' && source.search.length > 0;
    if (q) values.q = `%${escapeLike(query.q!)}%`;
    const timed = source.timestamp !== null;
    if (timed && parse.from !== undefined) values.from = parse.from.toISOString();
    if (timed && parse.to !== undefined) values.to = parse.to.at.toISOString();
    if (source.owner !== undefined) {
      // A list pinned to its owner never runs without one: that would list everyone's rows.
      if (ownerId === undefined) throw new Error('This list is pinned to a user, and none was given.');
      values.owner = ownerId;
    }
    const shape: Shape = {
      filters,
      q,
      from: timed && parse.from !== undefined,
      to: !timed || parse.to === undefined ? 'none' : parse.to.day ? 'day' : 'instant',
    };
    return { shape, values };
  }

  #statements(shape: Shape): ShapeStatements {
    const key = shapeKey(shape);
    let found = this.#shapes.get(key);
    if (found === undefined) {
      found = buildShape(this.#db, this.#source, shape);
      this.#shapes.set(key, found);
    }
    return found;
  }

  async total(shape: Shape, values: Record<string, unknown>): Promise<number> {
    const [row] = await this.#statements(shape).total.execute(values);
    return row?.total ?? 0;
  }

  async rows(shape: Shape, values: Record<string, unknown>, window: { limit: number; offset: number; reversed: boolean }) {
    const statements = this.#statements(shape);
    const statement = window.reversed ? statements.reversed : statements.forward;
    const found: unknown = await statement.execute({ ...values, limit: window.limit, offset: window.offset });
    // Drizzle cannot follow a generic selection through its builder; the rows are of `select`.
    return found as RowOf<S>[];
  }

  private buildDetail() {
    const source = this.#source;
    return this.#db
      .select(source.select)
      .from(source.table)
      .where(eq(source.table.id, p('id')))
      .prepare(statementName('detail'));
  }

  /** One record as the list shows it, by id. */
  async detail(id: number): Promise<RowOf<S> | undefined> {
    this.#detail ??= this.buildDetail();
    const found: unknown = await this.#detail.execute({ id });
    return (found as RowOf<S>[])[0];
  }
}

/** `%` and `_` taken literally in a LIKE pattern (backslash is PostgreSQL's default escape). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
