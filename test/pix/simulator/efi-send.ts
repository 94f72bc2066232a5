// Efí's PIX send added to the PSP simulator (psp.ts, through its `route()`): `PUT
// /v3/gn/pix/:idEnvio` and `GET /v2/gn/pix/enviados/id-envio/:idEnvio`, and the notifications of
// sends, as Efí documents them (efi-send-schema.ts says where). Every body we send and every
// answer it gives is checked against those schemas: a violation is recorded in the simulator's
// `drift` (a test fails on any) and a request that breaks them is refused as Efí would.
//
// What it plays:
// - Efí's homologation rules (`homologation: true`): 0.01–10.00 is made (REALIZADO), 10.01–20.00
//   is not (NAO_REALIZADO), both told by notification; above 20.00 is refused in the request, no
//   notification; a key other than the homologation key `efipay@sejaefi.com.br` is refused as an
//   invalid key. Without it, every send is made unless a test decides otherwise (`decide`).
// - The DICT's holders (`holders`: key → CPF): a send naming `favorecido.cpf` to a key held by
//   another CPF is refused (`chave_nao_pertence_ao_documento`); a CPF key is held by its CPF.
// - One idEnvio, one send: another PUT with it is a 409 `id_envio_duplicado`.
// - The network: the answer to a send that was made can be lost (`loseNextAnswer`: the send is
//   kept, the caller gets a 503 or no answer at all), a notification can be dropped
//   (`dropNotifications`), and notifications are posted through `deliver` (a test hands it the app).
// Sends stay EM_PROCESSAMENTO until the test lets the SPI run (`process`).
// Not played: the homologation's sends of 4.00 and 5.00 that come back as received returns (money
// a payee sends back is a received payment, not a payout's outcome), and sends to bank accounts
// (`favorecido.contaBanco`: the service pays keys only; the schema still knows the form).
import { randomBytes } from 'node:crypto';
import { amount, problem, type PspSimulator, type Reply } from './psp.ts';
import { efiViolations, type EfiSchema } from './efi-send-schema.ts';

export const HOMOLOGATION_KEY = 'efipay@sejaefi.com.br';
const ISPB = '09089356';
const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type SendStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';

export interface SimSend {
  idEnvio: string;
  endToEndId: string;
  valor: bigint;
  payerKey: string;
  payeeKey: string;
  /** The CPF the request named (`favorecido.cpf`), if any. */
  cpf: string | undefined;
  infoPagador: string | undefined;
  status: SendStatus;
  solicitacao: Date;
  liquidacao: Date | undefined;
  /** Why it was not made (`gnExtras.erro` of its notification). */
  erro: { codigo: string; origem: string; motivo: string } | undefined;
}

export interface EfiSendOptions {
  homologation?: boolean;
  /** Posts a notification to the URL registered for the payer's key; the test decides how it reaches the app. */
  deliver?: (url: string, body: unknown) => Promise<void>;
}

function cents(text: string): bigint {
  const [whole, fraction] = text.split('.');
  return BigInt(whole!) * 100n + BigInt(fraction!);
}

function endToEndId(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[^0-9]/g, '')
    .slice(0, 12);
  return `E${ISPB}${stamp}${[...randomBytes(11)].map((byte) => ALPHANUMERIC[byte % 62]).join('')}`;
}

function maskCpf(cpf: string): string {
  return `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**`;
}

/** Efí's own error shape (`{nome, mensagem}`). */
function efiError(status: number, nome: string, mensagem: string): Reply {
  return { status, body: { nome, mensagem } };
}

export class EfiPixSend {
  readonly sim: PspSimulator;
  readonly sends = new Map<string, SimSend>();
  /** Every PUT body received, valid or not, in order (what we sent, for tests to read). */
  readonly requests: { idEnvio: string; body: unknown }[] = [];
  /** Notifications posted, dropped ones included. */
  readonly notifications: { body: unknown; dropped: boolean }[] = [];
  /** DICT: who holds a key (CPF). A CPF key is held by its own CPF without being listed. */
  readonly holders = new Map<string, { cpf: string; name: string }>();
  homologation: boolean;
  dropNotifications = false;
  /** The next send is made, and its answer lost: a 503 (`'error'`) or none before the caller's deadline (`'hang'`). */
  loseNextAnswer: 'error' | 'hang' | undefined;
  deliver: ((url: string, body: unknown) => Promise<void>) | undefined;
  readonly #decided = new Map<string, { status: 'REALIZADO' | 'NAO_REALIZADO'; motivo?: string }>();

