import type { PixApiConfig } from './config.ts';
import { PixApiError, type Problem, type Violation } from './errors.ts';
import { TokenSource } from './token.ts';
import { MutualTls } from './transport.ts';
import {
  amountText,
  readCharge,
  readPix,
  readPixPage,
  readReturn,
  WireError,
  type Charge,
  type PixPage,
  type PixReturn,
  type ReceivedPix,
} from './wire.ts';

/** Every call's deadline unless the caller gives one: well inside a webhook's 5 s, a player's patience, a job's tick. */
export const DEFAULT_TIMEOUT_MS = 4000;

export interface PixRequest {
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  /**
   * Where: `path` under the method's `base_url` (`/cob/{txid}`), or `originPath` under its origin
   * (Efí's `/v3/gn/pix/{idEnvio}` lives beside, not under, its `/v2` API Pix base).
   */
  path?: string;
  originPath?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface PixAnswer {
  status: number;
  /** The parsed JSON body; undefined for an empty one. */
  body: unknown;
}

export interface ChargeRequest {
  txid: string;
  amount: bigint;
  /** Seconds the charge stays payable (`calendario.expiracao`). */
  expiresIn: number;
  /** Shown to the payer (`solicitacaoPagador`), at most 140 characters. */
  message: string;
}

export interface ReceivedQuery {
  from: Date;
  to: Date;
  page: number;
  perPage?: number;
  txid?: string;
  /** Only payments made from this CPF (the spec's `cpf` filter). */
  cpf?: string;
  /** Only payments that name a charge (`txIdPresente`). */
  withTxid?: boolean;
}

function problemOf(text: string, status: number): Problem {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') {
      const body = parsed as Record<string, unknown>;
      const string = (value: unknown) => (typeof value === 'string' ? value.slice(0, 500) : undefined);
      const violations = Array.isArray(body.violacoes)
        ? body.violacoes.slice(0, 20).flatMap((item: unknown): Violation[] => {
            if (item === null || typeof item !== 'object') return [];
            const v = item as Record<string, unknown>;
            return [{ razao: string(v.razao), propriedade: string(v.propriedade), valor: string(v.valor) }];
          })
        : undefined;
      return {
        type: string(body.type),
        // Efí answers its own endpoints' errors as `{"nome", "mensagem"}` rather than RFC 7807.
        title: string(body.title) ?? string(body.nome),
        status: typeof body.status === 'number' ? body.status : status,
        detail: string(body.detail) ?? string(body.mensagem),
        correlationId: string(body.correlationId),
        violacoes: violations,
      };
    }
  } catch {
    // Not JSON: the status alone says what happened.
  }
  return { title: `HTTP ${status}`, status };
}

/**
 * One payment method's API Pix (docs/payments.md): OAuth2 client credentials and mutual TLS on
 * every call, a deadline on each, RFC 7807 problems as PixApiError. Never call it inside a
 * database transaction: it is a network call that may take its whole deadline.
 */
export class PixApiClient {
  readonly config: PixApiConfig;
  readonly #tls: MutualTls;
  readonly #tokens: TokenSource;
  readonly #timeoutMs: number;
  readonly #base: URL;

  constructor(config: PixApiConfig, options: { timeoutMs?: number } = {}) {
    this.config = config;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#tls = new MutualTls({ certificate: config.certificate, privateKey: config.privateKey, ca: config.ca });
    this.#tokens = new TokenSource(config, this.#tls, this.#timeoutMs);
    this.#base = new URL(config.baseUrl);
  }

