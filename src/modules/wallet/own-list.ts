import { sql } from 'drizzle-orm';
import { IdFilter, listQuerySchema, paginate, type ListQuery, type ListSpec, type Page } from '../../platform/admin/list.ts';
import type { AppContext } from '../../platform/context.ts';

const OWNER = '__owner';

/**
 * A customer list: the admin list machinery (same envelope, paging, filters and from/to) with
 * every query pinned to the signed-in user through a filter no query string can set or clear.
 */
export function ownList(spec: ListSpec, ownerColumn = 'user_id') {
  const pinned: ListSpec = {
    ...spec,
    filters: {
      ...spec.filters,
      [OWNER]: { schema: IdFilter, where: (value: number, alias: string) => sql`${sql.raw(`${alias}.${ownerColumn}`)} = ${value}` },
    },
  };
  return {
    querySchema: listQuerySchema(spec),
    async page<Row>(ctx: AppContext, path: string, query: ListQuery, userId: number): Promise<Page<Row>> {
      const safe: ListQuery = { ...query };
      delete safe[OWNER];
      return paginate<Row>(ctx.db, pinned, { ...safe, [OWNER]: userId }, { base: ctx.config.appUrl, path });
    },
  };
}
