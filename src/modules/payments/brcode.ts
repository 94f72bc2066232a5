import anyAscii from 'any-ascii';
import { formatUnits } from '../../platform/money.ts';

/**
 * PIX BR Code (EMV QRCPS-MPM as profiled by Banco Central): TLV text with two-digit ids and
 * lengths, ending in tag 63 with a CRC-16/CCITT-FALSE over everything before it, "6304" included.
 */

export const PIX_GUI = 'br.gov.bcb.pix';
const MAX_NAME = 25;
const MAX_CITY = 15;
const MAX_TXID = 25;

/** CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR; 4 upper-case hex digits. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(id: string, value: string): string {
  if (value.length > 99) throw new Error(`BR Code field ${id} is longer than 99 characters.`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** Printable ASCII only (accents stripped), cut to `max` characters. */
function ascii(value: string, max: number): string {
  return anyAscii(value)
    .replace(/[^\x20-\x7E]/g, '')
    .trim()
    .slice(0, max);
}

export interface BrCodeInput {
  pixKey: string;
  merchantName: string;
  merchantCity: string;
  /** Omitted: the payer types the amount. */
  amountCents?: bigint;
  /** Reference label (tag 62/05): up to 25 letters and digits; `***` when there is none. */
  txid?: string;
}

/** A static PIX BR Code carrying the key, the amount and our reference. */
export function buildBrCode(input: BrCodeInput): string {
  const txid = input.txid ?? '***';
  if (txid !== '***' && !new RegExp(`^[A-Za-z0-9]{1,${MAX_TXID}}$`).test(txid))
    throw new Error('A BR Code txid is 1-25 letters or digits.');
  let payload = tlv('00', '01');
  payload += tlv('26', tlv('00', PIX_GUI) + tlv('01', input.pixKey));
  payload += tlv('52', '0000');
  payload += tlv('53', '986');
  if (input.amountCents !== undefined) payload += tlv('54', formatUnits(input.amountCents));
  payload += tlv('58', 'BR');
  payload += tlv('59', ascii(input.merchantName, MAX_NAME));
  payload += tlv('60', ascii(input.merchantCity, MAX_CITY));
  payload += tlv('62', tlv('05', txid));
  payload += '6304';
  return payload + crc16(payload);
}

export type TlvMap = Map<string, string>;

/** Splits TLV text into its fields; throws on a truncated or malformed field. */
export function parseTlv(text: string): TlvMap {
  const fields: TlvMap = new Map();
  let at = 0;
  while (at < text.length) {
    const id = text.slice(at, at + 2);
    const lengthText = text.slice(at + 2, at + 4);
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(lengthText)) throw new Error(`Malformed BR Code field at ${at}.`);
    const length = Number(lengthText);
    const value = text.slice(at + 4, at + 4 + length);
    if (value.length !== length) throw new Error(`BR Code field ${id} is truncated.`);
    fields.set(id, value);
    at += 4 + length;
  }
  return fields;
}

export interface ParsedBrCode {
  fields: TlvMap;
  /** Tag 26 (Pix merchant account), split into its own fields. */
  merchantAccount: TlvMap;
  /** Tag 62 (additional data), split into its own fields. */
  additionalData: TlvMap;
  crcValid: boolean;
}

/** Parses a BR Code and checks its CRC, its Pix GUI and its currency (986). */
export function parseBrCode(text: string): ParsedBrCode {
  const fields = parseTlv(text);
  const crc = fields.get('63');
  if (crc === undefined || !text.endsWith(`6304${crc}`)) throw new Error('A BR Code ends with its CRC (tag 63).');
  const merchantAccount = parseTlv(fields.get('26') ?? '');
  const additionalData = parseTlv(fields.get('62') ?? '');
  return {
    fields,
    merchantAccount,
    additionalData,
    crcValid: crc16(text.slice(0, -4)) === crc.toUpperCase(),
  };
}

/** True for a BR Code we would accept from a gateway: CRC, format indicator, Pix GUI, BRL. */
export function isValidPixBrCode(text: string): boolean {
  try {
    const parsed = parseBrCode(text);
    return (
      parsed.crcValid &&
      parsed.fields.get('00') === '01' &&
      parsed.merchantAccount.get('00')?.toLowerCase() === PIX_GUI &&
      parsed.fields.get('53') === '986'
    );
  } catch {
    return false;
  }
}
