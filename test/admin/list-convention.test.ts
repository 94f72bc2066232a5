import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { asc, sql } from 'drizzle-orm';
import { integer, pgTable } from 'drizzle-orm/pg-core';
import { instant, int8 } from '../../src/platform/db/columns.ts';
import { listSource, paginate } from '../../src/platform/pagination/list.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { page } from './support.ts';

const sortedThings = pgTable('sorted_things', {
  id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
  sort: integer('sort').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
});

interface Bank {
  id: number;
  name: string;
  code: string;
}

describe('admin list convention', () => {
  const ctx = useApp({ APP_URL: 'https://api.example.test' });
  let admin: SignedIn;
  let ids: number[];

  before(async () => {
    admin = await ctx().withRole('super-admin');
    ids = [];
    for (let i = 1; i <= 23; i++) {
      const res = await admin.client.post('/api/admin/banks', {
        name: `List Bank ${i}`,
        code: `list-${i}`,
        currenry: i % 2 === 0 ? 'BRL' : 'USD',
      });
      ids.push((res.json as { data: Bank }).data.id);
    }
  });

  test('the first page has 15 records newest first and the Laravel envelope with absolute links', async () => {
    const res = await admin.client.get('/api/admin/banks');
    assert.equal(res.status, 200);
    const list = page<Bank>(res.json);
    assert.deepEqual(
      list.data.map((b) => b.id),
      [...ids].reverse().slice(0, 15),
    );
    assert.deepEqual(list.links, {
      first: 'https://api.example.test/api/admin/banks?page=1',
      last: 'https://api.example.test/api/admin/banks?page=2',
      prev: null,
      next: 'https://api.example.test/api/admin/banks?page=2',
    });
    assert.deepEqual(list.meta, {
      current_page: 1,
      from: 1,
      last_page: 2,
      path: 'https://api.example.test/api/admin/banks',
      per_page: 15,
      to: 15,
      total: 23,
    });
  });

  test('per_page is carried in the links, a page past the end is empty with null from/to', async () => {
    const res = await admin.client.get('/api/admin/banks?per_page=10&page=3');
    const list = page<Bank>(res.json);
    assert.deepEqual(
      list.data.map((b) => b.id),
      [...ids].reverse().slice(20, 23),
    );
    assert.equal(list.links.prev, 'https://api.example.test/api/admin/banks?page=2&per_page=10');
    assert.equal(list.links.next, null);
    assert.deepEqual([list.meta.from, list.meta.to, list.meta.last_page], [21, 23, 3]);
    const past = page<Bank>((await admin.client.get('/api/admin/banks?per_page=10&page=9')).json);
    assert.deepEqual(past.data, []);
    assert.deepEqual([past.meta.from, past.meta.to, past.meta.current_page], [null, null, 9]);
  });

  test('per_page over 100 reads as 100; a page that is not a positive integer is a 422', async () => {
    const list = page<Bank>((await admin.client.get('/api/admin/banks?per_page=500')).json);
    assert.equal(list.meta.per_page, 100);
    assert.equal(list.data.length, 23);
    const bad = await admin.client.get('/api/admin/banks?page=0');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json, { message: 'The page field must be at least 1.', errors: { page: ['The page field must be at least 1.'] } });
  });

  test('filters match exactly, q matches part of a text case-insensitively, % and _ are literal', async () => {
    const usd = page<Bank>((await admin.client.get('/api/admin/banks?currenry=USD&per_page=100')).json);
    assert.equal(usd.meta.total, 12);
    const q = page<Bank>((await admin.client.get('/api/admin/banks?q=list%20BANK%202')).json);
    assert.deepEqual(q.data.map((b) => b.name).sort(), ['List Bank 2', 'List Bank 20', 'List Bank 21', 'List Bank 22', 'List Bank 23']);
    assert.equal(page((await admin.client.get('/api/admin/banks?q=%25')).json).meta.total, 0);
    assert.equal(page((await admin.client.get('/api/admin/banks?code=list-1')).json).meta.total, 1);
  });

  test('from/to bound created_at inclusively, a bare date meaning the whole UTC day', async () => {
    await ctx().db.execute(sql`update banks set created_at = '2026-01-10T23:59:59.999Z' where code = 'list-1'`);
    await ctx().db.execute(sql`update banks set created_at = '2026-01-11T00:00:00.000Z' where code = 'list-2'`);
    const day = page<Bank>((await admin.client.get('/api/admin/banks?from=2026-01-10&to=2026-01-10')).json);
    assert.deepEqual(
      day.data.map((b) => b.code),
      ['list-1'],
    );
    const exact = page<Bank>((await admin.client.get('/api/admin/banks?from=2026-01-10T23:59:59.999Z&to=2026-01-11T00:00:00Z')).json);
    assert.deepEqual(
      exact.data.map((b) => b.code),
      ['list-2', 'list-1'],
    );
    const bad = await admin.client.get('/api/admin/banks?to=2026-13-45');
    assert.equal(bad.status, 422);
  });

  test('with a sort column every page, read from either end, follows sort asc then id asc', async () => {
    await ctx().db.execute(
      sql`create table sorted_things (id bigint generated always as identity primary key, sort int not null, created_at timestamptz not null default now())`,
    );
    await ctx().db.execute(sql`insert into sorted_things (sort) select (g * 7) % 5 from generate_series(1, 37) g`);
    const expected = (
      await ctx().db.select({ id: sortedThings.id }).from(sortedThings).orderBy(asc(sortedThings.sort), asc(sortedThings.id))
    ).map((row) => row.id);
    const source = listSource({ table: sortedThings, select: { id: sortedThings.id }, sort: sortedThings.sort });
    const seen: number[] = [];
    for (let n = 1; n <= 5; n++) {
      const result = await paginate(ctx().db, source, { page: n, per_page: 8 }, { base: 'http://x', path: '/p' });
      seen.push(...result.data.map((row) => row.id));
    }
    assert.deepEqual(seen, expected);
  });

  test('newest-first pages read from either end join up without gap or overlap', async () => {
    const seen: number[] = [];
    for (let n = 1; n <= 5; n++) {
      const list = page<Bank>((await admin.client.get(`/api/admin/banks?per_page=5&page=${n}`)).json);
      seen.push(...list.data.map((b) => b.id));
    }
    assert.deepEqual(seen, [...ids].reverse());
  });
});
