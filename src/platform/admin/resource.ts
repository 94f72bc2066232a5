/**
 * The admin list/CRUD convention: every `/api/admin/<resource>` set is declared, not written.
 *
 * How to use (a short file per resource, see src/modules/banks/admin-banks.ts):
 *
 *   export const banksResource = defineResource({
 *     path: '/api/admin/banks', param: 'bank', permission: 'banks', tag: 'Admin: banks',
 *     table: banks,                       // a Drizzle table whose key is `id`
 *     record: BankRecord,                 // no `present`: the record's fields are the row's columns
 *     createBody: BankBody,               // PUT and PATCH take its partial
 *     filters: { code: equals(banks.code, Type.String()) },
 *     search: [banks.name, banks.code],
 *     unique: [{ field: 'code', column: banks.code }],
 *     values: async (body) => ({ name: body.name, code: body.code, currenry: body.currenry?.toUpperCase() }),
 *   });
 *   registerResource(app, ctx, banksResource);   // in the module's routes.ts
 *
 * What you get: GET list (Laravel paginated envelope, `page`/`per_page` ≤ 100, filters, `q`,
 * `from`/`to` on `timestamp` (default the table's `createdAt`), order id desc or `sort asc, id
 * asc` when `sort` is set), GET detail, POST (201), PUT and PATCH (partial: absent fields keep
 * their value; a field sent as "" or null is "required" when create requires it, else null or its
 * type's 422), DELETE (204), each as `{data}`; permission `<permission>.view` for reads and
 * `<permission>.manage` for writes; 404 for a missing or malformed id; 422 with Laravel's
 * messages; every write in one transaction with its operation-log row (operation-log.ts).
 *
 * A row is what `select` reads (default: the table's columns; add typed computed fields with
 * `sql<T>`), so its type comes from the table. The body is `Static<typeof createBody>`, partial.
 * Without `values`, body fields are written to the columns of the same SQL name.
 *
 * Rules go in hooks, all optional: `prepare` (before the transaction: slow pure work such as
 * password hashing; what it returns is the body the other hooks see), `values` (body → column
 * values, undefined left alone, inside the transaction; may throw ValidationError), `afterWrite`
 * (join tables), `beforeDelete` (refusals), `afterCommit` (side effects that must not run on
 * rollback, e.g. ending sessions). `actions` limits the routes. `inUse` words the 409 of a delete
 * that other records' history keeps from happening (in-use.ts); without it the 409 still names the
 * referring table.
 */
import type { FastifyRequest } from 'fastify';
import { eq, getTableColumns, getTableName, sql } from 'drizzle-orm';
import type { PgColumn, PgInsertValue, SelectedFields } from 'drizzle-orm/pg-core';
import { Type, type Static, type TInteger, type TObject, type TSchema } from 'typebox';
import type { AuthUser } from '../auth/identity.ts';
import type { AppContext } from '../context.ts';
import { isUniqueViolation, type Db } from '../db/client.ts';
import { idExists } from '../db/exists.ts';
import { NotFoundError } from '../errors.ts';
import type { App } from '../http/app.ts';
import { currentUser } from '../http/guard.ts';
import { columnPresenter } from '../http/record.ts';
import { errorResponses, NoContent, sendNoContent } from '../http/schemas.ts';
import {
  listQuerySchema,
  listSource,
  MAX_ID,
  pageSchema,
  paginate,
  statementsOf,
  type Filters,
  type ListSource,
  type ListTable,
  type RowOf,
} from '../pagination/list.ts';
import { deleteUnlessKept, recordDeleteRule, type InUse } from './in-use.ts';
import { loggedTransaction, operationEntry } from './operation-log.ts';
import { mustBeUnique, takenError } from './rules.ts';
import { partialUpdate } from '../validation.ts';

export type Action = 'list' | 'show' | 'create' | 'update' | 'delete';
const ALL_ACTIONS: Action[] = ['list', 'show', 'create', 'update', 'delete'];

/** What a hook knows about the write in progress. */
export interface WriteContext<Row> {
  ctx: AppContext;
  request: FastifyRequest;
  actor: AuthUser;
  /** The open transaction; every query of a hook goes through it. */
  tx: Db;
  /** The record before the change (update and delete), as `select` reads it, row-locked. */
  existing: Row | undefined;
}

