import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import type { IdentityVerifier, VerifierDecision } from '../../src/modules/kyc/verifiers/verifier.ts';
import { useApp } from '../helpers/app.ts';
import { ManualClock } from '../draws/helpers.ts';
import { identityBody, identityOf, newCpf, punctuated, status } from './support.ts';

// 01:30 UTC on 28 November is still 27 November in São Paulo (UTC−3).
const clock = new ManualClock('2026-11-28T01:30:00.000Z');

interface History {
  event: string;
  status: string;
  cpf: string;
  reason: string | null;
  actor_id: string | null;
}

describe('REGULATION=br: the player’s identity', () => {
  const ctx = useApp({ REGULATION: 'br' }, { clock });

  test('a new player is unverified, on GET /api/user and GET /api/user/identity', async () => {
    const player = await ctx().player();
    assert.equal(((await player.client.get('/api/user')).json as { identity_status: string }).identity_status, 'unverified');
    assert.deepEqual(identityOf(await player.client.get('/api/user/identity')), {
      status: 'unverified',
      cpf: null,
      full_name: null,
      birth_date: null,
      reason: null,
      verified_at: null,
    });
  });

  test('each field’s rule refuses with the contract’s message, all at once, and stores nothing', async () => {
    const player = await ctx().player();
    const res = await player.client.put('/api/user/identity', { cpf: '123.456.789-00', full_name: ' Maria ', birth_date: '2008-11-28' });
    assert.equal(res.status, 422);
    assert.deepEqual((res.json as { errors: unknown }).errors, {
      cpf: ['The cpf is not a valid CPF.'],
      full_name: ['The full name must have at least two words.'],
      birth_date: ['You must be at least 18 years old.'],
    });
    for (const cpf of ['11111111111', '1234567890', 'abc']) {
      const bad = await player.client.put('/api/user/identity', identityBody({ cpf }));
      assert.deepEqual((bad.json as { errors: unknown }).errors, { cpf: ['The cpf is not a valid CPF.'] }, cpf);
    }
    for (const birth_date of ['2026-02-30', '27/11/1990', '2026-11-28']) {
      const bad = await player.client.put('/api/user/identity', identityBody({ birth_date }));
      assert.deepEqual((bad.json as { errors: unknown }).errors, { birth_date: ['The birth date is not a valid date.'] }, birth_date);
    }
    const missing = await player.client.put('/api/user/identity', {});
    assert.equal(missing.status, 422);
    assert.equal(identityOf(await player.client.get('/api/user/identity')).status, 'unverified');
  });

  test('18 years old today in São Paulo passes; one day short (though already 18 in UTC) is refused', async () => {
    const player = await ctx().player();
    // Born 28 Nov 2008: 18 in UTC (already the 28th), not yet in São Paulo (still the 27th).
    const early = await player.client.put('/api/user/identity', identityBody({ birth_date: '2008-11-28' }));
    assert.deepEqual(status(early), [
      422,
      { message: 'You must be at least 18 years old.', errors: { birth_date: ['You must be at least 18 years old.'] } },
    ]);
    const cpf = newCpf();
    const identity = identityOf(
      await player.client.put('/api/user/identity', { cpf: punctuated(cpf), full_name: '  José   dos  Santos ', birth_date: '2008-11-27' }),
    );
    assert.deepEqual(identity, {
      status: 'pending',
      cpf: `${cpf.slice(0, 3)}.***.***-${cpf.slice(9)}`,
      full_name: 'José dos Santos',
      birth_date: '2008-11-27',
      reason: null,
      verified_at: null,
    });
    assert.equal(((await player.client.get('/api/user')).json as { identity_status: string }).identity_status, 'pending');
  });

  test('a CPF another player holds is refused until their submission is rejected', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const first = await t.player();
    const second = await t.player();
    const cpf = newCpf();
    identityOf(await first.client.put('/api/user/identity', identityBody({ cpf })));
    const taken = await second.client.put('/api/user/identity', identityBody({ cpf: punctuated(cpf) }));
    assert.deepEqual(status(taken), [
      422,
      { message: 'The cpf has already been taken.', errors: { cpf: ['The cpf has already been taken.'] } },
    ]);
    // The holder may submit it again (a correction of the name).
    assert.equal(identityOf(await first.client.put('/api/user/identity', identityBody({ cpf, full_name: 'Ana Souza' }))).status, 'pending');

    const rejected = await admin.post(`/api/admin/users/${first.id}/identity/reject`, { reason: 'The selfie does not match.' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(identityOf(await second.client.put('/api/user/identity', identityBody({ cpf }))).status, 'pending');
    // Now the first player is the one refused.
    const back = await first.client.put('/api/user/identity', identityBody({ cpf }));
    assert.equal(back.status, 422);
  });

  test('an operator approves: verified, verified_at set, and the identity can no longer change (409)', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await t.player();
    const body = identityBody();
    identityOf(await player.client.put('/api/user/identity', body));
    const approved = await admin.post(`/api/admin/users/${player.id}/identity/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal((approved.json as { data: { status: string; user_id: number } }).data.status, 'verified');
    const identity = identityOf(await player.client.get('/api/user/identity'));
    assert.equal(identity.status, 'verified');
    assert.ok(identity.verified_at !== null);
    assert.equal(((await player.client.get('/api/user')).json as { identity_status: string }).identity_status, 'verified');

    const change = await player.client.put('/api/user/identity', identityBody({ full_name: 'Somebody Else' }));
    assert.deepEqual(status(change), [409, { message: 'Your identity is verified and can no longer be changed.' }]);
    const again = await admin.post(`/api/admin/users/${player.id}/identity/approve`);
    assert.deepEqual(status(again), [409, { message: 'The identity is verified, not pending.' }]);
    assert.equal(identityOf(await player.client.get('/api/user/identity')).full_name, body.full_name);
  });

  test('a rejection shows its reason; the player submits again and is pending', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await t.player();
    identityOf(await player.client.put('/api/user/identity', identityBody()));
    const empty = await admin.post(`/api/admin/users/${player.id}/identity/reject`, { reason: '' });
    assert.equal(empty.status, 422);
    await admin.post(`/api/admin/users/${player.id}/identity/reject`, { reason: 'Name differs from the registry.' });
    const rejected = identityOf(await player.client.get('/api/user/identity'));
    assert.deepEqual([rejected.status, rejected.reason], ['rejected', 'Name differs from the registry.']);
    const again = identityOf(await player.client.put('/api/user/identity', identityBody({ full_name: 'Maria Aparecida da Silva' })));
    assert.deepEqual([again.status, again.reason], ['pending', null]);
  });

  test('every submission and decision stays in the history, which refuses edits and deletes', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const cpf = newCpf();
    await player.client.put('/api/user/identity', identityBody({ cpf }));
    await admin.client.post(`/api/admin/users/${player.id}/identity/reject`, { reason: 'Blurred.' });
    await player.client.put('/api/user/identity', identityBody({ cpf }));
    await admin.client.post(`/api/admin/users/${player.id}/identity/approve`);
    const history = await rows<History>(
      t.db,
      sql`select event, status, cpf, reason, actor_id::text from user_identity_history where user_id = ${player.id} order by id`,
    );
    assert.deepEqual(history, [
      { event: 'submitted', status: 'pending', cpf, reason: null, actor_id: null },
      { event: 'rejected', status: 'rejected', cpf, reason: 'Blurred.', actor_id: String(admin.id) },
      { event: 'submitted', status: 'pending', cpf, reason: null, actor_id: null },
      { event: 'verified', status: 'verified', cpf, reason: null, actor_id: String(admin.id) },
    ]);
    const cause = (pattern: RegExp) => (error: unknown) => pattern.test(String((error as { cause?: Error }).cause?.message));
    await assert.rejects(
      t.db.execute(sql`update user_identity_history set reason = 'x' where user_id = ${player.id}`),
      cause(/append-only/),
    );
    await assert.rejects(t.db.execute(sql`delete from user_identity_history where user_id = ${player.id}`), cause(/append-only/));
    const logged = await rows<{ path: string }>(
      t.db,
      sql`select path from operation_logs where user_id = ${admin.id} and path like ${`/api/admin/users/${player.id}/identity/%`} order by id`,
    );
    assert.deepEqual(
      logged.map((row) => row.path),
      [`/api/admin/users/${player.id}/identity/reject`, `/api/admin/users/${player.id}/identity/approve`],
    );
  });

  test('operators list pending identities with masked CPFs; players and unknown users are refused', async () => {
    const t = ctx();
    const admin = (await t.withRole('admin')).client;
    const player = await t.player();
    const cpf = newCpf();
    await player.client.put('/api/user/identity', identityBody({ cpf, full_name: 'Listed Person', birth_date: '1980-01-02' }));
    const list = await admin.get(`/api/admin/identities?status=pending&user_id=${player.id}`);
    assert.equal(list.status, 200, list.text);
    const page = list.json as { data: Record<string, unknown>[]; meta: { total: number } };
    assert.equal(page.meta.total, 1);
    assert.deepEqual(
      { ...page.data[0], submitted_at: typeof page.data[0]!.submitted_at },
      {
        user_id: player.id,
        status: 'pending',
        cpf: `${cpf.slice(0, 3)}.***.***-${cpf.slice(9)}`,
        full_name: 'Listed Person',
        birth_date: '1980-01-02',
        reason: null,
        submitted_at: 'string',
      },
    );
    assert.ok(!list.text.includes(cpf), 'the full CPF never leaves');
    const verified = (await admin.get(`/api/admin/identities?status=verified&user_id=${player.id}`)).json as typeof page;
    assert.equal(verified.meta.total, 0);
    assert.equal((await admin.get('/api/admin/identities?status=bogus')).status, 422);

    assert.equal((await player.client.get('/api/admin/identities')).status, 403);
    assert.equal((await player.client.post(`/api/admin/users/${player.id}/identity/approve`)).status, 403);
    assert.equal((await admin.post('/api/admin/users/999999999/identity/approve')).status, 404);
    const none = await t.player();
    assert.deepEqual(status(await admin.post(`/api/admin/users/${none.id}/identity/approve`)), [
      409,
      { message: 'The user has not submitted an identity.' },
    ]);
  });
});

/** An automatic verifier that answers what the test tells it. */
class ScriptedVerifier implements IdentityVerifier {
  readonly code = 'scripted';
  next: VerifierDecision | Error = { status: 'verified' };

  verify(): Promise<VerifierDecision> {
    return this.next instanceof Error ? Promise.reject(this.next) : Promise.resolve(this.next);
  }
}

describe('REGULATION=br with an automatic verifier', () => {
  const ctx = useApp({ REGULATION: 'br', LOG_LEVEL: 'silent' }, { clock });
  const verifier = new ScriptedVerifier();

  test('its decision applies at once; a failure leaves the identity pending for an operator', async () => {
    ctx().app.identityVerifiers.register(verifier, true);
    const accepted = await ctx().player();
    verifier.next = { status: 'verified' };
    const identity = identityOf(await accepted.client.put('/api/user/identity', identityBody()));
    assert.equal(identity.status, 'verified');
    assert.equal(((await accepted.client.get('/api/user')).json as { identity_status: string }).identity_status, 'verified');

    const refused = await ctx().player();
    verifier.next = { status: 'rejected', reason: 'The face does not match the document.' };
    const rejected = identityOf(await refused.client.put('/api/user/identity', identityBody()));
    assert.deepEqual([rejected.status, rejected.reason], ['rejected', 'The face does not match the document.']);

    const unknown = await ctx().player();
    verifier.next = new Error('vendor timed out');
    assert.equal(identityOf(await unknown.client.put('/api/user/identity', identityBody())).status, 'pending');
  });
});

describe('REGULATION=none (the default)', () => {
  const ctx = useApp({}, { clock });

  test('the user record is the seed’s (no identity_status), and the identity routes still work', async () => {
    const player = await ctx().player();
    const me = (await player.client.get('/api/user')).json as Record<string, unknown>;
    assert.ok(!('identity_status' in me));
    assert.equal(identityOf(await player.client.put('/api/user/identity', identityBody())).status, 'pending');
  });
});
