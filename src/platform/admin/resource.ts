/**
 * The admin list/CRUD convention: every `/api/admin/<resource>` set is declared, not written.
 *
 * How to use (a short file per resource, see src/modules/banks/admin-banks.ts):
 *
 *   export const banksResource = defineResource<BankRow, BankBody>({
 *     path: '/api/admin/banks', param: 'bank', permission: 'banks', tag: 'Admin: banks',
 *     table: 'banks', record: BankRecord, present: presentBank,
 *     createBody: BankBody,                 // updateBody defaults to Type.Partial(createBody)
 *     writable: ['name', 'code', 'currenry'], // body fields copied to same-named columns
 *     unique: [{ field: 'code', column: 'code' }],
 *     filters: { currenry: { schema: Type.String() } }, search: ['name', 'code'],
 *   });
 *   registerResource(app, ctx, banksResource);   // in the module's routes.ts
 *
 * What you get: GET list (Laravel paginated envelope, `page`/`per_page` ≤ 100, filters, `q`,
 * `from`/`to` on created_at, order id desc or `sort asc, id asc` when `sort` is set), GET detail,
 * POST (201), PUT and PATCH (partial: absent fields keep their value; a field sent as "" or null
 * is "required" when create requires it, else null or its type's 422), DELETE (204), each as
 * `{data}`; permission `<permission>.view` for reads and `<permission>.manage` for writes; 404 for
 * a missing or malformed id; 422 with Laravel's messages; every write in one transaction with its
 * operation-log row (operation-log.ts beside this file).
 *
 * Rules go in hooks, all optional: `prepare` (before the transaction: slow pure work such as
 * password hashing), `values` (body → column values, inside the transaction; may throw
 * ValidationError), `afterWrite` (join tables), `beforeDelete` (refusals), `afterCommit` (side
 * effects that must not run on rollback, e.g. ending sessions). `actions` limits the routes.
 * Rows come from `select` (over `alias`, default `t.*`) and must include `id`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql, type SQL } from 'drizzle-orm';
import { Type, type TSchema } from 'typebox';
import type { AuthUser } from '../auth/identity.ts';
import type { AppContext } from '../context.ts';
import { errorCode, isUniqueViolation, one, type Db } from '../db/client.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { currentUser } from '../http/guard.ts';
import { errorResponses, NoContent, sendNoContent } from '../http/schemas.ts';
import { listQuerySchema, pageSchema, paginate, type Filter, type ListQuery, type ListSpec } from './list.ts';
import { adminTransaction } from './operation-log.ts';
import { mustBeUnique, takenError } from './rules.ts';
import { partialUpdate } from '../validation.ts';

export type Action = 'list' | 'show' | 'create' | 'update' | 'delete';
const ALL_ACTIONS: Action[] = ['list', 'show', 'create', 'update', 'delete'];

export interface RowWithId {
  id: number | string;
}

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

export interface CommitEvent<Row, Body> {
  action: 'create' | 'update' | 'delete';
  id: number;
  body: Body;
  before: Row | undefined;
  after: Row | undefined;
  actor: AuthUser;
  request: FastifyRequest;
}

export interface UniqueRule {
  /** Body field reported in the 422. */
  field: string;
  /** Column compared (after `values`), and whose unique constraint is mapped to the same 422. */
  column: string;
  constraint?: string;
}

export interface AdminResource<Row extends RowWithId, Body> {
  /** Collection path, e.g. `/api/admin/users`. */
  path: string;
  /** Item path parameter name, e.g. `user` for `/api/admin/users/:user`. */
  param: string;
  /** Permission base: `users` → `users.view` for reads, `users.manage` for writes. */
  permission: string;
  tag: string;
  table: string;
  alias?: string;
  select?: SQL;
  record: TSchema;
  present(row: Row): unknown;
  filters?: Record<string, Filter>;
  search?: string[];
  sort?: string;
  /** Column of `from`/`to`; `null` for records without time. Default `created_at`. */
  timestamp?: string | null;
  actions?: Action[];
  createBody?: TSchema;
  updateBody?: TSchema;
  writable?: string[];
  unique?: UniqueRule[];
  /** Message of the 409 when a delete is refused by a foreign key (rows still refer to it). */
  inUse?: string;
  prepare?(body: Body, action: 'create' | 'update'): Promise<Body>;
  values?(body: Body, w: WriteContext<Row>): Promise<Record<string, unknown>>;
  afterWrite?(id: number, body: Body, w: WriteContext<Row>): Promise<void>;
  beforeDelete?(row: Row, w: WriteContext<Row>): Promise<void>;
  afterCommit?(event: CommitEvent<Row, Body>): Promise<void>;
}

