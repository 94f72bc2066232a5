/**
 * Efí's PIX send as we read and write it (Efí's public documentation, "Envio de Pix":
 * `PUT /v3/gn/pix/:idEnvio`, `GET /v2/gn/pix/enviados/id-envio/:idEnvio`, and the notifications
 * of sends, items naming `gnExtras.idEnvio`). Only the fields we act on, each checked; amounts as
 * integer cents. A PSP answer that lacks one of them is not guessed at: the reader throws and the
 * call counts as an unexpected answer.
 */
import { amountCents, amountText, WireError } from '../pix-api/wire.ts';

/** `idEnvio`: 1 to 35 letters and digits (Efí: `^[a-zA-Z0-9]{1,35}$`). */
export const ID_ENVIO = /^[A-Za-z0-9]{1,35}$/;

/**
 * The idEnvio of a withdrawal's payout: its reference, the same on every attempt, so a retried
 * send is the same payout (Efí answers 409 `id_envio_duplicado` to a second one). References are
 * `WD` and 32 hex digits (request_withdrawal.sql), inside Efí's charset and length, so a
 * notification's idEnvio names the withdrawal directly, and an operator finds the payout in
 * Efí's dashboard by the reference the admin record shows.
 */
export function sendId(reference: string): string {
  if (!ID_ENVIO.test(reference)) throw new Error(`a withdrawal reference is not a valid Efí idEnvio: ${JSON.stringify(reference)}`);
  return reference;
}

/** Statuses of a sent PIX (`EM_PROCESSAMENTO`, then `REALIZADO` or `NAO_REALIZADO`). */
export const SEND_STATUSES = ['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO'] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

/** The body of `PUT /v3/gn/pix/:idEnvio` to a PIX key. */
export interface SendBody {
  valor: string;
  pagador: { chave: string; infoPagador?: string };
  /** `cpf`: the PSP refuses the send when the key's holder has another CPF. */
  favorecido: { chave: string; cpf?: string };
}

export function sendBody(input: { amount: bigint; payerKey: string; payeeKey: string; payeeCpf?: string; message: string }): SendBody {
  const info = input.message.slice(0, 140);
  return {
    valor: amountText(input.amount),
    pagador: { chave: input.payerKey, ...(info === '' ? {} : { infoPagador: info }) },
    favorecido: { chave: input.payeeKey, ...(input.payeeCpf === undefined ? {} : { cpf: input.payeeCpf }) },
  };
}

/** A send as the PSP reports it: the answer to the PUT, or the status query. */
export interface SentPix {
  idEnvio: string;
  /** The PIX endToEndId; Efí's documentation writes it `e2eId` in the PUT's answer, `endToEndId` elsewhere. */
  endToEndId: string | undefined;
  amount: bigint;
  status: SendStatus;
}

type Json = Record<string, unknown>;

function object(value: unknown, what: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new WireError(`${what} is not an object`);
  return value as Json;
}

function optionalText(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > 100) throw new WireError(`${what} is malformed`);
  return value;
}

export function readSentPix(value: unknown): SentPix {
  const body = object(value, 'pix enviado');
  const idEnvio = body.idEnvio;
  if (typeof idEnvio !== 'string' || !ID_ENVIO.test(idEnvio)) throw new WireError('idEnvio is missing or malformed');
  const status = body.status;
  if (typeof status !== 'string' || !(SEND_STATUSES as readonly string[]).includes(status))
    throw new WireError(`status is not one of ${SEND_STATUSES.join(', ')}`);
  return {
    idEnvio,
    endToEndId: optionalText(body.endToEndId, 'endToEndId') ?? optionalText(body.e2eId, 'e2eId'),
    amount: amountCents(body.valor),
    status: status as SendStatus,
  };
}

/**
 * One item of a notification that names a send (`gnExtras.idEnvio`), as far as we trust it: which
 * send it names, and the PSP's words on a failure (`gnExtras.erro.motivo`). Its status is never
 * acted on: the status query says what happened. Undefined for an item that names no send.
 */
export interface SendNotice {
  idEnvio: string;
  reason: string | undefined;
}

export function readSendNotice(value: unknown): SendNotice | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const extras = (value as Json).gnExtras;
  if (extras === null || typeof extras !== 'object' || Array.isArray(extras)) return undefined;
  const idEnvio = (extras as Json).idEnvio;
  if (typeof idEnvio !== 'string' || !ID_ENVIO.test(idEnvio)) return undefined;
  const error = (extras as Json).erro;
  const reason =
    error !== null && typeof error === 'object' && typeof (error as Json).motivo === 'string'
      ? ((error as Json).motivo as string).slice(0, 200)
      : undefined;
  return { idEnvio, reason };
}