interface CommitBase<Row> {
  id: number;
  before: Row | undefined;
  after: Row | undefined;
  actor: AuthUser;
  request: FastifyRequest;
}

export type CommitEvent<Row, Body> =
  (CommitBase<Row> & { action: 'create' | 'update'; body: Body }) | (CommitBase<Row> & { action: 'delete'; body: undefined });

export interface UniqueRule {
  /** Body field reported in the 422. */
  field: string;
  /** Column compared (after `values`), and whose unique constraint is mapped to the same 422. */
  column: PgColumn;
  /** Default: the column's own unique constraint, `<table>_<column>_unique`. */
  constraint?: string;
}

/** Column values of a write: a key left undefined keeps its value (update) or its default (insert). */
export type Values<T extends ListTable> = Partial<T['$inferInsert']>;

/** The body a hook sees: the create body's fields, each optional (an update sends what changes). */
export type BodyOf<B extends TObject> = Partial<Static<B>>;

export interface AdminResource<T extends ListTable, S extends SelectedFields, R extends TObject, B extends TObject, P> {
  /** Collection path, e.g. `/api/admin/users`. */
  path: string;
  /** Item path parameter name, e.g. `user` for `/api/admin/users/:user`. */
  param: string;
  /** Permission base: `users` → `users.view` for reads, `users.manage` for writes. */
  permission: string;
  /** `Admin: <records>`; the records' name also words the summaries (`List bank cards`). */
  tag: string;
  /** One record's name when it is not the tag's name without its final `s` (`bank card`). */
  singular?: string;
  table: T;
  /** The row; default the table's columns. */
  select?: S;
  record: R;
  /** Default: the record's fields from same-named columns (http/record.ts). */
  present?: (row: RowOf<S>) => Static<R>;
  filters?: Filters;
  search?: PgColumn[];
  sort?: PgColumn;
  /** Column of `from`/`to`; `null` for records without time. Default the table's `createdAt`. */
  timestamp?: PgColumn | null;
  actions?: Action[];
  createBody?: B;
  unique?: UniqueRule[];
  /** What keeps a record from being deleted: the 409's wording per referring table (in-use.ts). */
  inUse?: InUse;
  prepare?(body: BodyOf<B>, action: 'create' | 'update'): Promise<P>;
  values?(body: P, w: WriteContext<RowOf<S>>): Promise<Values<T>>;
  afterWrite?(id: number, body: P, w: WriteContext<RowOf<S>>): Promise<void>;
  beforeDelete?(row: RowOf<S>, w: WriteContext<RowOf<S>>): Promise<void>;
  afterCommit?(event: CommitEvent<RowOf<S>, P>): Promise<void>;
}

/** Gives a declaration its types: the row from `select` (or the table), the body from `createBody`. */
export function defineResource<
  T extends ListTable,
  R extends TObject,
  S extends SelectedFields = T['_']['columns'],
  B extends TObject = TObject,
  P = BodyOf<B>,
>(resource: AdminResource<T, S, R, B, P>): AdminResource<T, S, R, B, P> {
  return resource;
}

/** A declaration as the registrar handles it: rows and bodies pass through without being looked at. */
type AnyResource = AdminResource<ListTable, SelectedFields, TObject, TObject<Record<string, TSchema>>, Body>;
type Body = Record<string, unknown>;
type Row = RowOf<SelectedFields>;

/** The list source a resource reads through. */
export function sourceOf(resource: AnyResource): ListSource {
  const select = resource.select ?? getTableColumns(resource.table);
  return listSource({ ...resource, select, filters: resource.filters ?? {}, search: resource.search ?? [] });
}

/** Reads one record as the list does, optionally row-locked for a write. */
export async function loadRecord<S extends SelectedFields>(
  db: Db,
  source: ListSource<S>,
  id: number,
  lock = false,
): Promise<RowOf<S> | undefined> {
  const query = db.select(source.select).from(source.table).where(eq(source.table.id, id));
  const found: unknown = lock ? await query.for('update', { of: source.table }) : await query;
  // Drizzle cannot follow a generic selection through its builder; the rows are of `select`.
  return (found as RowOf<S>[])[0];
}

/** The path parameter of an item: an id within JavaScript's exact integers. */
function idParams(param: string): TObject<Record<string, TInteger>> {
  return Type.Object({ [param]: Type.Integer({ minimum: 1, maximum: MAX_ID }) });
}