  /**
   * Any call with the method's token: `PixApiError` for anything but a 2xx with a JSON (or empty)
   * body. A 401 (the token expired early, or was revoked) fetches a new token and tries once more.
   */
  async request(call: PixRequest): Promise<PixAnswer> {
    const url = this.#url(call);
    const name = `${call.method} ${url.pathname}`;
    for (let attempt = 1; ; attempt++) {
      const token = await this.#tokens.get();
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        'user-agent': 'croupier',
        ...call.headers,
      };
      const body = call.body === undefined ? undefined : JSON.stringify(call.body);
      if (body !== undefined) headers['content-type'] = 'application/json';
      const answer = await this.#tls.send({ method: call.method, url, headers, body, timeoutMs: call.timeoutMs ?? this.#timeoutMs });
      if (answer.status === 401 && attempt === 1) {
        this.#tokens.refused(token);
        continue;
      }
      if (answer.status < 200 || answer.status > 299) {
        const problem = problemOf(answer.text, answer.status);
        throw new PixApiError('problem', name, problem.title ?? `HTTP ${answer.status}`, { status: answer.status, problem });
      }
      if (answer.text.trim() === '') return { status: answer.status, body: undefined };
      try {
        return { status: answer.status, body: JSON.parse(answer.text) as unknown };
      } catch (error) {
        throw new PixApiError('unexpected', name, 'the answer is not JSON', { status: answer.status, cause: error });
      }
    }
  }

  #url(call: PixRequest): URL {
    const path = call.path !== undefined ? `${this.#base.pathname.replace(/\/+$/, '')}${call.path}` : call.originPath;
    if (path === undefined || !path.startsWith('/')) throw new Error('A PSP call names a path starting with /.');
    const url = new URL(path, this.#base.origin);
    for (const [key, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /** Reads a success body with `read`; a body that does not read is an unexpected answer. */
  async #read<T>(call: PixRequest, read: (body: unknown) => T): Promise<T> {
    const answer = await this.request(call);
    try {
      return read(answer.body);
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      throw new PixApiError('unexpected', `${call.method} ${call.path ?? call.originPath}`, error.message, {
        status: answer.status,
        cause: error,
      });
    }
  }

  /** `PUT /cob/{txid}`: creates the charge (the same txid is the same charge). */
  createCharge(request: ChargeRequest): Promise<Charge> {
    return this.#read(
      {
        method: 'PUT',
        path: `/cob/${encodeURIComponent(request.txid)}`,
        body: {
          calendario: { expiracao: request.expiresIn },
          valor: { original: amountText(request.amount) },
          chave: this.config.pixKey,
          solicitacaoPagador: request.message.slice(0, 140),
        },
      },
      readCharge,
    );
  }

  /** `GET /cob/{txid}`: the charge with the payments it received. */
  charge(txid: string): Promise<Charge> {
    return this.#read({ method: 'GET', path: `/cob/${encodeURIComponent(txid)}` }, readCharge);
  }

  /** `GET /pix/{e2eid}`: one received payment, as the PSP knows it. */
  payment(endToEndId: string): Promise<ReceivedPix> {
    return this.#read({ method: 'GET', path: `/pix/${encodeURIComponent(endToEndId)}` }, readPix);
  }

  /** `GET /pix?inicio&fim&paginacao.paginaAtual…`: one page of the payments received in a window. */
  received(query: ReceivedQuery): Promise<PixPage> {
    return this.#read(
      {
        method: 'GET',
        path: '/pix',
        query: {
          inicio: query.from.toISOString(),
          fim: query.to.toISOString(),
          txid: query.txid,
          cpf: query.cpf,
          txIdPresente: query.withTxid,
          'paginacao.paginaAtual': query.page,
          'paginacao.itensPorPagina': query.perPage ?? 100,
        },
      },
      readPixPage,
    );
  }

  /** `PUT /pix/{e2eid}/devolucao/{id}`: asks for `amount` of a payment back to its payer (the same id is the same return). */
  requestReturn(endToEndId: string, id: string, amount: bigint, message: string): Promise<PixReturn> {
    return this.#read(
      {
        method: 'PUT',
        path: `/pix/${encodeURIComponent(endToEndId)}/devolucao/${encodeURIComponent(id)}`,
        body: { valor: amountText(amount), natureza: 'ORIGINAL', descricao: message.slice(0, 140) },
      },
      readReturn,
    );
  }

  /** `GET /pix/{e2eid}/devolucao/{id}`. */
  return(endToEndId: string, id: string): Promise<PixReturn> {
    return this.#read({ method: 'GET', path: `/pix/${encodeURIComponent(endToEndId)}/devolucao/${encodeURIComponent(id)}` }, readReturn);
  }

  /** `PUT /webhook/{chave}`: the PSP notifies `webhookUrl` (+ `/pix`) of payments to the method's key. */
  async registerWebhook(webhookUrl: string, headers: Record<string, string> = {}): Promise<void> {
    await this.request({ method: 'PUT', path: `/webhook/${encodeURIComponent(this.config.pixKey)}`, body: { webhookUrl }, headers });
  }

  /** `GET /webhook/{chave}`: the URL the PSP notifies, or undefined when none is registered. */
  async webhook(): Promise<string | undefined> {
    try {
      const answer = await this.request({ method: 'GET', path: `/webhook/${encodeURIComponent(this.config.pixKey)}` });
      const url = (answer.body as { webhookUrl?: unknown } | undefined)?.webhookUrl;
      return typeof url === 'string' ? url : undefined;
    } catch (error) {
      if (error instanceof PixApiError && error.notFound) return undefined;
      throw error;
    }
  }

  /** Closes its connections: the method's configuration changed, or the app stops. */
  close(): void {
    this.#tls.close();
  }
}