/** Identity function that gives a declaration its types. */
export function defineResource<Row extends RowWithId, Body = Record<string, unknown>>(
  resource: AdminResource<Row, Body>,
): AdminResource<Row, Body> {
  return resource;
}

const MAX_ID = Number.MAX_SAFE_INTEGER;

export function listSpecOf(resource: AdminResource<RowWithId, unknown>): ListSpec {
  const alias = resource.alias ?? 't';
  return {
    table: resource.table,
    alias,
    select: resource.select ?? sql.raw(`${alias}.*`),
    filters: resource.filters ?? {},
    search: resource.search ?? [],
    sort: resource.sort,
    timestamp: resource.timestamp === undefined ? 'created_at' : resource.timestamp,
  };
}

/** Reads one record as the list does, optionally row-locked for a write. */
export async function loadRecord<Row>(db: Db, spec: ListSpec, id: number, lock = false): Promise<Row | undefined> {
  const alias = sql.raw(spec.alias);
  const forUpdate = lock ? sql` for update of ${alias}` : sql``;
  return one<Row>(db, sql`select ${spec.select} from ${sql.identifier(spec.table)} ${alias} where ${alias}.id = ${id}${forUpdate}`);
}

function copyWritable(body: unknown, writable: string[] | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of writable ?? []) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined) values[field] = value;
  }
  return values;
}

async function insertRow(tx: Db, table: string, values: Record<string, unknown>): Promise<number> {
  const columns = Object.keys(values);
  const row = await one<{ id: number | string }>(
    tx,
    sql`insert into ${sql.identifier(table)} (${sql.join(
      columns.map((c) => sql.identifier(c)),
      sql`, `,
    )}) values (${sql.join(
      columns.map((c) => sql`${values[c]}`),
      sql`, `,
    )}) returning id`,
  );
  return Number(row!.id);
}

async function updateRow(tx: Db, table: string, id: number, values: Record<string, unknown>): Promise<void> {
  const sets = Object.entries(values).map(([column, value]) => sql`${sql.identifier(column)} = ${value}`);
  sets.push(sql`updated_at = now()`);
  await tx.execute(sql`update ${sql.identifier(table)} set ${sql.join(sets, sql`, `)} where id = ${id}`);
}

/** The unique constraint a failed write hit, as the 422 its rule describes. */
function uniqueFailure(error: unknown, rules: UniqueRule[]): Error {
  for (const rule of rules) {
    if (isUniqueViolation(error, rule.constraint ?? `${rule.column}_unique`)) return takenError(rule.field);
  }
  return error as Error;
}

function permissionOf(resource: { permission: string }, write: boolean): string {
  return `${resource.permission}.${write ? 'manage' : 'view'}`;
}