/** Without a `values` hook: the body fields `createBody` declares, each into the column of that SQL name. */
function columnCopier(resource: AnyResource): (body: Body) => Body {
  const keyOf = new Map(Object.entries(getTableColumns(resource.table)).map(([key, column]) => [column.name, key]));
  const pairs = Object.keys(resource.createBody?.properties ?? {}).flatMap((field) => {
    const key = keyOf.get(field);
    return key === undefined ? [] : [[field, key] as const];
  });
  return (body) => Object.fromEntries(pairs.map(([field, key]) => [key, body[field]]));
}

/** Each unique rule with the key of its column in the values of a write. */
function uniqueRules(resource: AnyResource): (UniqueRule & { key: string; constraint: string })[] {
  const columns = Object.entries(getTableColumns(resource.table));
  return (resource.unique ?? []).map((rule) => {
    const key = columns.find(([, column]) => column === rule.column)?.[0];
    if (key === undefined) throw new Error(`${resource.path}: the unique column of ${rule.field} is not a column of the table.`);
    return { ...rule, key, constraint: rule.constraint ?? rule.column.uniqueName ?? '' };
  });
}

/** The names a resource's summaries use: `bank cards`, `a bank card`. */
function namesOf(resource: { tag: string; singular?: string }): { many: string; one: string } {
  const many = resource.tag.replace(/^Admin: /, '');
  const singular = resource.singular ?? many.replace(/s$/, '');
  return { many, one: `${/^[aeio]/i.test(singular) ? 'an' : 'a'} ${singular}` };
}

function permissionOf(resource: { permission: string }, write: boolean): string {
  return `${resource.permission}.${write ? 'manage' : 'view'}`;
}

