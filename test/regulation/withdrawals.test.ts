import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, newCpf, punctuated, verifiedPlayer } from './support.ts';

const errorsOf = (json: unknown) => (json as { errors: Record<string, string[]> }).errors;

describe('REGULATION=br: withdrawals only to the player’s own CPF key and verified name', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('someone else’s CPF key, another name or another key type is refused by field, and nothing is held', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await verifiedPlayer(t, admin, identityBody({ full_name: 'João Conceição da Silva' }));
    await fund(t, player.id, 10_000n);
    const ask = (body: Record<string, unknown>) =>
      player.client.post('/api/withdrawals', {
        payee_name: player.fullName,
        account_type: 'CPF',
        payee_account: player.cpf,
        amount: 20,
        ...body,
      });

    const other = await ask({ payee_account: newCpf() });
    assert.equal(other.status, 422, other.text);
    assert.deepEqual(errorsOf(other.json), { payee_account: ['The payee account must be the PIX key of your own CPF.'] });
    const name = await ask({ payee_name: 'João da Silva' });
    assert.deepEqual(errorsOf(name.json), { payee_name: ['The payee name must be your verified full name.'] });
    const email = await ask({ account_type: 'EMAIL', payee_account: 'joao@example.com' });
    assert.deepEqual(errorsOf(email.json), {
      account_type: ['The account type must be CPF: withdrawals are paid only to a PIX key of your own CPF.'],
    });
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
  });

  test('the verified name passes whatever its case, accents and spaces, to the player’s CPF written with punctuation', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await verifiedPlayer(t, admin, identityBody({ full_name: 'João Conceição da Silva' }));
    await fund(t, player.id, 10_000n);
    const res = await player.client.post('/api/withdrawals', {
      payee_name: '  JOAO conceicao  DA SILVA',
      account_type: 'CPF',
      payee_account: punctuated(player.cpf),
      amount: 20,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(await balanceOf(t.db, player.id), 8_000n);
  });
});

describe('REGULATION=br: the player’s CPF leaves the service only masked', () => {
  const ctx = useApp({ REGULATION: 'br' });

  test('every withdrawal answer, the player’s and the operator’s, shows payee_account as 123.***.***-09, never the CPF whole', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await verifiedPlayer(t, admin);
    await fund(t, player.id, 10_000n);
    const masked = `${player.cpf.slice(0, 3)}.***.***-${player.cpf.slice(9)}`;
    const body = { payee_name: player.fullName, account_type: 'CPF', payee_account: player.cpf };
    const first = await player.client.post('/api/withdrawals', { ...body, amount: 20 });
    const second = await player.client.post('/api/withdrawals', { ...body, amount: 30 });
    assert.deepEqual([first.status, second.status], [201, 201], second.text);
    const [a, b] = [first, second].map((res) => (res.json as { data: { id: number } }).data.id);
    const answers = [
      first,
      await player.client.get('/api/withdrawals'),
      await admin.get(`/api/admin/withdrawals?user_id=${player.id}`),
      await admin.get(`/api/admin/withdrawals/${a}`),
      await admin.post(`/api/admin/withdrawals/${a}/approve`),
      await admin.post(`/api/admin/withdrawals/${b}/reject`, { reason: 'no' }),
    ];
    for (const res of answers) {
      assert.equal(res.status, 200 + (res === first ? 1 : 0), res.text);
      assert.ok(!res.text.includes(player.cpf), `the CPF whole in ${res.text}`);
      const data = (res.json as { data: { payee_account: string } | { payee_account: string }[] }).data;
      for (const record of Array.isArray(data) ? data : [data]) assert.equal(record.payee_account, masked);
    }
  });
});

describe('REGULATION=none: any key and name, as before', () => {
  const ctx = useApp({});

  test('an unverified player withdraws to a third party’s e-mail key', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const res = await player.client.post('/api/withdrawals', {
      payee_name: 'Somebody Else',
      account_type: 'EMAIL',
      payee_account: 'someone@example.com',
      amount: 20,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((res.json as { data: { payee_account: string } }).data.payee_account, 'someone@example.com');
  });

  test('a CPF key is a CPF: shown masked here too', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const res = await player.client.post('/api/withdrawals', {
      payee_name: 'Somebody Else',
      account_type: 'CPF',
      payee_account: '111.444.777-35',
      amount: 20,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((res.json as { data: { payee_account: string } }).data.payee_account, '111.***.***-35');
    assert.ok(!(await player.client.get('/api/withdrawals')).text.includes('11144477735'));
  });
});
