// A PSP that speaks the Central Bank's API Pix over real TLS, for tests and benches: it requires
// and verifies a client certificate on every connection (one without is refused during the
// handshake), issues OAuth2 client-credentials tokens, keeps charges, received payments, returns
// and webhooks, and lets a test play the payer, the network and the PSP's bad days. Every answer
// and every request body is checked against the spec's schemas (spec.ts): an answer that does not
// pass is recorded in `drift` and answered 500, so a test cannot pass on a friendly fake.
//
// Extending it (Efí's PIX send, for payouts): `sim.route('PUT', '/v3/gn/pix/:idEnvio', handler,
// { scope: 'pix.send' })` in a file of its own, with `sim.api`'s helpers for answers and problems.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TestPki } from '../pki.ts';
import { dynamicBrCode } from './brcode.ts';
import { violations } from './spec.ts';

export type Flavour = 'standard' | 'efi';

export interface SimulatorOptions {
  pki: TestPki;
  /** `efi`: Efí's token request (HTTP Basic, JSON body) and its `gnExtras.pagador` on payments. */
  flavour?: Flavour;
  /** The receiving account's PIX keys: charges and webhooks for other keys are refused. */
  keys: string[];
  client: { id: string; secret: string | undefined };
  /** Seconds a token lives (default 3600). */
  tokenLifetimeS?: number;
  /** Where API Pix lives under the origin (default `/v2`). */
  basePath?: string;
  /** `efi`: `gnExtras.pagador.cpf` masked (`***.456.789-**`), as a PSP may write it to keep it private. */
  maskPayerCpf?: boolean;
}

export interface SimPayer {
  cpf?: string;
  cnpj?: string;
  name: string;
}

export interface SimReturn {
  id: string;
  rtrId: string;
  valor: bigint;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  solicitacao: Date;
  liquidacao?: Date;
  motivo?: string;
  descricao?: string;
}

export interface SimPayment {
  endToEndId: string;
  txid: string | undefined;
  valor: bigint;
  horario: Date;
  chave: string;
  payer: SimPayer;
  returns: SimReturn[];
}

export interface SimCharge {
  txid: string;
  revisao: number;
  criacao: Date;
  expiracao: number;
  valor: bigint;
  chave: string;
  solicitacaoPagador: string | undefined;
  locId: number;
  location: string;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  payments: string[];
}

export interface SimCall {
  method: string;
  path: string;
  status: number;
  /** The common name of the certificate the client presented on this connection. */
  clientCertificate: string | undefined;
}

interface Token {
  clientId: string;
  scopes: Set<string>;
  expiresAt: number;
}

export interface RouteContext {
  method: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingMessage['headers'];
}

/** What a handler answers: a status, a body, and the spec schema the body must pass. */
export interface Reply {
  status: number;
  body?: unknown;
  schema?: string;
  headers?: Record<string, string>;
}

export type Handler = (context: RouteContext) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
  scope: string | undefined;
}

const ISPB = '09089356';
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TXID = /^[A-Za-z0-9]{26,35}$/;
const E2E = /^[A-Za-z0-9]{32}$/;
const RETURN_ID = /^[A-Za-z0-9]{1,35}$/;
const ERROR_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

function alphanumeric(length: number): string {
  return [...randomBytes(length)].map((byte) => ALPHANUMERIC[byte % 62]).join('');
}

function stamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 12);
}