  private constructor(sim: PspSimulator, options: EfiSendOptions) {
    this.sim = sim;
    this.homologation = options.homologation ?? false;
    this.deliver = options.deliver;
  }

  /** Adds Efí's PIX send to `sim` (an `efi` flavoured simulator). */
  static install(sim: PspSimulator, options: EfiSendOptions = {}): EfiPixSend {
    const send = new EfiPixSend(sim, options);
    sim.route('PUT', '/v3/gn/pix/:idEnvio', (context) => send.#put(context.params.idEnvio!, context.body), { scope: 'pix.send' });
    sim.route('GET', '/v2/gn/pix/enviados/id-envio/:idEnvio', (context) => send.#get(context.params.idEnvio!), {
      scope: 'gn.pix.send.read',
    });
    return send;
  }

  /** What the SPI will make of a send still in processing (otherwise: the homologation rule, or made). */
  decide(idEnvio: string, status: 'REALIZADO' | 'NAO_REALIZADO', motivo?: string): void {
    this.#decided.set(idEnvio, { status, motivo });
  }

  /**
   * The SPI runs: every send still EM_PROCESSAMENTO (or only `idEnvio`'s) reaches its end, and
   * the PSP notifies the webhook of the payer's key (unless notifications are dropped).
   */
  async process(idEnvio?: string): Promise<SimSend[]> {
    const done: SimSend[] = [];
    for (const send of this.sends.values()) {
      if (send.status !== 'EM_PROCESSAMENTO' || (idEnvio !== undefined && send.idEnvio !== idEnvio)) continue;
      const decided = this.#decided.get(send.idEnvio) ?? this.#rule(send);
      send.status = decided.status;
      if (decided.status === 'REALIZADO') send.liquidacao = this.sim.now();
      else
        send.erro = {
          codigo: 'AC03',
          origem: 'PSP do usuário recebedor',
          motivo: decided.motivo ?? 'Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido',
        };
      done.push(send);
    }
    for (const send of done) await this.notify(send.idEnvio);
    return done;
  }

  /** The notification of one send, checked against Efí's schema. */
  notification(idEnvio: string): { pix: Record<string, unknown>[] } {
    const send = this.sends.get(idEnvio);
    if (send === undefined) throw new Error(`no send ${idEnvio}`);
    const body = {
      pix: [
        {
          endToEndId: send.endToEndId,
          chave: send.payerKey,
          tipo: 'SOLICITACAO',
          status: send.status,
          valor: amount(send.valor),
          horario: send.status === 'REALIZADO' ? send.liquidacao!.toISOString() : null,
          ...(send.infoPagador === undefined ? {} : { infoPagador: send.infoPagador }),
          gnExtras: { idEnvio: send.idEnvio, ...(send.erro === undefined ? {} : { erro: send.erro }) },
        },
      ],
    };
    this.#check('SendNotification', body, 'send notification');
    return body;
  }

  /** Posts `idEnvio`'s notification to the webhook registered for its payer key (or drops it). */
  async notify(idEnvio: string): Promise<void> {
    const body = this.notification(idEnvio);
    const dropped = this.dropNotifications;
    this.notifications.push({ body, dropped });
    if (dropped) return;
    if (this.deliver === undefined) throw new Error('no deliver() to post notifications with');
    await this.deliver(this.sim.notificationUrl(this.sends.get(idEnvio)!.payerKey), body);
  }

