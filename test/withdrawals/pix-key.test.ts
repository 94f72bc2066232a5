import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { normalizePixKey, PIX_KEY_TYPES, type PixKeyType } from '../../src/modules/withdrawals/pix-key.ts';

function keyOf(type: PixKeyType, raw: string): string {
  const result = normalizePixKey(type, raw);
  assert.ok('key' in result, `${type} ${raw}: ${'error' in result ? result.error : ''}`);
  return result.key;
}

function errorOf(type: PixKeyType, raw: string): string {
  const result = normalizePixKey(type, raw);
  assert.ok('error' in result, `${type} ${raw} was accepted as ${'key' in result ? result.key : ''}`);
  return result.error;
}

describe('PIX keys (reference section 3.2)', () => {
  test('CPF: the reference’s valid numbers pass, with or without punctuation, as 11 digits', () => {
    assert.equal(keyOf('CPF', '12345678909'), '12345678909');
    assert.equal(keyOf('CPF', '111.444.777-35'), '11144477735');
    assert.equal(keyOf('CPF', ' 123.456.789-09 '), '12345678909');
  });

  test('CPF: wrong check digits, equal digits and wrong lengths are refused with the reason', () => {
    assert.equal(errorOf('CPF', '12345678900'), 'The payee account is not a valid CPF: the check digits do not match.');
    assert.equal(errorOf('CPF', '11111111111'), 'The payee account is not a valid CPF: its digits cannot all be the same.');
    assert.equal(errorOf('CPF', '1234567890'), 'The payee account is not a valid CPF: it must have 11 digits.');
    assert.match(errorOf('CPF', '1234567890a'), /11 digits/);
  });

  test('CNPJ: numeric and alphanumeric numbers of the reference pass, upper-cased, without punctuation', () => {
    assert.equal(keyOf('CNPJ', '00038166000105'), '00038166000105');
    assert.equal(keyOf('CNPJ', '11.222.333/0001-81'), '11222333000181');
    assert.equal(keyOf('CNPJ', '12ABC34501DE35'), '12ABC34501DE35');
    assert.equal(keyOf('CNPJ', '12.abc.345/01de-35'), '12ABC34501DE35');
  });

  test('CNPJ: wrong check digits, equal characters and letters in the check digits are refused', () => {
    assert.match(errorOf('CNPJ', '12ABC34501DE36'), /check digits do not match/);
    assert.match(errorOf('CNPJ', '00038166000106'), /check digits do not match/);
    assert.match(errorOf('CNPJ', '00000000000000'), /cannot all be the same/);
    assert.match(errorOf('CNPJ', '12ABC34501DEAB'), /followed by 2 digits/);
  });

  test('EMAIL: lower-cased; a malformed or too long address is refused', () => {
    assert.equal(keyOf('EMAIL', ' Maria.Silva@Example.COM '), 'maria.silva@example.com');
    for (const bad of [
      'maria',
      'maria@',
      '@example.com',
      'maria@example',
      'ma ria@example.com',
      'a..b@example.com',
      'maria@exa_mple.com',
    ]) {
      assert.match(errorOf('EMAIL', bad), /not a valid e-mail key/, bad);
    }
    assert.match(errorOf('EMAIL', `${'a'.repeat(66)}@example.com`), /77 characters/);
    assert.equal(keyOf('EMAIL', `${'a'.repeat(65)}@example.com`).length, 77);
  });

  test('PHONE: a Brazilian mobile number in any usual spelling becomes +55 + area code + 9 digits', () => {
    for (const spelling of ['+55 (61) 91234-5678', '(61) 91234-5678', '61912345678', '5561912345678', '+5561912345678', '61 9 1234 5678']) {
      assert.equal(keyOf('PHONE', spelling), '+5561912345678', spelling);
    }
  });

  test('PHONE: an area code that does not exist, a landline and a foreign number are refused with the reason', () => {
    assert.equal(errorOf('PHONE', '(20) 91234-5678'), 'The payee account is not a valid phone key: 20 is not a Brazilian area code.');
    assert.match(errorOf('PHONE', '(61) 3123-4567'), /landline/);
    assert.match(errorOf('PHONE', '(61) 81234-5678'), /starts with 9/);
    assert.match(errorOf('PHONE', '+1 415 555 2671'), /Brazilian mobile number/);
    assert.match(errorOf('PHONE', '61-9123-abc'), /only digits/);
  });

  test('EVP: a UUID in either case is stored lower-case; anything else is refused', () => {
    assert.equal(keyOf('EVP', '123E4567-E12B-12D1-A456-426655440000'), '123e4567-e12b-12d1-a456-426655440000');
    assert.match(errorOf('EVP', '123e4567e12b12d1a456426655440000'), /must be a UUID/);
    assert.match(errorOf('EVP', '123e4567-e12b-12d1-a456-42665544000g'), /must be a UUID/);
  });

  test('an empty or over-long key is refused before its type is looked at', () => {
    assert.equal(errorOf('CPF', '   '), 'The payee account field is required.');
    assert.equal(errorOf('EMAIL', 'x'.repeat(101)), 'The payee account must not be longer than 100 characters.');
  });

  test('any string of any type gets a key or a reason, never an exception, and a key is stable when normalised again', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PIX_KEY_TYPES),
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.stringMatching(/^[0-9().+\- ]{0,20}$/)),
        (type, raw) => {
          const result = normalizePixKey(type, raw);
          if ('key' in result) assert.deepEqual(normalizePixKey(type, result.key), result);
          else assert.equal(typeof result.error, 'string');
        },
      ),
      { seed: 2026_11_24, numRuns: 2000 },
    );
  });
});