export function amount(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

function cents(text: string): bigint {
  const [whole, fraction] = text.split('.');
  return BigInt(whole!) * 100n + BigInt(fraction!);
}

/** RFC 7807 as API Pix writes it (schema Problema). */
export function problem(status: number, type: string, title: string, detail?: string, violacoes?: object[]): Reply {
  return {
    status,
    body: { type: `${ERROR_BASE}${type}`, title, status, ...(detail === undefined ? {} : { detail }), ...(violacoes ? { violacoes } : {}) },
    schema: 'Problema',
    headers: { 'content-type': 'application/problem+json' },
  };
}

function equalSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export class PspSimulator {
  readonly options: Required<Omit<SimulatorOptions, 'pki'>> & { pki: TestPki };
  readonly charges = new Map<string, SimCharge>();
  readonly payments = new Map<string, SimPayment>();
  /** Registered webhook URLs by key. */
  readonly webhooks = new Map<string, { url: string; at: Date }>();
  readonly calls: SimCall[] = [];
  /** Answers or request bodies that failed the spec's schemas (a test fails on any). */
  readonly drift: string[] = [];
  tokensIssued = 0;
  /** TLS connections refused (no client certificate, or one no trusted CA signed). */
  tlsRefusals = 0;
  /** Every call (tokens included) answers this status with a problem, or hangs without answering. */
  outage: number | 'hang' | undefined;
  #failNext: { count: number; status: number } = { count: 0, status: 503 };
  #lose: { count: number; matches: (method: string, path: string) => boolean } = { count: 0, matches: () => false };
  #offsetMs = 0;
  #locations = 0;
  readonly #tokens = new Map<string, Token>();
  readonly #routes: Route[] = [];
  readonly #server: Server;
  readonly #hung = new Set<ServerResponse>();
  readonly #peers = new WeakMap<TLSSocket, string | undefined>();
  #origin = '';

  private constructor(options: SimulatorOptions) {
    this.options = { flavour: 'standard', tokenLifetimeS: 3600, basePath: '/v2', maskPayerCpf: false, ...options };
    this.#server = createServer(
      {
        key: options.pki.server.privateKey,
        cert: options.pki.server.certificate,
        ca: options.pki.ca.certificate,
        requestCert: true,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
      },
      (req, res) => void this.#handle(req, res),
    );
    this.#server.on('tlsClientError', () => (this.tlsRefusals += 1));
    this.#registerApiPix();
  }

  static async start(options: SimulatorOptions): Promise<PspSimulator> {
    const sim = new PspSimulator(options);
    await new Promise<void>((resolve) => sim.#server.listen(0, '127.0.0.1', resolve));
    sim.#origin = `https://localhost:${(sim.#server.address() as AddressInfo).port}`;
    return sim;
  }

  /** `https://localhost:<port>`: the certificate names localhost. */
  get origin(): string {
    return this.#origin;
  }

  get baseUrl(): string {
    return `${this.#origin}${this.options.basePath}`;
  }

  get tokenUrl(): string {
    return `${this.#origin}/oauth/token`;
  }

  /**
   * How many `GET {basePath}/pix/{e2eid}` (one received payment) it has answered: the look-ups a
   * receiver made, to count what a notification cost.
   */
  paymentLookups(): number {
    const one = `${this.options.basePath}/pix/`;
    return this.calls.filter((call) => call.method === 'GET' && call.path.startsWith(one) && !call.path.slice(one.length).includes('/'))
      .length;
  }

  /** The PSP's clock (tests move it forward instead of waiting). */
  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  /** The next `count` calls (tokens included) answer `status` with a problem. */
  failNext(count: number, status = 503): void {
    this.#failNext = { count, status };
  }

  /**
   * The next `count` calls that `matches` are carried out, but their answer is lost on the way
   * back (the connection drops): the caller cannot know what happened.
   */
  loseAnswers(count: number, matches: (method: string, path: string) => boolean): void {
    this.#lose = { count, matches };
  }

  /** Every token issued so far is expired: the next call with one answers 401. */
  expireTokens(): void {
    for (const token of this.#tokens.values()) token.expiresAt = 0;
  }

  /** Calls whose answer is held (outage 'hang') are dropped, and the server stops. */
  async stop(): Promise<void> {
    for (const res of this.#hung) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Answers to calls held by `outage = 'hang'`: release them with an error (the network came back). */
  releaseHung(): void {
    for (const res of this.#hung) res.destroy();
    this.#hung.clear();
  }

  /**
   * Registers a route at an origin path (`/v3/gn/pix/:idEnvio`); `scope` set: a bearer token
   * holding it is required. A later registration of the same path takes precedence.
   */
  route(method: string, path: string, handler: Handler, options: { scope?: string } = {}): void {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z][A-Za-z0-9]*)/g, (_match, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}$`,
    );
    // The latest registration wins, so a test or an extension can stand in for a built-in route.
    this.#routes.unshift({ method, pattern, names, handler, scope: options.scope });
  }

  /** An API Pix route under the base path. */
  api(method: string, path: string, handler: Handler, scope: string): void {
    this.route(method, `${this.options.basePath}${path}`, handler, { scope });
  }

  // ---- The payer's side ------------------------------------------------------------------

  /**
   * A payer pays a charge from their bank: a new payment with its endToEndId. By default only an
   * active, unexpired charge can be paid, and for its amount; `amount` and `force` make the
   * payments a PSP should not let through but a receiver must survive (another amount, a second
   * payment of a paid charge, a payment after expiry).
   */
  pay(txid: string, payer: SimPayer, options: { amount?: bigint; force?: boolean } = {}): SimPayment {
    const charge = this.charges.get(txid);
    if (charge === undefined) throw new Error(`no charge ${txid}`);
    const expired = this.now().getTime() > charge.criacao.getTime() + charge.expiracao * 1000;
    if (!options.force && (charge.status !== 'ATIVA' || expired)) throw new Error(`charge ${txid} cannot be paid (${charge.status})`);
    const payment = this.#receive({ txid, valor: options.amount ?? charge.valor, chave: charge.chave, payer });
    charge.payments.push(payment.endToEndId);
    charge.status = 'CONCLUIDA';
    return payment;
  }

  /** A transfer to one of the account's keys, naming no charge (no txid). */
  transfer(key: string, valor: bigint, payer: SimPayer): SimPayment {
    return this.#receive({ txid: undefined, valor, chave: key, payer });
  }

  #receive(input: { txid: string | undefined; valor: bigint; chave: string; payer: SimPayer }): SimPayment {
    const horario = this.now();
    const payment: SimPayment = { endToEndId: `E${ISPB}${stamp(horario)}${alphanumeric(11)}`, horario, returns: [], ...input };
    this.payments.set(payment.endToEndId, payment);
    return payment;
  }

  /** A return reaches its final state at the SPI. */
  settleReturn(endToEndId: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO', motivo?: string): SimReturn {
    const found = this.payments.get(endToEndId)?.returns.find((item) => item.id === id);
    if (found === undefined) throw new Error(`no return ${id} of ${endToEndId}`);
    found.status = status;
    found.liquidacao = status === 'DEVOLVIDO' ? this.now() : undefined;
    if (motivo !== undefined) found.motivo = motivo;
    return found;
  }

  // ---- Notifications ---------------------------------------------------------------------

  /** The body the PSP posts for these payments (`{"pix": [...]}`), checked against the spec. */
  notification(endToEndIds: string[]): { pix: Record<string, unknown>[] } {
    const body = { pix: endToEndIds.map((id) => this.#pixJson(this.#payment(id))) };
    this.#check('#/components/requestBodies/WebhookPixBody/content/application~1json/schema', body, 'notification');
    return body;
  }

  /** Where the PSP posts notifications for `key`: the registered URL with `/pix` appended to the whole string, as the spec's callback says. */
  notificationUrl(key = this.options.keys[0]!): string {
    const registered = this.webhooks.get(key);
    if (registered === undefined) throw new Error(`no webhook registered for ${key}`);
    return `${registered.url}/pix`;
  }

  // ---- Records as API Pix writes them -------------------------------------------------------

  #payment(id: string): SimPayment {
    const payment = this.payments.get(id);
    if (payment === undefined) throw new Error(`no payment ${id}`);
    return payment;
  }

  #returnJson(item: SimReturn): Record<string, unknown> {
    return {
      id: item.id,
      rtrId: item.rtrId,
      valor: amount(item.valor),
      natureza: 'ORIGINAL',
      ...(item.descricao === undefined ? {} : { descricao: item.descricao }),
      horario: { solicitacao: item.solicitacao.toISOString(), ...(item.liquidacao ? { liquidacao: item.liquidacao.toISOString() } : {}) },
      status: item.status,
      ...(item.motivo === undefined ? {} : { motivo: item.motivo }),
    };
  }

  #pixJson(payment: SimPayment): Record<string, unknown> {
    const payer = payment.payer;
    return {
      endToEndId: payment.endToEndId,
      ...(payment.txid === undefined ? {} : { txid: payment.txid }),
      valor: amount(payment.valor),
      componentesValor: { original: { valor: amount(payment.valor) } },
      chave: payment.chave,
      horario: payment.horario.toISOString(),
      ...(payment.returns.length === 0 ? {} : { devolucoes: payment.returns.map((item) => this.#returnJson(item)) }),
      // Not in the standard's Pix: Efí says who paid under gnExtras.
      ...(this.options.flavour === 'efi'
        ? {
            gnExtras: {
              pagador: {
                nome: payer.name,
                ...(payer.cpf
                  ? { cpf: this.options.maskPayerCpf ? `***.${payer.cpf.slice(3, 6)}.${payer.cpf.slice(6, 9)}-**` : payer.cpf }
                  : {}),
                ...(payer.cnpj ? { cnpj: payer.cnpj } : {}),
              },
            },
          }
        : {}),
    };
  }

  #chargeJson(charge: SimCharge, complete: boolean): Record<string, unknown> {
    return {
      calendario: { criacao: charge.criacao.toISOString(), expiracao: charge.expiracao },
      txid: charge.txid,
      revisao: charge.revisao,
      loc: { id: charge.locId, txid: charge.txid, location: charge.location, tipoCob: 'cob', criacao: charge.criacao.toISOString() },
      location: charge.location,
      status: charge.status,
      valor: { original: amount(charge.valor) },
      chave: charge.chave,
      ...(charge.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: charge.solicitacaoPagador }),
      pixCopiaECola: dynamicBrCode(charge.location, 'CROUPIER TESTES', 'SAO PAULO'),
      ...(complete && charge.payments.length > 0 ? { pix: charge.payments.map((id) => this.#pixJson(this.#payment(id))) } : {}),
    };
  }

  // ---- Serving ----------------------------------------------------------------------------

  #check(pointer: string, value: unknown, what: string): boolean {
    const found = violations(pointer, value);
    if (found.length === 0) return true;
    this.drift.push(`${what}: ${JSON.stringify(found.slice(0, 5))}`);
    return false;
  }

  /**
   * The CN of the certificate the client presented on this connection. A connection keeps its
   * certificate for its life, and reading it parses the certificate (a quarter of a millisecond,
   * the simulator's largest cost per call in bench/topup-pix.ts), so it is read once a connection.
   */
  #clientCertificate(socket: TLSSocket): string | undefined {
    if (this.#peers.has(socket)) return this.#peers.get(socket);
    const cn = socket.getPeerCertificate().subject?.CN;
    const name = typeof cn === 'string' ? cn : undefined;
    this.#peers.set(socket, name);
    return name;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const clientCertificate = this.#clientCertificate(req.socket as TLSSocket);
    const url = new URL(req.url ?? '/', this.#origin);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const send = (reply: Reply) => {
      this.calls.push({ method: req.method ?? '', path: url.pathname, status: reply.status, clientCertificate });
      let body = reply.body;
      if (
        body !== undefined &&
        reply.schema !== undefined &&
        !this.#check(reply.schema, body, `${req.method} ${url.pathname} ${reply.status}`)
      ) {
        body = { type: `${ERROR_BASE}ErroInternoDoServidor`, title: 'The simulator drifted from the spec', status: 500 };
        reply = { ...reply, status: 500 };
      }
      if (this.#lose.count > 0 && this.#lose.matches(req.method ?? '', url.pathname)) {
        this.#lose.count -= 1;
        res.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };

    if (this.outage === 'hang') {
      this.#hung.add(res);
      return;
    }
    if (this.outage !== undefined) return send(problem(this.outage, 'ServicoIndisponivel', 'Serviço indisponível'));
    if (this.#failNext.count > 0) {
      this.#failNext.count -= 1;
      return send(problem(this.#failNext.status, 'ServicoIndisponivel', 'Serviço indisponível'));
    }
    if (req.method === 'POST' && url.pathname === '/oauth/token') return send(this.#token(req, raw));

    for (const route of this.#routes) {
      const match = route.method === req.method ? route.pattern.exec(url.pathname) : null;
      if (match === null) continue;
      if (route.scope !== undefined) {
        const refusal = this.#authorize(req, route.scope);
        if (refusal !== undefined) return send(refusal);
      }
      let body: unknown;
      if (raw !== '') {
        try {
          body = JSON.parse(raw);
        } catch {
          return send(problem(400, 'RequisicaoInvalida', 'Requisição inválida', 'O corpo não é JSON.'));
        }
      }
      try {
        const params = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
        return send(await route.handler({ method: route.method, params, query: url.searchParams, body, headers: req.headers }));
      } catch (error) {
        this.drift.push(`${req.method} ${url.pathname}: handler threw ${String(error)}`);
        return send(problem(500, 'ErroInternoDoServidor', 'Erro interno'));
      }
    }
    send(problem(404, 'NaoEncontrado', 'Não encontrado'));
  }

  #authorize(req: IncomingMessage, scope: string): Reply | undefined {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? this.#tokens.get(header.slice(7)) : undefined;
    if (token === undefined || token.expiresAt <= Date.now()) {
      return {
        ...problem(401, 'NaoAutorizado', 'Token ausente, inválido ou expirado'),
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      };
    }
    if (!token.scopes.has(scope)) return problem(403, 'AcessoNegado', 'Acesso negado', `O token não tem o escopo ${scope}.`);
    return undefined;
  }

  /** OAuth2 client credentials (RFC 6749 section 4.4); errors as section 5.2 says. */
  #token(req: IncomingMessage, raw: string): Reply {
    const refuse = (status: number, error: string) => ({ status, body: { error } });
    const { client, flavour } = this.options;
    const type = req.headers['content-type'] ?? '';
    let grant: string | undefined;
    let requested: string | undefined;
    let bodyId: string | undefined;
    let bodySecret: string | undefined;
    if (flavour === 'efi') {
      // Efí: HTTP Basic, and a JSON body naming the grant.
      if (!type.startsWith('application/json')) return refuse(400, 'invalid_request');
      try {
        grant = (JSON.parse(raw) as { grant_type?: string }).grant_type;
      } catch {
        return refuse(400, 'invalid_request');
      }
    } else {
      if (!type.startsWith('application/x-www-form-urlencoded')) return refuse(400, 'invalid_request');
      const form = new URLSearchParams(raw);
      grant = form.get('grant_type') ?? undefined;
      requested = form.get('scope') ?? undefined;
      bodyId = form.get('client_id') ?? undefined;
      bodySecret = form.get('client_secret') ?? undefined;
    }
    const basic = req.headers.authorization?.startsWith('Basic ')
      ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString()
      : undefined;
    // RFC 6749 section 2.3: one way to authenticate per request.
    if (basic !== undefined && bodyId !== undefined) return refuse(400, 'invalid_request');
    const [id, secret] =
      basic !== undefined ? [basic.slice(0, basic.indexOf(':')), basic.slice(basic.indexOf(':') + 1)] : [bodyId, bodySecret];
    if (id !== client.id || (client.secret !== undefined && !equalSecret(secret ?? '', client.secret)))
      return refuse(401, 'invalid_client');
    if (grant !== 'client_credentials') return refuse(400, 'unsupported_grant_type');
    const all = ['cob.write', 'cob.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read', 'pix.send', 'gn.pix.send.read'];
    const scopes = new Set(requested === undefined ? all : requested.split(' ').filter((scope) => all.includes(scope)));
    const value = alphanumeric(40);
    this.#tokens.set(value, { clientId: id, scopes, expiresAt: Date.now() + this.options.tokenLifetimeS * 1000 });
    this.tokensIssued += 1;
    return {
      status: 200,
      body: { access_token: value, token_type: 'Bearer', expires_in: this.options.tokenLifetimeS, scope: [...scopes].join(' ') },
    };
  }

  #registerApiPix(): void {
    const notFound = (type: string) => problem(404, type, 'Não encontrado');

    this.api(
      'PUT',
      '/cob/:txid',
      ({ params, body }) => {
        const txid = params.txid!;
        const invalid = (propriedade: string, razao: string) =>
          problem(400, 'CobOperacaoInvalida', 'Cobrança inválida.', 'A requisição que busca criar uma cobrança não respeita o schema.', [
            { propriedade, razao },
          ]);
        if (!TXID.test(txid)) return invalid('cob.txid', 'O txid deve ter de 26 a 35 letras e dígitos.');
        const found = violations('CobSolicitada', body);
        if (found.length > 0) return invalid(`cob.${found[0]!.propriedade}`, found[0]!.razao);
        const request = body as {
          calendario?: { expiracao?: number };
          valor: { original: string };
          chave: string;
          solicitacaoPagador?: string;
        };
        const expiracao = request.calendario?.expiracao ?? 86_400;
        if (!Number.isInteger(expiracao) || expiracao <= 0)
          return invalid('cob.calendario.expiracao', 'A expiração deve ser maior que zero.');
        if (!/^\d{1,10}\.\d{2}$/.test(request.valor.original) || cents(request.valor.original) === 0n)
          return invalid('cob.valor.original', 'O valor deve ser maior que zero.');
        if (!this.options.keys.includes(request.chave)) return invalid('cob.chave', 'A chave não pertence a este usuário recebedor.');
        const existing = this.charges.get(txid);
        if (existing !== undefined && existing.status !== 'ATIVA') return invalid('cob', 'A cobrança já existe e não está ATIVA.');
        const locId = existing?.locId ?? (this.#locations += 1);
        const charge: SimCharge = {
          txid,
          revisao: existing === undefined ? 0 : existing.revisao + 1,
          criacao: existing?.criacao ?? this.now(),
          expiracao,
          valor: cents(request.valor.original),
          chave: request.chave,
          solicitacaoPagador: request.solicitacaoPagador,
          locId,
          location: existing?.location ?? `localhost/qr/v2/${randomBytes(16).toString('hex')}`,
          status: 'ATIVA',
          payments: existing?.payments ?? [],
        };
        this.charges.set(txid, charge);
        return { status: 201, body: this.#chargeJson(charge, false), schema: 'CobGerada' };
      },
      'cob.write',
    );

    this.api(
      'GET',
      '/cob/:txid',
      ({ params }) => {
        const charge = this.charges.get(params.txid!);
        return charge === undefined
          ? notFound('CobNaoEncontrado')
          : { status: 200, body: this.#chargeJson(charge, true), schema: 'CobCompleta' };
      },
      'cob.read',
    );

    this.api(
      'GET',
      '/pix/:e2eid',
      ({ params }) => {
        const payment = E2E.test(params.e2eid!) ? this.payments.get(params.e2eid!) : undefined;
        return payment === undefined ? notFound('PixNaoEncontrado') : { status: 200, body: this.#pixJson(payment), schema: 'Pix' };
      },
      'pix.read',
    );

    this.api(
      'GET',
      '/pix',
      ({ query }) => {
        const invalid = (razao: string) =>
          problem(400, 'PixConsultaInvalida', 'Consulta inválida', undefined, [{ propriedade: 'consulta', razao }]);
        const from = new Date(query.get('inicio') ?? '');
        const to = new Date(query.get('fim') ?? '');
        if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return invalid('inicio e fim são obrigatórios (RFC 3339).');
        if (to < from) return invalid('fim é anterior a inicio.');
        if (query.has('cpf') && query.has('cnpj')) return invalid('cpf e cnpj ao mesmo tempo.');
        // The spec's parameter patterns: CPF 11 digits, CNPJ 14 letters or digits, txid 1 to 35 letters and digits.
        if (query.has('cpf') && !/^\d{11}$/.test(query.get('cpf')!)) return invalid('cpf não respeita o schema.');
        if (query.has('cnpj') && !/^[0-9A-Z]{14}$/.test(query.get('cnpj')!)) return invalid('cnpj não respeita o schema.');
        if (query.has('txid') && !/^[a-zA-Z0-9]{1,35}$/.test(query.get('txid')!)) return invalid('txid não respeita o schema.');
        const page = Number(query.get('paginacao.paginaAtual') ?? '0');
        const perPage = Number(query.get('paginacao.itensPorPagina') ?? '100');
        if (!Number.isInteger(page) || page < 0 || !Number.isInteger(perPage) || perPage < 1 || perPage > 1000)
          return invalid('paginação fora do schema.');
        const txid = query.get('txid');
        const cpf = query.get('cpf');
        const cnpj = query.get('cnpj');
        const all = [...this.payments.values()]
          .filter((payment) => payment.horario >= from && payment.horario <= to)
          .filter((payment) => txid === null || payment.txid === txid)
          .filter((payment) => cpf === null || payment.payer.cpf === cpf)
          .filter((payment) => cnpj === null || payment.payer.cnpj === cnpj)
          .filter(
            (payment) => query.get('txIdPresente') === null || (payment.txid !== undefined) === (query.get('txIdPresente') === 'true'),
          )
          .filter(
            (payment) =>
              query.get('devolucaoPresente') === null || payment.returns.length > 0 === (query.get('devolucaoPresente') === 'true'),
          )
          .sort((a, b) => a.horario.getTime() - b.horario.getTime());
        const pages = Math.max(1, Math.ceil(all.length / perPage));
        return {
          status: 200,
          body: {
            parametros: {
              inicio: from.toISOString(),
              fim: to.toISOString(),
              paginacao: { paginaAtual: page, itensPorPagina: perPage, quantidadeDePaginas: pages, quantidadeTotalDeItens: all.length },
            },
            pix: all.slice(page * perPage, (page + 1) * perPage).map((payment) => this.#pixJson(payment)),
          },
          schema: 'PixConsultados',
        };
      },
      'pix.read',
    );

    this.api(
      'PUT',
      '/pix/:e2eid/devolucao/:id',
      ({ params, body }) => {
        const payment = this.payments.get(params.e2eid!);
        if (payment === undefined) return notFound('PixNaoEncontrado');
        const invalid = (razao: string) =>
          problem(400, 'PixDevolucaoInvalida', 'Devolução inválida', undefined, [{ propriedade: 'devolucao', razao }]);
        if (!RETURN_ID.test(params.id!)) return invalid('O id da devolução deve ter de 1 a 35 letras e dígitos.');
        const found = violations('DevolucaoSolicitada', body);
        if (found.length > 0) return invalid(`${found[0]!.propriedade}: ${found[0]!.razao}`);
        if (payment.returns.some((item) => item.id === params.id))
          return invalid(
            'A presente requisição de devolução apresenta um id já utilizado por outra requisição de devolução para o e2eid em questão.',
          );
        const request = body as { valor: string; descricao?: string };
        const valor = cents(request.valor);
        const returned = payment.returns.filter((item) => item.status !== 'NAO_REALIZADO').reduce((sum, item) => sum + item.valor, 0n);
        if (valor <= 0n || returned + valor > payment.valor) return invalid('A devolução excederia o valor do pix originário.');
        const created: SimReturn = {
          id: params.id!,
          rtrId: `D${ISPB}${stamp(this.now())}${alphanumeric(11)}`,
          valor,
          status: 'EM_PROCESSAMENTO',
          solicitacao: this.now(),
          descricao: request.descricao,
        };
        payment.returns.push(created);
        return { status: 201, body: this.#returnJson(created), schema: 'Devolucao' };
      },
      'pix.write',
    );

    this.api(
      'GET',
      '/pix/:e2eid/devolucao/:id',
      ({ params }) => {
        const found = this.payments.get(params.e2eid!)?.returns.find((item) => item.id === params.id);
        return found === undefined
          ? notFound('PixDevolucaoNaoEncontrada')
          : { status: 200, body: this.#returnJson(found), schema: 'Devolucao' };
      },
      'pix.read',
    );

    this.api(
      'PUT',
      '/webhook/:chave',
      ({ params, body }) => {
        const invalid = (razao: string) =>
          problem(400, 'WebhookOperacaoInvalida', 'Webhook inválido', undefined, [{ propriedade: 'webhookUrl', razao }]);
        if (!this.options.keys.includes(params.chave!)) return invalid('A chave não pertence a este usuário recebedor.');
        if (violations('WebhookSolicitado', body).length > 0) return invalid('webhookUrl não respeita o schema.');
        this.webhooks.set(params.chave!, { url: (body as { webhookUrl: string }).webhookUrl, at: this.now() });
        return { status: 200 };
      },
      'webhook.write',
    );

    this.api(
      'GET',
      '/webhook/:chave',
      ({ params }) => {
        const found = this.webhooks.get(params.chave!);
        if (found === undefined) return notFound('WebhookNaoEncontrado');
        return {
          status: 200,
          body: { webhookUrl: found.url, chave: params.chave, cnpj: '12345678000195', criacao: found.at.toISOString() },
          schema: 'WebhookCompleto',
        };
      },
      'webhook.read',
    );

    this.api(
      'DELETE',
      '/webhook/:chave',
      ({ params }) => (this.webhooks.delete(params.chave!) ? { status: 204 } : notFound('WebhookNaoEncontrado')),
      'webhook.write',
    );
  }
}
