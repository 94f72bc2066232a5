import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { bigserial, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { Type } from 'typebox';
import { defineResource, registerResource } from '../../src/platform/admin/resource.ts';
import { one } from '../../src/platform/db/client.ts';
import { instant } from '../../src/platform/db/columns.ts';
import { useApp } from '../helpers/app.ts';
import { countLogs, data } from './support.ts';

const testNotes = pgTable('test_notes', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  title: text('title').notNull(),
  body: text('body'),
  rank: integer('rank').notNull().default(0),
  createdAt: instant('created_at').notNull().defaultNow(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});

/** A resource with a required, a nullable and an optional non-nullable column, on its own table. */
const notesResource = defineResource({
  path: '/api/admin/test-notes',
  param: 'note',
  permission: 'test-notes',
  tag: 'Test',
  table: testNotes,
  record: Type.Object({ id: Type.Integer(), title: Type.String(), body: Type.Union([Type.String(), Type.Null()]), rank: Type.Integer() }),
  createBody: Type.Object({
    title: Type.String({ maxLength: 255 }),
    body: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    rank: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  }),
});

describe('a field sent empty on a partial update is present and empty', () => {
  const ctx = useApp({}, { extraRoutes: (app, appCtx) => registerResource(app, appCtx, notesResource) });
  before(async () => {
    await ctx().db.execute(sql`create table test_notes (id bigserial primary key, title text not null, body text,
      rank integer not null default 0, created_at timestamptz not null default now(), updated_at timestamptz not null default now())`);
  });

  async function note(): Promise<number> {
    const row = await one<{ id: number }>(ctx().db, sql`insert into test_notes (title, body, rank) values ('T', 'B', 5) returning id`);
    return Number(row!.id);
  }

  test('PUT {"name": ""} on a role is 422 "The name field is required." and changes nothing', async () => {
    const { client } = await ctx().withRole('super-admin');
    const created = await client.post('/api/admin/roles', { name: 'editors' });
    const id = data<{ id: number }>(created.json).id;
    const logs = await countLogs(ctx());
    for (const [method, body] of [
      ['PUT', { name: '' }],
      ['PATCH', { name: null }],
      ['PUT', { name: '   ' }],
    ] as const) {
      const res = await client.request(method, `/api/admin/roles/${id}`, body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json, { message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
    }
    assert.equal(data<{ name: string }>((await client.get(`/api/admin/roles/${id}`)).json).name, 'editors');
    assert.equal(await countLogs(ctx()), logs, 'a refused change writes no operation log');
  });

  test('an update of a record that does not exist is 404 whatever the body, as the record in the path is looked up first', async () => {
    const { client } = await ctx().withRole('super-admin');
    for (const [method, body] of [
      ['PUT', { title: '' }],
      ['PATCH', { rank: 'many' }],
      ['PUT', { title: 'fine' }],
    ] as const) {
      const res = await client.request(method, '/api/admin/test-notes/987654321', body);
      assert.equal(res.status, 404, `${method} ${JSON.stringify(body)}: ${res.text}`);
      assert.deepEqual(res.json, { message: 'Not found.' });
    }
    const res = await client.put(`/api/admin/test-notes/${await note()}`, { rank: 'many' });
    assert.equal(res.status, 422, 'the same body on a record that exists is validated');
  });

  test('a required field sent empty is "required", once, whatever else its rules say', async () => {
    const { client } = await ctx().withRole('super-admin');
    const id = await note();
    const res = await client.put(`/api/admin/test-notes/${id}`, { title: '', rank: 3 });
    assert.deepEqual(res.json, { message: 'The title field is required.', errors: { title: ['The title field is required.'] } });
    assert.equal((await one<{ rank: number }>(ctx().db, sql`select rank from test_notes where id = ${id}`))!.rank, 5);
  });

  test('a nullable field sent as "" or null becomes null', async () => {
    const { client } = await ctx().withRole('super-admin');
    for (const empty of ['', null]) {
      const id = await note();
      const res = await client.patch(`/api/admin/test-notes/${id}`, { body: empty });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(data(res.json), { id, title: 'T', body: null, rank: 5 });
    }
  });

  test('an optional field that is not nullable, sent empty, fails its type', async () => {
    const { client } = await ctx().withRole('super-admin');
    const id = await note();
    const res = await client.put(`/api/admin/test-notes/${id}`, { rank: '' });
    assert.deepEqual(res.json, { message: 'The rank field must be an integer.', errors: { rank: ['The rank field must be an integer.'] } });
  });

  test('absent fields keep their value, and create still reads "" as missing', async () => {
    const { client } = await ctx().withRole('super-admin');
    const id = await note();
    const res = await client.put(`/api/admin/test-notes/${id}`, { title: '  New  ' });
    assert.deepEqual(data(res.json), { id, title: 'New', body: 'B', rank: 5 });
    const created = await client.post('/api/admin/test-notes', { title: 'C', body: '', rank: null });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(data<{ body: unknown; rank: number }>(created.json), {
      id: data<{ id: number }>(created.json).id,
      title: 'C',
      body: null,
      rank: 0,
    });
  });
});
