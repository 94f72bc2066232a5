import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { uniqueEmail, useApp } from '../helpers/app.ts';
import { countLogs, data, lastLog, page } from './support.ts';

interface User {
  id: number;
  name: string;
  email: string;
  ref: number;
  roles: string[];
  two_factor_enabled: boolean;
  email_verified_at: string | null;
  is_partner: boolean;
  status: number;
  created_at: string;
  updated_at: string;
}

describe('admin users', () => {
  const ctx = useApp();

  test('creating a user answers 201 with the contract user record and never the password', async () => {
    const { client } = await ctx().withRole('super-admin');
    const email = uniqueEmail('Created');
    const res = await client.post('/api/admin/users', {
      email: email.toUpperCase(),
      name: 'New Person',
      password: 'secret-pass',
      is_partner: true,
    });
    assert.equal(res.status, 201);
    const user = data<User>(res.json);
    assert.deepEqual(Object.keys(user).sort(), [
      'created_at',
      'email',
      'email_verified_at',
      'id',
      'is_partner',
      'name',
      'ref',
      'roles',
      'status',
      'two_factor_enabled',
      'updated_at',
    ]);
    assert.equal(user.email, email.toLowerCase());
    assert.deepEqual(user.roles, ['player']);
    assert.equal(user.status, 1);
    assert.equal(user.is_partner, true);
    assert.equal(user.ref, 0);
    assert.equal(res.text.includes('secret-pass'), false);
    const stored = await one<{ password: string }>(ctx().db, sql`select password from users where id = ${user.id}`);
    assert.match(stored!.password, /^\$argon2id\$/);

    // The new account signs in with that password.
    const login = ctx().client();
    await login.csrf();
    assert.equal((await login.post('/api/login', { email, password: 'secret-pass' })).status, 200);
  });

  test('the password is redacted in the operation log of the change', async () => {
    const admin = await ctx().withRole('super-admin');
    const res = await admin.client.post('/api/admin/users', {
      email: uniqueEmail('logged'),
      name: 'Logged',
      password: 'secret-pass',
      password_confirmation: 'secret-pass',
    });
    assert.equal(res.status, 201);
    const log = await lastLog(ctx());
    assert.equal(log.path, '/api/admin/users');
    assert.equal(log.method, 'POST');
    assert.equal(Number(log.user_id), admin.id);
    assert.equal(log.payload.password, '[redacted]');
    assert.equal(log.payload.password_confirmation, '[redacted]');
    assert.equal(log.payload.name, 'Logged');
  });

  test('an e-mail already taken in any letter case is a 422 and writes nothing', async () => {
    const { client } = await ctx().withRole('super-admin');
    const existing = await ctx().player();
    const logs = await countLogs(ctx());
    const res = await client.post('/api/admin/users', { email: existing.email.toUpperCase(), name: 'Dup', password: 'password1' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, { message: 'The email has already been taken.', errors: { email: ['The email has already been taken.'] } });
    assert.equal(await countLogs(ctx()), logs);
  });

  test('a create without fields lists every required field in Laravel wording', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/users', {});
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The email field is required. (and 2 more errors)',
      errors: {
        email: ['The email field is required.'],
        name: ['The name field is required.'],
        password: ['The password field is required.'],
      },
    });
    const bad = await client.post('/api/admin/users', { email: 'not-an-email', name: 'x', password: 'short', status: 3, roles: ['nope'] });
    assert.equal(bad.status, 422);
    const errors = (bad.json as { errors: Record<string, string[]> }).errors;
    assert.deepEqual(errors.email, ['The email field must be a valid email address.']);
    assert.deepEqual(errors.password, ['The password field must be at least 8 characters.']);
    assert.deepEqual(errors.status, ['The selected status is invalid.']);
  });

  test('an unknown role name is a 422 on that entry', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/users', {
      email: uniqueEmail(),
      name: 'R',
      password: 'password1',
      roles: ['admin', 'wizard'],
    });
    assert.equal(res.status, 422);
    assert.deepEqual((res.json as { errors: unknown }).errors, { 'roles.1': ['The selected roles.1 is invalid.'] });
  });

  test('an update keeps the fields it does not send and can change roles', async () => {
    const { client } = await ctx().withRole('super-admin');
    const player = await ctx().player({ name: 'Before' });
    const res = await client.put(`/api/admin/users/${player.id}`, { name: 'After', roles: ['admin'] });
    assert.equal(res.status, 200);
    const user = data<User>(res.json);
    assert.equal(user.name, 'After');
    assert.equal(user.email, player.email);
    assert.deepEqual(user.roles, ['admin']);
    // The new role takes effect on the user's next request.
    assert.equal((await player.client.get('/api/admin/banks')).status, 200);
  });

  test('disabling a user ends their sessions and their login then says the account is disabled', async () => {
    const { client } = await ctx().withRole('super-admin');
    const player = await ctx().player();
    assert.equal((await player.client.get('/api/user')).status, 200);
    const res = await client.put(`/api/admin/users/${player.id}`, { status: 0 });
    assert.equal(res.status, 200);
    assert.equal(data<User>(res.json).status, 0);
    assert.equal((await player.client.get('/api/user')).status, 401);
    const sessions = await one<{ n: number }>(ctx().db, sql`select count(*)::int as n from sessions where user_id = ${player.id}`);
    assert.equal(sessions!.n, 0);
    const again = ctx().client();
    await again.csrf();
    const login = await again.post('/api/login', { email: player.email, password: player.password });
    assert.equal(login.status, 422);
    assert.deepEqual(login.json, { message: 'This account is disabled.', errors: { email: ['This account is disabled.'] } });
  });

  test('an admin cannot disable or delete their own account', async () => {
    const admin = await ctx().withRole('admin');
    const disable = await admin.client.put(`/api/admin/users/${admin.id}`, { status: 0 });
    assert.equal(disable.status, 422);
    assert.deepEqual(disable.json, {
      message: 'You cannot disable your own account.',
      errors: { status: ['You cannot disable your own account.'] },
    });
    const remove = await admin.client.delete(`/api/admin/users/${admin.id}`);
    assert.equal(remove.status, 409);
    assert.deepEqual(remove.json, { message: 'You cannot delete your own account.' });
    assert.equal((await admin.client.get('/api/user')).status, 200);
  });

  test('an admin cannot grant super-admin nor touch a super-admin account', async () => {
    const admin = await ctx().withRole('admin');
    const root = await ctx().withRole('super-admin');
    const self = await admin.client.put(`/api/admin/users/${admin.id}`, { roles: ['admin', 'super-admin'] });
    assert.equal(self.status, 422);
    assert.deepEqual((self.json as { errors: unknown }).errors, {
      roles: ['Only a super-admin can grant or revoke the super-admin role.'],
    });
    assert.equal((await admin.client.put(`/api/admin/users/${root.id}`, { password: 'taken-over' })).status, 403);
    assert.equal((await admin.client.delete(`/api/admin/users/${root.id}`)).status, 403);
  });

  test('a super-admin may demote another, but the last super-admin cannot lose the role', async () => {
    const { client, id } = await ctx().withRole('super-admin');
    const other = await ctx().withRole('super-admin');
    assert.equal((await client.put(`/api/admin/users/${other.id}`, { roles: ['admin'] })).status, 200);
    // Every other super-admin of this file's database is demoted: `id` is the last one.
    await ctx().db.execute(
      sql`delete from role_user where role_id = (select id from roles where name = 'super-admin') and user_id <> ${id}`,
    );
    await ctx().changedOutside();
    const demote = await client.put(`/api/admin/users/${id}`, { roles: ['admin'] });
    assert.equal(demote.status, 422);
    assert.deepEqual(demote.json, {
      message: 'The last super-admin cannot lose the role.',
      errors: { roles: ['The last super-admin cannot lose the role.'] },
    });
    const me = await client.get('/api/user');
    assert.deepEqual((me.json as User).roles, ['player', 'super-admin']);
  });

  test('deleting a user answers 204 and the user is gone', async () => {
    const { client } = await ctx().withRole('super-admin');
    const player = await ctx().player();
    const res = await client.delete(`/api/admin/users/${player.id}`);
    assert.equal(res.status, 204);
    assert.equal((await client.get(`/api/admin/users/${player.id}`)).status, 404);
    assert.equal((await player.client.get('/api/user')).status, 401);
  });

  test('the list filters by email, status, role and q, newest first', async () => {
    const { client } = await ctx().withRole('super-admin');
    const a = await ctx().player({ name: 'Zebra Findable' });
    const b = await ctx().player({ name: 'zebra findable two' });
    const res = await client.get('/api/admin/users?q=ZEBRA%20find');
    assert.equal(res.status, 200);
    assert.deepEqual(
      page<User>(res.json).data.map((u) => u.id),
      [b.id, a.id],
    );
    const byEmail = await client.get(`/api/admin/users?email=${encodeURIComponent(a.email.toUpperCase())}`);
    assert.deepEqual(
      page<User>(byEmail.json).data.map((u) => u.id),
      [a.id],
    );
    const admins = await client.get('/api/admin/users?role=super-admin&per_page=100');
    assert.ok(page<User>(admins.json).data.every((u) => u.roles.includes('super-admin')));
    const disabled = await client.get('/api/admin/users?status=0');
    assert.ok(page<User>(disabled.json).data.every((u) => u.status === 0));
  });
});
