import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';

interface Bank {
  id: number;
  name: string;
  code: string;
  currenry: string;
  payment_cards: boolean;
  created_at: string;
  updated_at: string;
}

describe('admin banks', () => {
  const ctx = useApp();

  test('a super-admin creates, reads, updates, lists and deletes a bank', async () => {
    const { client } = await ctx().withRole('super-admin');
    const created = await client.post('/api/admin/banks', { name: 'Banco do Brasil', code: '001', currenry: 'brl' });
    assert.equal(created.status, 201);
    const bank = (created.json as { data: Bank }).data;
    assert.equal(bank.name, 'Banco do Brasil');
    assert.equal(bank.currenry, 'BRL');
    assert.equal(bank.payment_cards, true);
    assert.match(bank.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const shown = await client.get(`/api/admin/banks/${bank.id}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.json, { data: bank });

    const updated = await client.put(`/api/admin/banks/${bank.id}`, { name: 'BB' });
    assert.equal(updated.status, 200);
    assert.equal((updated.json as { data: Bank }).data.name, 'BB');
    assert.equal((updated.json as { data: Bank }).data.code, '001');

    const list = await client.get('/api/admin/banks?q=bb');
    assert.equal(list.status, 200);
    assert.deepEqual(
      (list.json as { data: Bank[] }).data.map((b) => b.id),
      [bank.id],
    );

    const deleted = await client.delete(`/api/admin/banks/${bank.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.equal((await client.get(`/api/admin/banks/${bank.id}`)).status, 404);
  });

  test('every change is in the operation log with the acting user, and a failed one is not', async () => {
    const admin = await ctx().withRole('super-admin');
    const before = await rows<{ n: number }>(ctx().db, sql`select count(*)::int as n from operation_logs`);
    const ok = await admin.client.post('/api/admin/banks', { name: 'Itaú', code: '341', currenry: 'BRL' });
    assert.equal(ok.status, 201);
    const dup = await admin.client.post('/api/admin/banks', { name: 'Other', code: '341', currenry: 'BRL' });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.json, { message: 'The code has already been taken.', errors: { code: ['The code has already been taken.'] } });
    const after = await rows<{ n: number; user_id: string }>(
      ctx().db,
      sql`select count(*)::int as n, max(user_id)::text as user_id from operation_logs`,
    );
    assert.equal(after[0]!.n, before[0]!.n + 1);
  });

  test('a missing or malformed bank id is a 404', async () => {
    const { client } = await ctx().withRole('super-admin');
    assert.equal((await client.get('/api/admin/banks/999999')).status, 404);
    assert.equal((await client.get('/api/admin/banks/abc')).status, 404);
    assert.equal((await client.put('/api/admin/banks/999999', { name: 'x' })).status, 404);
    assert.equal((await client.delete('/api/admin/banks/0')).status, 404);
  });

  test('a bank card is stored encrypted and shown masked in detail and list', async () => {
    const { client } = await ctx().withRole('super-admin');
    const player = await ctx().player();
    const bankRes = await client.post('/api/admin/banks', { name: 'Nubank', code: '260', currenry: 'BRL' });
    const bankId = (bankRes.json as { data: Bank }).data.id;
    const res = await client.post('/api/admin/bank-cards', {
      bank_id: bankId,
      user_id: player.id,
      holder_name: 'Maria Silva',
      card_number: '4111 1111 1111 1111',
    });
    assert.equal(res.status, 201);
    const card = (res.json as { data: Record<string, unknown> }).data;
    assert.equal(card.card_number, '**** **** **** 1111');
    assert.equal(card.bank_id, bankId);
    assert.equal(card.user_id, player.id);
    assert.equal(res.text.includes('4111111111111111'), false);
    const stored = await rows<{ card_number_encrypted: string; card_last4: string }>(
      ctx().db,
      sql`select card_number_encrypted, card_last4 from bank_cards where id = ${card.id as number}`,
    );
    assert.equal(stored[0]!.card_last4, '1111');
    assert.equal(stored[0]!.card_number_encrypted.includes('4111'), false);
    const shown = await client.get(`/api/admin/bank-cards/${card.id as number}`);
    assert.equal((shown.json as { data: { card_number: string } }).data.card_number, '**** **** **** 1111');
    const list = await client.get(`/api/admin/bank-cards?user_id=${player.id}`);
    assert.deepEqual((list.json as { data: unknown[] }).data, [card]);
    const log = await rows<{ payload: { card_number: string } }>(
      ctx().db,
      sql`select payload from operation_logs order by id desc limit 1`,
    );
    assert.equal(log[0]!.payload.card_number, '1111');
  });

  test('card numbers must be 12 to 19 digits and pass Luhn when the bank issues payment cards', async () => {
    const { client } = await ctx().withRole('super-admin');
    const player = await ctx().player();
    const payment = (await client.post('/api/admin/banks', { name: 'Pay', code: 'pay-1', currenry: 'BRL' })).json as { data: Bank };
    const other = (await client.post('/api/admin/banks', { name: 'Accounts', code: 'acc-1', currenry: 'BRL', payment_cards: false }))
      .json as { data: Bank };
    const card = (bank_id: number, card_number: string) => ({ bank_id, user_id: player.id, holder_name: 'Jo', card_number });

    const short = await client.post('/api/admin/bank-cards', card(payment.data.id, '4111 1111'));
    assert.deepEqual(short.json, {
      message: 'The card number field must be between 12 and 19 digits.',
      errors: { card_number: ['The card number field must be between 12 and 19 digits.'] },
    });
    const letters = await client.post('/api/admin/bank-cards', card(payment.data.id, '4111x11111111111'));
    assert.equal(letters.status, 422);
    const luhn = await client.post('/api/admin/bank-cards', card(payment.data.id, '4111111111111112'));
    assert.deepEqual(luhn.json, {
      message: 'The card number field must be a valid card number.',
      errors: { card_number: ['The card number field must be a valid card number.'] },
    });
    const accepted = await client.post('/api/admin/bank-cards', card(other.data.id, '4111111111111112'));
    assert.equal(accepted.status, 201);
    // Moving that card to a payment-card bank checks its stored number again.
    const id = (accepted.json as { data: { id: number } }).data.id;
    const moved = await client.put(`/api/admin/bank-cards/${id}`, { bank_id: payment.data.id });
    assert.equal(moved.status, 422);
    assert.deepEqual(Object.keys((moved.json as { errors: object }).errors), ['card_number']);
  });

  test('a bank or user that does not exist is a 422 on that field', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/bank-cards', {
      bank_id: 999999,
      user_id: 1,
      holder_name: 'X',
      card_number: '4111111111111111',
    });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, { message: 'The selected bank id is invalid.', errors: { bank_id: ['The selected bank id is invalid.'] } });
    const bankId = ((await client.post('/api/admin/banks', { name: 'U', code: 'u-1', currenry: 'BRL' })).json as { data: Bank }).data.id;
    const noUser = await client.post('/api/admin/bank-cards', {
      bank_id: bankId,
      user_id: 999999,
      holder_name: 'X',
      card_number: '4111111111111111',
    });
    assert.deepEqual((noUser.json as { errors: unknown }).errors, { user_id: ['The selected user id is invalid.'] });
    const missing = await client.post('/api/admin/bank-cards', {});
    assert.deepEqual(Object.keys((missing.json as { errors: object }).errors), ['bank_id', 'holder_name', 'card_number', 'user_id']);
  });

  test('bank validation: currency code of three letters and required fields', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/banks', { name: 'X', code: 'x-9', currenry: 'REAL' });
    assert.deepEqual(res.json, {
      message: 'The currenry field must be a 3-letter currency code.',
      errors: { currenry: ['The currenry field must be a 3-letter currency code.'] },
    });
    const empty = await client.post('/api/admin/banks', { name: '  ' });
    assert.deepEqual(Object.keys((empty.json as { errors: object }).errors), ['name', 'code', 'currenry']);
  });
});
