import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { one, sql } from '../../src/platform/db/client.ts';
import { useApp, type Client, type Response } from '../helpers/app.ts';

/** What a caller sees of an answer. */
function seen(res: Response): { status: number; json: unknown } {
  return { status: res.status, json: res.json };
}

/** Ways to write `id` that JavaScript's Number() reads as `id` but that are not its plain digits. */
function misspellings(id: number): string[] {
  return [
    `0x${id.toString(16)}`,
    `0X${id.toString(16).toUpperCase()}`,
    `0b${id.toString(2)}`,
    `0o${id.toString(8)}`,
    `%20%20${id}`,
    `${id}%20`,
    `%09${id}`,
    `%0A${id}`,
    `+${id}`,
    `%2B${id}`,
    `0${id}`,
    `00${id}`,
    `${id}.0`,
    `${id}.`,
    `${id}e0`,
    `${id * 10}e-1`,
  ];
}

async function permissionCount(client: Client): Promise<number> {
  return ((await client.get('/api/admin/permissions?per_page=1')).json as { meta: { total: number } }).meta.total;
}

describe('an integer in a URL is its plain decimal digits', () => {
  const ctx = useApp();

  test('a permission id written as 0x10, %20%201, 1e1, +1, -1, 01, 1.0 or 20 digits is the 404 `abc` gets, and deletes nothing', async () => {
    const { client } = await ctx().withRole('super-admin');
    const abc = seen(await client.delete('/api/admin/permissions/abc'));
    assert.deepEqual(abc, { status: 404, json: { message: 'Not found.' } });
    const before = await permissionCount(client);
    const spellings = ['0x10', '%20%201', '1e1', '+1', '-1', '01', '1.0', '99999999999999999999', '9223372036854775807'];
    for (const spelling of spellings) {
      assert.deepEqual(seen(await client.get(`/api/admin/permissions/${spelling}`)), abc, `GET ${spelling}`);
      assert.deepEqual(seen(await client.delete(`/api/admin/permissions/${spelling}`)), abc, `DELETE ${spelling}`);
    }
    for (const id of [1, 10, 16]) assert.equal((await client.get(`/api/admin/permissions/${id}`)).status, 200, `permission ${id} is kept`);
    assert.equal(await permissionCount(client), before);
  });

  test('an operation log id spelt as hex, padded, signed, zero-led, binary, octal or decimal is a 404, and the log is kept', async () => {
    const { client } = await ctx().withRole('super-admin');
    assert.equal((await client.post('/api/admin/permissions', { name: 'url-integers.view' })).status, 201);
    const log = await one<{ id: number }>(ctx().db, sql`select id::int as id from operation_logs order by id desc limit 1`);
    const id = log!.id;
    for (const spelling of [...misspellings(id), `-${id}`]) {
      assert.deepEqual(
        seen(await client.delete(`/api/admin/operation-logs/${spelling}`)),
        { status: 404, json: { message: 'Not found.' } },
        spelling,
      );
    }
    assert.equal((await client.get(`/api/admin/operation-logs/${id}`)).status, 200, 'the log is kept');
  });

  test('a game named by a zero-led id is no game, as by its plain id it is', async () => {
    const { client } = await ctx().withRole('super-admin');
    const created = await client.post('/api/admin/games', { name: 'Dice', code: 'url-integers-dice', type: 'dice3' });
    assert.equal(created.status, 201, created.text);
    const id = (created.json as { data: { id: number } }).data.id;
    assert.equal((await client.get(`/api/games/${id}`)).status, 200);
    assert.equal((await client.get('/api/games/url-integers-dice')).status, 200);
    for (const spelling of [`0${id}`, `00${id}`]) {
      assert.deepEqual(seen(await client.get(`/api/games/${spelling}`)), { status: 404, json: { message: 'Not found.' } }, spelling);
    }
  });

  test('an integer filter or page spelt as anything but plain digits is the 422 `abc` gets; plain digits still filter', async () => {
    const { client, id } = await ctx().withRole('super-admin');
    const lists: [string, string][] = [
      ['/api/admin/operation-logs', 'user_id'],
      ['/api/admin/transactions', 'user_id'],
      ['/api/admin/provider-games', 'provider_id'],
      ['/api/admin/users', 'page'],
      ['/api/admin/users', 'per_page'],
      ['/api/admin/users', 'status'],
    ];
    for (const [list, field] of lists) {
      const abc = seen(await client.get(`${list}?${field}=abc`));
      assert.equal(abc.status, 422, `${list}?${field}=abc`);
      // `+` in a query string is a space, so `+1` is a padded one and `%2B1` the signed one.
      for (const spelling of [...misspellings(1), '+1', '1e400', '', '1%26']) {
        assert.deepEqual(seen(await client.get(`${list}?${field}=${spelling}`)), abc, `${list}?${field}=${spelling}`);
      }
    }
    // A negative value keeps its own message, as before.
    const negative = await client.get('/api/admin/operation-logs?user_id=-1');
    assert.deepEqual(negative.json, {
      message: 'The user id field must be at least 1.',
      errors: { user_id: ['The user id field must be at least 1.'] },
    });
    // A misspelt value and another bad field are both reported, each once, in the schema's order.
    const both = await client.get('/api/admin/users?per_page=0x10&page=0');
    assert.deepEqual((both.json as { errors: unknown }).errors, {
      page: ['The page field must be at least 1.'],
      per_page: ['The per page field must be an integer.'],
    });

    const mine = await client.get(`/api/admin/operation-logs?user_id=${id}`);
    assert.equal(mine.status, 200, mine.text);
    assert.ok((mine.json as { data: { user_id: number }[] }).data.every((row) => row.user_id === id));
    const second = await client.get('/api/admin/permissions?page=2&per_page=5');
    assert.equal(second.status, 200, second.text);
    assert.equal((second.json as { meta: { current_page: number; per_page: number } }).meta.current_page, 2);
    assert.equal((await client.get('/api/admin/users?status=0')).status, 200);
  });
});