/** Registers the routes a resource declares. Returns nothing: the declaration is the API. */
export function registerResource<T extends ListTable, S extends SelectedFields, R extends TObject, B extends TObject, P>(
  app: App,
  ctx: AppContext,
  declared: AdminResource<T, S, R, B, P>,
): void {
  // The hooks were typed against the declaration; from here on rows and bodies are only passed along.
  const resource = declared as unknown as AnyResource;
  const { table } = resource;
  const source = sourceOf(resource);
  const actions = new Set(resource.actions ?? ALL_ACTIONS);
  const tags = [resource.tag];
  const { many, one } = namesOf(resource);
  const itemPath = `${resource.path}/:${resource.param}`;
  const Params = idParams(resource.param);
  const Wrapped = Type.Object({ data: resource.record });
  const presentRow = resource.present ?? columnPresenter(resource.record, source.select);
  const present = (row: Row) => ({ data: presentRow(row) });
  const uniques = uniqueRules(resource);
  const copyColumns = columnCopier(resource);
  const touchesUpdatedAt = 'updatedAt' in getTableColumns(table);
  const idOf = (params: Record<string, number | undefined>): number => {
    const id = params[resource.param];
    if (id === undefined) throw new NotFoundError();
    return id;
  };

  async function insertRow(tx: Db, values: Record<string, unknown>): Promise<number> {
    // The hook's values are typed against the declared table; the database checks what is required.
    const [row] = await tx
      .insert(table)
      .values(values as PgInsertValue<ListTable>)
      .returning({ id: table.id });
    return row!.id;
  }

  async function updateRow(tx: Db, id: number, values: Record<string, unknown>): Promise<void> {
    const set: Record<string, unknown> = touchesUpdatedAt ? { ...values, updatedAt: sql`now()` } : values;
    if (Object.values(set).every((value) => value === undefined)) return;
    await tx.update(table).set(set).where(eq(table.id, id));
  }

  /** The unique constraint a failed write hit, as the 422 its rule describes. */
  function uniqueFailure(error: unknown): unknown {
    for (const rule of uniques) if (isUniqueViolation(error, rule.constraint)) return takenError(rule.field);
    return error;
  }

  async function write(request: FastifyRequest, sent: Body, action: 'create' | 'update', id: number | undefined) {
    const actor = currentUser(request);
    const body = resource.prepare === undefined ? sent : await resource.prepare(sent, action);
    return loggedTransaction(ctx.db, operationEntry(request), async (tx) => {
      const before = id === undefined ? undefined : await loadRecord(tx, source, id, true);
      if (id !== undefined && before === undefined) throw new NotFoundError();
      const w: WriteContext<Row> = { ctx, request, actor, tx, existing: before };
      const values: Record<string, unknown> = resource.values !== undefined ? await resource.values(body, w) : copyColumns(body);
      for (const rule of uniques) {
        const value = values[rule.key];
        if (value !== undefined) await mustBeUnique(tx, { table, column: rule.column, field: rule.field, value, exceptId: id });
      }
      let savedId = id;
      try {
        if (savedId === undefined) savedId = await insertRow(tx, values);
        else await updateRow(tx, savedId, values);
      } catch (error) {
        throw uniqueFailure(error);
      }
      await resource.afterWrite?.(savedId, body, w);
      const after = (await loadRecord(tx, source, savedId))!;
      return { id: savedId, before, after, body };
    });
  }

  if (actions.has('list')) {
    app.get(
      resource.path,
      {
        schema: {
          tags,
          summary:
            resource.sort === undefined
              ? `List ${many} (paginated, newest first)`
              : `List ${many} (paginated, by ${resource.sort.name} then id)`,
          querystring: listQuerySchema(source),
          response: { 200: pageSchema(resource.record), ...errorResponses },
        },
        config: { permission: permissionOf(resource, false) },
      },
      async (request) => {
        const page = await paginate(ctx.db, source, request.query, { base: ctx.config.appUrl, path: resource.path });
        return { ...page, data: page.data.map((row) => presentRow(row)) };
      },
    );
  }

  if (actions.has('show')) {
    app.get(
      itemPath,
      {
        schema: { tags, summary: `Show ${one}`, params: Params, response: { 200: Wrapped, ...errorResponses } },
        config: { permission: permissionOf(resource, false) },
      },
      async (request) => {
        const row = await statementsOf(ctx.db, source).detail(idOf(request.params));
        if (row === undefined) throw new NotFoundError();
        return present(row);
      },
    );
  }

  const createBody = resource.createBody;
  if (actions.has('create') && createBody !== undefined) {
    app.post(
      resource.path,
      {
        schema: { tags, summary: `Create ${one}`, body: createBody, response: { 201: Wrapped, ...errorResponses } },
        config: { permission: permissionOf(resource, true) },
      },
      async (request, reply) => {
        const result = await write(request, request.body, 'create', undefined);
        await resource.afterCommit?.({ action: 'create', ...result, actor: currentUser(request), request });
        return reply.code(201).send(present(result.after));
      },
    );
  }

  if (actions.has('update') && createBody !== undefined) {
    // A field sent empty is present and empty (docs/api.md section 4): what create requires is
    // "required" again, a nullable field becomes null; absent fields keep their value.
    const updateBody = partialUpdate(Type.Partial(createBody), createBody.required ?? []);
    for (const method of ['PUT', 'PATCH'] as const) {
      app.route({
        method,
        url: itemPath,
        schema: {
          tags,
          summary: method === 'PUT' ? `Update ${one} (fields left out keep their value)` : `Update ${one} (same as PUT)`,
          params: Params,
          body: updateBody,
          response: { 200: Wrapped, ...errorResponses },
        },
        // The record is looked up before the body is validated: a missing one is a 404 whatever the body.
        config: { permission: permissionOf(resource, true), pathRecord: { param: resource.param, exists: idExists(table) } },
        handler: async (request) => {
          const result = await write(request, request.body, 'update', idOf(request.params));
          await resource.afterCommit?.({ action: 'update', ...result, actor: currentUser(request), request });
          return present(result.after);
        },
      });
    }
  }

  if (actions.has('delete')) {
    recordDeleteRule(app, { path: resource.path, table: getTableName(table), inUse: resource.inUse });
    app.delete(
      itemPath,
      {
        schema: { tags, summary: `Delete ${one}`, params: Params, response: { 204: NoContent, ...errorResponses } },
        config: { permission: permissionOf(resource, true) },
      },
      async (request, reply) => {
        const id = idOf(request.params);
        const actor = currentUser(request);
        const before = await loggedTransaction(ctx.db, operationEntry(request), async (tx) => {
          const row = await loadRecord(tx, source, id, true);
          if (row === undefined) throw new NotFoundError();
          await resource.beforeDelete?.(row, { ctx, request, actor, tx, existing: row });
          await deleteUnlessKept(tx, table, id, resource.inUse);
          return row;
        });
        await resource.afterCommit?.({ action: 'delete', id, body: undefined, before, after: undefined, actor, request });
        return sendNoContent(reply);
      },
    );
  }
}
