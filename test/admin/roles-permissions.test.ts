import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { data, page, userWithPermissions } from './support.ts';

interface Role {
  id: number;
  name: string;
  permissions: string[];
  created_at: string;
  updated_at: string;
}

interface Permission {
  id: number;
  name: string;
}

describe('admin roles and permissions', () => {
  const ctx = useApp();

  async function roleId(name: string): Promise<number> {
    const { client } = await ctx().withRole('super-admin');
    const list = await client.get(`/api/admin/roles?name=${name}`);
    return page<Role>(list.json).data[0]!.id;
  }

  test('a role is created with a list of permission names and shown with them', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/roles', { name: 'support', permissions: ['users.view', 'banks.view'] });
    assert.equal(res.status, 201);
    const role = data<Role>(res.json);
    assert.equal(role.name, 'support');
    assert.deepEqual(role.permissions, ['banks.view', 'users.view']);
    const shown = await client.get(`/api/admin/roles/${role.id}`);
    assert.deepEqual(shown.json, { data: role });
  });

  test('role names are unique and permission names must exist', async () => {
    const { client } = await ctx().withRole('super-admin');
    const dup = await client.post('/api/admin/roles', { name: 'admin' });
    assert.deepEqual(dup.json, { message: 'The name has already been taken.', errors: { name: ['The name has already been taken.'] } });
    const unknown = await client.post('/api/admin/roles', { name: 'auditor', permissions: ['users.view', 'users.fly'] });
    assert.deepEqual(unknown.json, {
      message: 'The selected permissions.1 is invalid.',
      errors: { 'permissions.1': ['The selected permissions.1 is invalid.'] },
    });
  });

  test('super-admin cannot be renamed or deleted; player, which registration assigns, neither', async () => {
    const { client } = await ctx().withRole('super-admin');
    const superId = await roleId('super-admin');
    const rename = await client.put(`/api/admin/roles/${superId}`, { name: 'root' });
    assert.deepEqual(rename.json, {
      message: 'The super-admin role cannot be renamed.',
      errors: { name: ['The super-admin role cannot be renamed.'] },
    });
    const remove = await client.delete(`/api/admin/roles/${superId}`);
    assert.equal(remove.status, 409);
    assert.deepEqual(remove.json, { message: 'The super-admin role cannot be deleted.' });
    assert.equal((await client.delete(`/api/admin/roles/${await roleId('player')}`)).status, 409);
    // Saving it under its own name is fine.
    assert.equal((await client.put(`/api/admin/roles/${superId}`, { name: 'super-admin' })).status, 200);
  });

  test('a permission change takes effect on the next request of every holder', async () => {
    const { client } = await ctx().withRole('super-admin');
    const holder = await userWithPermissions(ctx(), ['users.view']);
    assert.equal((await holder.client.get('/api/admin/banks')).status, 403);
    const roles = page<Role>((await client.get('/api/admin/roles?per_page=100')).json).data;
    const role = roles.find((r) => r.permissions.length === 1 && r.permissions[0] === 'users.view' && r.name.startsWith('role-'))!;
    const updated = await client.put(`/api/admin/roles/${role.id}`, { permissions: ['users.view', 'banks.view'] });
    assert.equal(updated.status, 200);
    assert.equal((await holder.client.get('/api/admin/banks')).status, 200);
    await client.put(`/api/admin/roles/${role.id}`, { permissions: [] });
    assert.equal((await holder.client.get('/api/admin/users')).status, 403);
  });

  test('an admin (no roles.manage) cannot change roles', async () => {
    const admin = await ctx().withRole('admin');
    assert.equal((await admin.client.get('/api/admin/roles')).status, 200);
    assert.equal((await admin.client.post('/api/admin/roles', { name: 'mine', permissions: ['roles.manage'] })).status, 403);
  });

  test('permissions: created, unique, well-formed, and given to super-admin at once', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/permissions', { name: 'audits.view' });
    assert.equal(res.status, 201);
    const permission = data<Permission>(res.json);
    assert.equal(permission.name, 'audits.view');
    const superRole = data<Role>((await client.get(`/api/admin/roles/${await roleId('super-admin')}`)).json);
    assert.ok(superRole.permissions.includes('audits.view'));
    const dup = await client.post('/api/admin/permissions', { name: 'audits.view' });
    assert.deepEqual((dup.json as { errors: unknown }).errors, { name: ['The name has already been taken.'] });
    const bad = await client.post('/api/admin/permissions', { name: 'Audits View' });
    assert.equal(bad.status, 422);
    const list = page<Permission>((await client.get('/api/admin/permissions?q=AUDITS')).json);
    assert.deepEqual(
      list.data.map((p) => p.name),
      ['audits.view'],
    );
    assert.equal((await client.delete(`/api/admin/permissions/${permission.id}`)).status, 204);
  });
});