  #rule(send: SimSend): { status: 'REALIZADO' | 'NAO_REALIZADO'; motivo?: string } {
    if (!this.homologation || send.valor <= 1000n) return { status: 'REALIZADO' };
    return { status: 'NAO_REALIZADO', motivo: 'Pix rejeitado (homologação: valor entre R$ 10,01 e R$ 20,00)' };
  }

  #check(schema: EfiSchema, value: unknown, what: string): boolean {
    const found = efiViolations(schema, value);
    if (found.length === 0) return true;
    this.sim.drift.push(`${what}: ${JSON.stringify(found.slice(0, 5))}`);
    return false;
  }

  #answer(reply: Reply, schema: EfiSchema): Reply {
    if (reply.body !== undefined && !this.#check(schema, reply.body, `efi answer ${reply.status}`))
      return efiError(500, 'erro_aplicacao', 'O simulador saiu do que a Efí documenta');
    return reply;
  }

  #put(idEnvio: string, body: unknown): Reply | Promise<Reply> {
    this.requests.push({ idEnvio, body });
    const refuse = (status: number, nome: string, mensagem: string) => this.#answer(efiError(status, nome, mensagem), 'EfiError');
    if (!ID_ENVIO.test(idEnvio)) return refuse(400, 'valor_invalido', 'O idEnvio deve ter de 1 a 35 letras e dígitos.');
    // What we send must be what Efí documents: anything else is our bug, and a refusal there.
    if (!this.#check('PixSendRequest', body, `PUT /v3/gn/pix/${idEnvio} request`))
      return refuse(400, 'valor_invalido', 'A requisição não respeita o schema do envio de Pix.');
    const request = body as {
      valor: string;
      pagador: { chave: string; infoPagador?: string };
      favorecido: { chave: string; cpf?: string };
    };
    if (this.sends.has(idEnvio)) return refuse(409, 'id_envio_duplicado', 'O id de envio informado já foi utilizado em outro pagamento');
    if (!this.sim.options.keys.includes(request.pagador.chave))
      return refuse(400, 'chave_invalida', 'A chave informada não faz referência à conta Efí autenticada');
    const valor = cents(request.valor);
    if (valor <= 0n) return refuse(400, 'valor_invalido', 'Campo valor deve ser maior que zero');
    if (this.homologation && request.favorecido.chave !== HOMOLOGATION_KEY)
      return refuse(400, 'chave_invalida', 'Em homologação, envios por chave só são aceitos para a chave de homologação');
    if (this.homologation && valor > 2000n) return refuse(422, 'pagamento_negado', 'Pagamento negado por análises');
    const holder = this.#holderCpf(request.favorecido.chave);
    if (request.favorecido.cpf !== undefined && holder !== undefined && holder !== request.favorecido.cpf)
      return refuse(400, 'chave_nao_pertence_ao_documento', 'O cpf do favorecido é diferente do documento em posse da chave');
    const at = this.sim.now();
    const send: SimSend = {
      idEnvio,
      endToEndId: endToEndId(at),
      valor,
      payerKey: request.pagador.chave,
      payeeKey: request.favorecido.chave,
      cpf: request.favorecido.cpf,
      infoPagador: request.pagador.infoPagador,
      status: 'EM_PROCESSAMENTO',
      solicitacao: at,
      liquidacao: undefined,
      erro: undefined,
    };
    this.sends.set(idEnvio, send);
    const lost = this.loseNextAnswer;
    this.loseNextAnswer = undefined;
    if (lost === 'error') return problem(503, 'ServicoIndisponivel', 'Serviço indisponível');
    if (lost === 'hang') return new Promise<Reply>(() => undefined);
    return this.#answer(
      {
        status: 201,
        body: { idEnvio, e2eId: send.endToEndId, valor: request.valor, horario: { solicitacao: at.toISOString() }, status: send.status },
      },
      'PixSendAnswer',
    );
  }

  #get(idEnvio: string): Reply {
    const send = this.sends.get(idEnvio);
    if (send === undefined)
      return problem(404, 'PixEnviadoNaoEncontrado', 'Não Encontrado', 'Pix enviado não encontrado para o idEnvio informado.');
    const holder = this.holders.get(send.payeeKey);
    const cpf = this.#holderCpf(send.payeeKey);
    return this.#answer(
      {
        status: 200,
        body: {
          endToEndId: send.endToEndId,
          idEnvio: send.idEnvio,
          valor: amount(send.valor),
          chave: send.payerKey,
          status: send.status,
          ...(send.infoPagador === undefined ? {} : { infoPagador: send.infoPagador }),
          horario: {
            solicitacao: send.solicitacao.toISOString(),
            ...(send.liquidacao === undefined ? {} : { liquidacao: send.liquidacao.toISOString() }),
          },
          favorecido: {
            chave: send.payeeKey,
            identificacao: { nome: holder?.name ?? 'Favorecido', ...(cpf === undefined ? {} : { cpf: maskCpf(cpf) }) },
          },
        },
      },
      'SentPix',
    );
  }

  #holderCpf(key: string): string | undefined {
    return this.holders.get(key)?.cpf ?? (/^\d{11}$/.test(key) ? key : undefined);
  }
}
