import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildBrCode, crc16, isValidPixBrCode, parseBrCode } from '../../src/modules/payments/brcode.ts';

// docs: /work/shared/reference/igaming.md section 3.1 (Banco Central manuals and a self-computed vector).
const VECTORS = [
  {
    name: 'static, EVP key, no amount',
    text: '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
    crc: '1D3D',
    key: '123e4567-e12b-12d1-a456-426655440000',
    amount: undefined,
  },
  {
    name: 'dynamic (URL)',
    text: '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4',
    crc: '64E4',
    key: undefined,
    amount: undefined,
  },
  {
    name: 'static with amount and recurrence',
    text: '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406100.505802BR5913Fulano de Tal6008BRASILIA62070503***80740014br.gov.bcb.pix2552pix.example.com/rec/2353c790eefb11eaadc10242ac12000263042875',
    crc: '2875',
    key: '123e4567-e12b-12d1-a456-426655440000',
    amount: '100.50',
  },
  {
    name: 'other arrangement, 270 characters',
    text: '00020104141234567890123426580014BR.GOV.BCB.PIX0136123e4567-e12b-12d1-a456-42665544000027300012BR.COM.OUTRO011001234567895204000053039865406123.455802BR5917NOME DO RECEBEDOR6008BRASILIA61087007490062190515RP12345678-201980390012BR.COM.OUTRO01190123.ABCD.3456.WXYZ6304AD38',
    crc: 'AD38',
    key: '123e4567-e12b-12d1-a456-426655440000',
    amount: '123.45',
  },
  {
    name: 'dynamic, URL with uuid',
    text: '00020101021226770014BR.GOV.BCB.PIX2555pix.example.com/qr/93598be0-1bd0-4997-8318-81776a1d8a995204000053039865802BR5907EMPRESA6009SAO PAULO62070503***6304EEAB',
    crc: 'EEAB',
    key: undefined,
    amount: undefined,
  },
  {
    name: 'static, phone key, amount 10.00, txid PEDIDO123',
    text: '00020126360014br.gov.bcb.pix0114+5561912345678520400005303986540510.005802BR5913Fulano de Tal6008BRASILIA62130509PEDIDO12363041D3E',
    crc: '1D3E',
    key: '+5561912345678',
    amount: '10.00',
  },
];

describe('PIX BR Code', () => {
  test('CRC-16/CCITT-FALSE has the standard check value 29B1 for "123456789"', () => {
    assert.equal(crc16('123456789'), '29B1');
  });

  for (const vector of VECTORS) {
    test(`reference vector "${vector.name}" parses, and its CRC recomputes to ${vector.crc}`, () => {
      const parsed = parseBrCode(vector.text);
      assert.equal(parsed.fields.get('63'), vector.crc);
      assert.equal(crc16(vector.text.slice(0, -4)), vector.crc);
      assert.equal(parsed.crcValid, true);
      assert.equal(parsed.fields.get('00'), '01');
      assert.equal(parsed.fields.get('53'), '986');
      assert.equal(parsed.fields.get('58'), 'BR');
      assert.equal(parsed.merchantAccount.get('00')!.toLowerCase(), 'br.gov.bcb.pix');
      assert.equal(parsed.merchantAccount.get('01'), vector.key);
      assert.equal(parsed.fields.get('54'), vector.amount);
      assert.equal(isValidPixBrCode(vector.text), true);
    });

    test(`reference vector "${vector.name}" with one character changed fails its CRC`, () => {
      const at = 40;
      const flipped = vector.text.slice(0, at) + (vector.text[at] === 'X' ? 'Y' : 'X') + vector.text.slice(at + 1);
      assert.equal(isValidPixBrCode(flipped), false);
    });
  }

  test('our builder reproduces the static EVP reference vector byte for byte', () => {
    const text = buildBrCode({ pixKey: '123e4567-e12b-12d1-a456-426655440000', merchantName: 'Fulano de Tal', merchantCity: 'BRASILIA' });
    assert.equal(text, VECTORS[0]!.text);
  });

  test('our builder reproduces the phone-key vector with amount 10.00 and txid PEDIDO123', () => {
    const text = buildBrCode({
      pixKey: '+5561912345678',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      amountCents: 1000n,
      txid: 'PEDIDO123',
    });
    assert.equal(text, VECTORS[5]!.text);
  });

  test('our codes strip accents and cut the merchant name to 25 and the city to 15 characters', () => {
    const text = buildBrCode({
      pixKey: 'pix@example.com',
      merchantName: 'Cassino São João das Águas Claras',
      merchantCity: 'São José dos Campos',
      amountCents: 12345n,
      txid: 'ABC123',
    });
    const parsed = parseBrCode(text);
    assert.equal(parsed.crcValid, true);
    assert.equal(parsed.fields.get('59'), 'Cassino Sao Joao das Agua');
    assert.equal(parsed.fields.get('60'), 'Sao Jose dos Ca');
    assert.equal(parsed.fields.get('54'), '123.45');
    assert.equal(parsed.additionalData.get('05'), 'ABC123');
    assert.equal(isValidPixBrCode(text), true);
  });

  test('a truncated code is refused', () => {
    assert.equal(isValidPixBrCode(VECTORS[0]!.text.slice(0, 60)), false);
    assert.throws(() => buildBrCode({ pixKey: 'k', merchantName: 'n', merchantCity: 'c', txid: 'has space' }));
  });
});
