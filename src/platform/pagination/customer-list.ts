import type { SQL } from 'drizzle-orm';
import type { PgColumn, SelectedFields } from 'drizzle-orm/pg-core';
import type { Static, TObject } from 'typebox';
import type { AppContext } from '../context.ts';
import type { App } from '../http/app.ts';
import { currentUser } from '../http/guard.ts';
import { columnPresenter } from '../http/record.ts';
import { errorResponses } from '../http/schemas.ts';
import { listQuerySchema, listSource, pageSchema, paginate, type ListSourceSpec, type RowOf } from './list.ts';

export interface CustomerList<S extends SelectedFields, R extends TObject> {
  path: string;
  tags: string[];
  summary: string;
  source: ListSourceSpec<S>;
  /**
   * What every page is pinned to, which no query string can set or lift: the signed-in user's own
   * rows (`owner`: the column holding their id), or what customers may see at all (`where`).
   */
  scope: { owner: PgColumn } | { where: SQL };
  record: R;
  /** Default: the record's fields from same-named columns (http/record.ts). */
  present?: (row: RowOf<S>) => Static<R>;
}

/**
 * A customer list (`config.auth`): the admin list machinery (same envelope, paging, filters and
 * from/to) under a scope the customer cannot change.
 */
export function registerCustomerList<S extends SelectedFields, R extends TObject>(
  app: App,
  ctx: AppContext,
  declared: CustomerList<S, R>,
): void {
  // Typed against the declaration; from here on rows are only passed to the presenter.
  const list = declared as unknown as CustomerList<SelectedFields, TObject>;
  const source = listSource({ ...list.source, ...list.scope });
  const owned = 'owner' in list.scope;
  const present = list.present ?? columnPresenter(list.record, source.select);
  app.get(
    list.path,
    {
      config: { auth: true },
      schema: {
        tags: list.tags,
        summary: list.summary,
        querystring: listQuerySchema(source),
        response: { 200: pageSchema(list.record), ...errorResponses },
      },
    },
    async (request) => {
      const url = { base: ctx.config.appUrl, path: list.path };
      const page = await paginate(ctx.db, source, request.query, url, owned ? currentUser(request).id : undefined);
      return { ...page, data: page.data.map((row) => present(row)) };
    },
  );
}
