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
  });
});