/** Registers the routes a resource declares. Returns nothing: the declaration is the API. */
export function registerResource<Row extends RowWithId, Body>(
  app: FastifyInstance,
  ctx: AppContext,
  resource: AdminResource<Row, Body>,
): void {
  const generic = resource as unknown as AdminResource<RowWithId, unknown>;
  const spec = listSpecOf(generic);
  const actions = new Set(resource.actions ?? ALL_ACTIONS);
  const tags = [resource.tag];
  const itemPath = `${resource.path}/:${resource.param}`;
  const Params = Type.Object({ [resource.param]: Type.Integer({ minimum: 1, maximum: MAX_ID }) });
  const Wrapped = Type.Object({ data: resource.record });
  const idOf = (request: FastifyRequest): number => (request.params as Record<string, number>)[resource.param]!;
  const present = (row: Row): { data: unknown } => ({ data: resource.present(row) });
  const uniques = resource.unique ?? [];

  async function write(
    request: FastifyRequest,
    action: 'create' | 'update',
    id: number | undefined,
  ): Promise<{ id: number; before: Row | undefined; after: Row; body: Body }> {
    const actor = currentUser(request);
    let body = (request.body ?? {}) as Body;
    if (resource.prepare !== undefined) body = await resource.prepare(body, action);
    return adminTransaction(ctx, request, async (tx) => {
      const before = id === undefined ? undefined : await loadRecord<Row>(tx, spec, id, true);
      if (id !== undefined && before === undefined) throw new NotFoundError();
      const w: WriteContext<Row> = { ctx, request, actor, tx, existing: before };
      const values = resource.values !== undefined ? await resource.values(body, w) : copyWritable(body, resource.writable);
      for (const rule of uniques) {
        if (values[rule.column] === undefined) continue;
        await mustBeUnique(tx, { table: resource.table, column: rule.column, field: rule.field, value: values[rule.column], exceptId: id });
      }
      let savedId: number;
      try {
        if (id === undefined) savedId = await insertRow(tx, resource.table, values);
        else {
          await updateRow(tx, resource.table, id, values);
          savedId = id;
        }
      } catch (error) {
        throw uniqueFailure(error, uniques);
      }
      await resource.afterWrite?.(savedId, body, w);
      const after = await loadRecord<Row>(tx, spec, savedId);
      return { id: savedId, before, after: after!, body };
    });
  }

  if (actions.has('list')) {
    app.get(
      resource.path,
      {
        schema: {
          tags,
          summary: resource.sort === undefined ? 'List (paginated, newest first)' : `List (paginated, by ${resource.sort} then id)`,
          querystring: listQuerySchema(spec),
          response: { 200: pageSchema(resource.record), ...errorResponses },
        },
        config: { permission: permissionOf(resource, false) },
      },
      async (request) => {
        const page = await paginate<Row>(ctx.db, spec, request.query as ListQuery, { base: ctx.config.appUrl, path: resource.path });
        return { ...page, data: page.data.map((row) => resource.present(row)) };
      },
    );
  }

  if (actions.has('show')) {
    app.get(
      itemPath,
      {
        schema: { tags, summary: 'Show one', params: Params, response: { 200: Wrapped, ...errorResponses } },
        config: { permission: permissionOf(resource, false) },
      },
      async (request) => {
        const row = await loadRecord<Row>(ctx.db, spec, idOf(request));
        if (row === undefined) throw new NotFoundError();
        return present(row);
      },
    );
  }

  if (actions.has('create') && resource.createBody !== undefined) {
    app.post(
      resource.path,
      {
        schema: { tags, summary: 'Create', body: resource.createBody, response: { 201: Wrapped, ...errorResponses } },
        config: { permission: permissionOf(resource, true) },
      },
      async (request, reply: FastifyReply) => {
        const result = await write(request, 'create', undefined);
        await resource.afterCommit?.({ action: 'create', ...result, actor: currentUser(request), request });
        return reply.code(201).send(present(result.after));
      },
    );
  }

  if (actions.has('update') && resource.createBody !== undefined) {
    // A field sent empty is present and empty (contract section 4): what create requires is
    // "required" again, a nullable field becomes null; absent fields keep their value.
    const required = (resource.createBody as { required?: string[] }).required ?? [];
    const updateBody = partialUpdate(resource.updateBody ?? Type.Partial(resource.createBody as never), required);
    for (const method of ['PUT', 'PATCH'] as const) {
      app.route({
        method,
        url: itemPath,
        schema: {
          tags,
          summary: method === 'PUT' ? 'Update (fields left out keep their value)' : 'Update (same as PUT)',
          params: Params,
          body: updateBody,
          response: { 200: Wrapped, ...errorResponses },
        },
        config: { permission: permissionOf(resource, true) },
        handler: async (request) => {
          const result = await write(request, 'update', idOf(request));
          await resource.afterCommit?.({ action: 'update', ...result, actor: currentUser(request), request });
          return present(result.after);
        },
      });
    }
  }

  if (actions.has('delete')) {
    app.delete(
      itemPath,
      {
        schema: { tags, summary: 'Delete', params: Params, response: { 204: NoContent, ...errorResponses } },
        config: { permission: permissionOf(resource, true) },
      },
      async (request, reply) => {
        const id = idOf(request);
        const actor = currentUser(request);
        const before = await adminTransaction(ctx, request, async (tx) => {
          const row = await loadRecord<Row>(tx, spec, id, true);
          if (row === undefined) throw new NotFoundError();
          await resource.beforeDelete?.(row, { ctx, request, actor, tx, existing: row });
          try {
            await tx.execute(sql`delete from ${sql.identifier(resource.table)} where id = ${id}`);
          } catch (error) {
            if (['23503', '23001'].includes(errorCode(error) ?? '') && resource.inUse !== undefined)
              throw new ConflictError(resource.inUse);
            throw error;
          }
          return row;
        });
        await resource.afterCommit?.({ action: 'delete', id, body: {} as Body, before, after: undefined, actor, request });
        return sendNoContent(reply);
      },
    );
  }
}
