import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueEmail, useApp, type Client } from '../helpers/app.ts';
import { assertEmptyString, assertFieldError, cookie, REMEMBER_COOKIE } from './support.ts';

const ACCEPTED = 'The agreement field must be accepted.';
const INVALID_REF = 'The selected ref is invalid.';

function form(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Ann', email: uniqueEmail('reg'), password: 'password', password_confirmation: 'password', agreement: true, ...overrides };
}

describe('register', () => {
  const ctx = useApp();

  async function guest(): Promise<Client> {
    const client = ctx().client();
    await client.csrf();
    return client;
  }

  test('201 "" signs in on a regenerated session with the player role and no referrer', async () => {
    const client = await guest();
    const before = { session: client.jar.get('gp_session'), xsrf: client.xsrf };
    const body = form({ email: `  ${uniqueEmail('Mixed').toUpperCase()} ` });
    const res = await client.post('/api/register', body);
    assertEmptyString(res, 201);
    assert.notEqual(client.jar.get('gp_session'), before.session);
    assert.notEqual(client.xsrf, before.xsrf);
    assert.equal(cookie(res, REMEMBER_COOKIE), undefined);
    const me = (await client.get('/api/user')).json as Record<string, unknown>;
    assert.equal(me.email, String(body.email).trim().toLowerCase());
    assert.deepEqual([me.roles, me.ref, me.status, me.two_factor_enabled, me.is_partner], [['player'], 0, 1, false, false]);
    assert.equal((await client.post('/api/logout', {}, { 'x-xsrf-token': before.xsrf! })).status, 419);
  });

  test('an empty body lists the three required fields and the agreement', async () => {
    const res = await (await guest()).post('/api/register', {});
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The name field is required. (and 3 more errors)',
      errors: {
        name: ['The name field is required.'],
        email: ['The email field is required.'],
        password: ['The password field is required.'],
        agreement: [ACCEPTED],
      },
    });
  });

  test('the agreement must be accepted: Laravel’s accepted values pass, anything else fails', async () => {
    const client = await guest();
    for (const agreement of [undefined, false, 0, '0', 'no', 'off', 'false', 2, {}, ['yes']]) {
      const body = form({ agreement });
      if (agreement === undefined) delete body.agreement;
      assertFieldError(await client.post('/api/register', body), 'agreement', ACCEPTED);
    }
    for (const agreement of [true, 1, '1', 'yes', 'on', 'true']) {
      const fresh = await guest();
      assertEmptyString(await fresh.post('/api/register', form({ agreement })), 201);
    }
  });

  test('an e-mail already registered, in any case, is taken', async () => {
    const email = uniqueEmail('dup');
    assertEmptyString(await (await guest()).post('/api/register', form({ email })), 201);
    assertFieldError(
      await (await guest()).post('/api/register', form({ email: email.toUpperCase() })),
      'email',
      'The email has already been taken.',
    );
  });

  test('two simultaneous registrations of one e-mail: one wins, the other is told it is taken', async () => {
    const email = uniqueEmail('race');
    const [a, b] = await Promise.all([guest(), guest()]);
    const results = await Promise.all([a.post('/api/register', form({ email })), b.post('/api/register', form({ email }))]);
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 422]);
    const loser = results.find((r) => r.status === 422)!;
    assertFieldError(loser, 'email', 'The email has already been taken.');
  });

  test('a short password with a different confirmation gives two messages on password', async () => {
    const res = await (await guest()).post('/api/register', form({ password: 'short', password_confirmation: 'other' }));
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The password field must be at least 8 characters. (and 1 more error)',
      errors: { password: ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'] },
    });
    const missing = form();
    delete missing.password_confirmation;
    assertFieldError(await (await guest()).post('/api/register', missing), 'password', 'The password field confirmation does not match.');
  });

  test('a bad e-mail, a too-long name and non-string fields are refused with Laravel’s texts', async () => {
    const client = await guest();
    assertFieldError(
      await client.post('/api/register', form({ email: 'not-an-email' })),
      'email',
      'The email field must be a valid email address.',
    );
    assertFieldError(
      await client.post('/api/register', form({ name: 'x'.repeat(256) })),
      'name',
      'The name field must not be greater than 255 characters.',
    );
    assertFieldError(await client.post('/api/register', form({ name: ['Ann'] })), 'name', 'The name field must be a string.');
    const long = `${'a'.repeat(250)}@b.com`;
    assertFieldError(
      await client.post('/api/register', form({ email: long })),
      'email',
      'The email field must not be greater than 255 characters.',
    );
    const numeric = await client.post('/api/register', form({ password: 12345678, password_confirmation: 12345678 }));
    assert.equal(numeric.status, 422);
    assert.deepEqual((numeric.json as { errors: Record<string, string[]> }).errors.password, ['The password field must be a string.']);
  });

  test('ref: 0 and an existing user id are accepted, as number or digits; an unknown or malformed id is a 422 on ref', async () => {
    const zero = await guest();
    assertEmptyString(await zero.post('/api/register', form({ ref: 0 })), 201);
    const referrer = ((await zero.get('/api/user')).json as { id: number }).id;
    assert.equal(((await zero.get('/api/user')).json as { ref: number }).ref, 0);

    const referred = await guest();
    assertEmptyString(await referred.post('/api/register', form({ ref: referrer })), 201);
    assert.equal(((await referred.get('/api/user')).json as { ref: number }).ref, referrer);

    const asString = await guest();
    assertEmptyString(await asString.post('/api/register', form({ ref: String(referrer) })), 201);
    assert.equal(((await asString.get('/api/user')).json as { ref: number }).ref, referrer);

    const client = await guest();
    for (const ref of [999999, '999999', -1, 'abc', 1.5, '99999999999999999999', true]) {
      assertFieldError(await client.post('/api/register', form({ ref })), 'ref', INVALID_REF);
    }
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('errors of several kinds are reported together, the unknown ref beside a taken e-mail', async () => {
    const email = uniqueEmail('both');
    assertEmptyString(await (await guest()).post('/api/register', form({ email })), 201);
    const res = await (await guest()).post('/api/register', form({ email, ref: 999999 }));
    assert.deepEqual(res.json, {
      message: 'The email has already been taken. (and 1 more error)',
      errors: { email: ['The email has already been taken.'], ref: [INVALID_REF] },
    });
  });

  test('a taken e-mail and a short password are reported together, in one 422', async () => {
    const email = uniqueEmail('taken');
    assertEmptyString(await (await guest()).post('/api/register', form({ email })), 201);
    const res = await (
      await guest()
    ).post('/api/register', form({ email: email.toUpperCase(), password: 'short', password_confirmation: 'short' }));
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The email has already been taken. (and 1 more error)',
      errors: { email: ['The email has already been taken.'], password: ['The password field must be at least 8 characters.'] },
    });
  });

  test('every field’s problems at once: the database’s rules join the schema’s, in field order, each message once', async () => {
    const email = uniqueEmail('all');
    assertEmptyString(await (await guest()).post('/api/register', form({ email })), 201);
    const client = await guest();
    const res = await client.post('/api/register', { email, password: 'short', ref: 999999 });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The name field is required. (and 5 more errors)',
      errors: {
        name: ['The name field is required.'],
        email: ['The email has already been taken.'],
        password: ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'],
        agreement: [ACCEPTED],
        ref: [INVALID_REF],
      },
    });
    // A malformed ref is the schema's to report, once; a free e-mail gets no message.
    const other = await client.post('/api/register', form({ email: uniqueEmail('free'), ref: 'abc', agreement: false }));
    assert.deepEqual((other.json as { errors: unknown }).errors, { agreement: [ACCEPTED], ref: [INVALID_REF] });
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('remember:"1" sets the remember-me cookie', async () => {
    const client = await guest();
    const res = await client.post('/api/register', form({ remember: '1' }));
    assertEmptyString(res, 201);
    const remember = cookie(res, REMEMBER_COOKIE);
    assert.ok(remember);
    assert.equal(remember.attributes.httponly, true);
    assert.equal(remember.attributes['max-age'], String(400 * 24 * 60 * 60));
  });

  test('a signed-in user gets 409 "Already signed in." (after the CSRF check, before validation)', async () => {
    const { client } = await ctx().player();
    const res = await client.post('/api/register', {});
    assert.equal(res.status, 409);
    assert.deepEqual(res.json, { message: 'Already signed in.' });
    assert.equal((await client.post('/api/register', form(), { 'x-xsrf-token': '' })).status, 419);
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('registration without the XSRF header is a 419 and creates nobody', async () => {
    const client = await guest();
    const body = form();
    const res = await client.post('/api/register', body, { 'x-xsrf-token': '' });
    assert.equal(res.status, 419);
    assert.deepEqual(res.json, { message: 'CSRF token mismatch.' });
    assertEmptyString(await client.post('/api/register', body), 201);
  });
});
