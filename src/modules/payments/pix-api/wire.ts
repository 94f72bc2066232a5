/**
 * API Pix's records as we read them (openapi.yaml of the Central Bank, version 2.9): only the
 * fields we act on, each checked, amounts as integer cents. A PSP answer that lacks one of them is
 * not guessed at: the reader throws and the call counts as an unexpected answer.
 */

/** `txid`: 26 to 35 letters and digits for a charge (schema TxId). */
export const TXID = /^[A-Za-z0-9]{26,35}$/;
/** `endToEndId`: 32 letters and digits (schema EndToEndId). */
export const END_TO_END_ID = /^[A-Za-z0-9]{32}$/;
/** A return's id, chosen by us (schema DevolucaoId). */
export const RETURN_ID = /^[A-Za-z0-9]{1,35}$/;
const AMOUNT = /^(\d{1,10})\.(\d{2})$/;

export class WireError extends Error {
  override name = 'WireError';
}

type Json = Record<string, unknown>;

function object(value: unknown, what: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new WireError(`${what} is not an object`);
  return value as Json;
}

function text(value: unknown, what: string, pattern?: RegExp): string {
  if (typeof value !== 'string' || value === '' || (pattern !== undefined && !pattern.test(value)))
    throw new WireError(`${what} is missing or malformed`);
  return value;
}

function optionalText(value: unknown, what: string, pattern?: RegExp): string | undefined {
  return value === undefined || value === null ? undefined : text(value, what, pattern);
}

function instant(value: unknown, what: string): Date {
  const at = new Date(text(value, what));
  if (Number.isNaN(at.getTime())) throw new WireError(`${what} is not a date-time`);
  return at;
}

/** "123.45" → 12345n. */
export function amountCents(value: unknown, what = 'valor'): bigint {
  const match = AMOUNT.exec(typeof value === 'string' ? value : '');
  if (match === null) throw new WireError(`${what} is not an amount such as 10.00`);
  return BigInt(match[1]!) * 100n + BigInt(match[2]!);
}

/** 12345n → "123.45", as API Pix writes amounts. */
export function amountText(cents: bigint): string {
  if (cents < 0n) throw new RangeError('An API Pix amount is never negative.');
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** Charge record statuses (schema CobrancaStatus). */
export const COB_STATUSES = ['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP'] as const;
export type CobStatus = (typeof COB_STATUSES)[number];

/** Return statuses (schema Devolucao). */
export const RETURN_STATUSES = ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

export interface PixReturn {
  id: string;
  rtrId: string | undefined;
  amount: bigint;
  status: ReturnStatus;
  /** The PSP's words on a return that was not made (`motivo`). */
  reason: string | undefined;
}

/** Who paid, where the PSP says it (not in the standard's `Pix`: Efí's `gnExtras.pagador`, others' `pagador`). */
export interface Payer {
  cpf: string | undefined;
  cnpj: string | undefined;
  name: string | undefined;
}

/** A received payment (schema Pix). */
export interface ReceivedPix {
  endToEndId: string;
  txid: string | undefined;
  amount: bigint;
  /** When the PSP processed it (`horario`). */
  at: Date;
  payer: Payer | undefined;
  returns: PixReturn[];
}

/** A charge (schema CobCompleta / CobGerada). */
export interface Charge {
  txid: string;
  status: CobStatus;
  amount: bigint;
  key: string;
  createdAt: Date;
  expiresIn: number;
  /** The BR Code text (`pixCopiaECola`); some PSPs omit it from reads. */
  copyAndPaste: string | undefined;
  payments: ReceivedPix[];
}

function oneOf<const T extends readonly string[]>(value: unknown, allowed: T, what: string): T[number] {
  if (typeof value !== 'string' || !allowed.includes(value)) throw new WireError(`${what} is not one of ${allowed.join(', ')}`);
  return value;
}

export function readReturn(value: unknown): PixReturn {
  const body = object(value, 'devolucao');
  return {
    id: text(body.id, 'devolucao.id'),
    rtrId: optionalText(body.rtrId, 'devolucao.rtrId'),
    amount: amountCents(body.valor, 'devolucao.valor'),
    status: oneOf(body.status, RETURN_STATUSES, 'devolucao.status'),
    reason: typeof body.motivo === 'string' ? body.motivo.slice(0, 140) : undefined,
  };
}

function readPayer(body: Json): Payer | undefined {
  const extras = body.gnExtras !== null && typeof body.gnExtras === 'object' ? (body.gnExtras as Json) : undefined;
  const raw = body.pagador ?? extras?.pagador;
  if (raw === null || typeof raw !== 'object') return undefined;
  const payer = raw as Json;
  const field = (name: string) => (typeof payer[name] === 'string' && payer[name] !== '' ? payer[name].slice(0, 200) : undefined);
  return { cpf: field('cpf'), cnpj: field('cnpj'), name: field('nome') };
}

export function readPix(value: unknown): ReceivedPix {
  const body = object(value, 'pix');
  const returns = body.devolucoes;
  return {
    endToEndId: text(body.endToEndId, 'endToEndId', END_TO_END_ID),
    txid: optionalText(body.txid, 'txid'),
    amount: amountCents(body.valor),
    at: instant(body.horario, 'horario'),
    payer: readPayer(body),
    // The spec's own example sends one return as an object; an array is what its schema says.
    returns: returns === undefined || returns === null ? [] : (Array.isArray(returns) ? returns : [returns]).map(readReturn),
  };
}

export function readCharge(value: unknown): Charge {
  const body = object(value, 'cob');
  const calendar = object(body.calendario, 'calendario');
  const amount = object(body.valor, 'valor');
  const payments = body.pix;
  const expiresIn = calendar.expiracao;
  return {
    txid: text(body.txid, 'txid', TXID),
    status: oneOf(body.status, COB_STATUSES, 'status'),
    amount: amountCents(amount.original, 'valor.original'),
    key: text(body.chave, 'chave'),
    createdAt: instant(calendar.criacao, 'calendario.criacao'),
    expiresIn:
      typeof expiresIn === 'number' && Number.isInteger(expiresIn) ? expiresIn : Number(text(String(expiresIn), 'expiracao', /^\d+$/)),
    copyAndPaste: optionalText(body.pixCopiaECola, 'pixCopiaECola'),
    payments: Array.isArray(payments) ? payments.map(readPix) : [],
  };
}

/** One page of `GET /pix` (schema PixConsultados). */
export interface PixPage {
  items: ReceivedPix[];
  page: number;
  pages: number;
}

export function readPixPage(value: unknown): PixPage {
  const body = object(value, 'PixConsultados');
  const paging = object(object(body.parametros, 'parametros').paginacao, 'paginacao');
  const integer = (field: string) => {
    const number = paging[field];
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) throw new WireError(`paginacao.${field} is not an integer`);
    return number;
  };
  // The spec requires `cobs` but answers `pix` (a known quirk); `pix` is what PSPs send.
  const items = body.pix ?? [];
  if (!Array.isArray(items)) throw new WireError('pix is not an array');
  return { items: items.map(readPix), page: integer('paginaAtual'), pages: integer('quantidadeDePaginas') };
}
