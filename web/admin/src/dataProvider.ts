import { plain } from '../../shared/text.ts';
import { HttpError, type DataProvider, type GetListParams, type RaRecord } from 'react-admin';
import { api, ApiError } from '../../shared/api.ts';

/** Screens whose records live under another admin path (players are users). */
const PATHS: Record<string, string> = { players: 'users' };
/** The API's page size cap (docs/api.md section 4): a longer list (an export) is read page by page. */
const MAX_PAGE = 100;

interface LaravelList {
  data: Record<string, unknown>[];
  meta: { current_page: number; last_page: number; per_page: number; total: number };
}

export function adminPath(resource: string): string {
  return `/api/admin/${PATHS[resource] ?? resource}`;
}

/** Records need an `id`: identities are keyed by their user. */
function withId(record: Record<string, unknown>): RaRecord {
  return ('id' in record ? record : { ...record, id: record.user_id }) as RaRecord;
}

function query(filter: Record<string, unknown>, page: number, perPage: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : plain(value));
  }
  params.set('page', String(page));
  params.set('per_page', String(perPage));
  return params.toString();
}

async function page(resource: string, filter: Record<string, unknown>, number: number, perPage: number): Promise<LaravelList> {
  return (await api.get<LaravelList>(`${adminPath(resource)}?${query(filter, number, perPage)}`)).body;
}

/** Every record of the filtered list, newest first (what an export writes). */
export async function allRecords(resource: string, filter: Record<string, unknown>): Promise<RaRecord[]> {
  const first = await page(resource, filter, 1, MAX_PAGE);
  const records = [...first.data];
  for (let number = 2; number <= first.meta.last_page; number++) records.push(...(await page(resource, filter, number, MAX_PAGE)).data);
  return records.map(withId);
}

/**
 * The API lists newest first only; oldest first (a queue) reads the same pages from the other end:
 * the positions wanted, counted from the newest, and the one or two API pages that hold them.
 */
async function oldestFirst(resource: string, filter: Record<string, unknown>, number: number, perPage: number) {
  const total = (await page(resource, filter, 1, 1)).meta.total;
  const end = total - (number - 1) * perPage;
  const start = Math.max(0, total - number * perPage);
  if (end <= 0) return { data: [], total };
  const rows: Record<string, unknown>[] = [];
  const firstPage = Math.floor(start / perPage) + 1;
  const lastPage = Math.floor((end - 1) / perPage) + 1;
  for (let p = firstPage; p <= lastPage; p++) rows.push(...(await page(resource, filter, p, perPage)).data);
  const offset = start - (firstPage - 1) * perPage;
  return {
    data: rows
      .slice(offset, offset + (end - start))
      .reverse()
      .map(withId),
    total,
  };
}

async function getList(resource: string, params: GetListParams) {
  const filter = { ...(params.filter as Record<string, unknown>) };
  const { page: number, perPage } = params.pagination ?? { page: 1, perPage: 15 };
  if (params.sort?.order === 'ASC' && params.sort.field === 'id') return oldestFirst(resource, filter, number, Math.min(perPage, MAX_PAGE));
  if (perPage > MAX_PAGE) {
    const data = await allRecords(resource, filter);
    return { data, total: data.length };
  }
  const body = await page(resource, filter, number, perPage);
  return { data: body.data.map(withId), total: body.meta.total };
}

async function getOne(resource: string, id: unknown): Promise<RaRecord> {
  const body = (await api.get<{ data: Record<string, unknown> }>(`${adminPath(resource)}/${encodeURIComponent(String(id))}`)).body;
  return withId(body.data);
}

/**
 * A refused write as react-admin shows it: the API's message (its first field error for a 422),
 * and each field's first error beside its input.
 */
async function writing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const errors = Object.fromEntries(Object.entries(error.errors).map(([field, messages]) => [field, messages[0] ?? '']));
    const first = Object.values(errors)[0];
    throw new HttpError(first ?? error.message, error.status, Object.keys(errors).length > 0 ? { errors } : error.body);
  }
}

export const dataProvider: DataProvider = {
  getList: (resource, params) => getList(resource, params) as never,
  getOne: async (resource, params) => ({ data: (await getOne(resource, params.id)) as never }),
  getMany: async (resource, params) => ({ data: (await Promise.all(params.ids.map((id) => getOne(resource, id)))) as never }),
  getManyReference: (resource, params) =>
    getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } }) as never,
  create: (resource, params) =>
    writing(async () => ({
      data: withId((await api.post<{ data: Record<string, unknown> }>(adminPath(resource), params.data)).body.data) as never,
    })),
  update: (resource, params) =>
    writing(async () => ({
      data: withId(
        (await api.put<{ data: Record<string, unknown> }>(`${adminPath(resource)}/${params.id}`, params.data)).body.data,
      ) as never,
    })),
  updateMany: async (resource, params) => {
    for (const id of params.ids) await api.put(`${adminPath(resource)}/${id}`, params.data);
    return { data: params.ids };
  },
  delete: (resource, params) =>
    writing(async () => {
      await api.delete(`${adminPath(resource)}/${params.id}`);
      return { data: params.previousData as never };
    }),
  deleteMany: async (resource, params) => {
    for (const id of params.ids) await api.delete(`${adminPath(resource)}/${id}`);
    return { data: params.ids };
  },
};
