// Efí's PIX send as its public documentation describes it, written down as JSON Schema, so the
// simulator (efi-send.ts) checks every body we send and every answer it gives against it and
// cannot drift into a fake that agrees with whatever we send. Efí publishes no machine-readable
// spec of these endpoints; the schemas are written from:
//
// - Efí's developer documentation, "Envio e Pagamento Pix" (dev.efipay.com.br/docs/api-pix/
//   envio-pagamento-pix): "Requisitar envio de Pix" `PUT /v3/gn/pix/:idEnvio` (scope pix.send;
//   request examples to a key, to a key "validando o titular da chave" with `favorecido.cpf`;
//   answer 201 `{idEnvio, e2eId, valor, horario.solicitacao, status: EM_PROCESSAMENTO}`; errors
//   400 `documento_bloqueado`, `chave_invalida`, `chave_nao_pertence_ao_documento`,
//   `valor_invalido`, 409 `id_envio_duplicado`, 422 `pagamento_negado`, 500 `erro_aplicacao`, each
//   `{nome, mensagem}`) and "Consultar Pix enviado através do Identificador da transação" `GET
//   /v2/gn/pix/enviados/id-envio/:idEnvio` (scope gn.pix.send.read; 200 `{endToEndId, idEnvio,
//   valor, chave, status, infoPagador, horario{solicitacao, liquidacao}, favorecido{chave,
//   identificacao{nome, cpf}}}` with the CPF masked; 404 as RFC 7807 `PixEnviadoNaoEncontrado`);
//   the statuses EM_PROCESSAMENTO, REALIZADO, NAO_REALIZADO;
// - "Webhooks", "Recebendo Callbacks" (dev.efipay.com.br/docs/api-pix/webhooks): a send's
//   notification, `{"pix": [{endToEndId, chave, tipo: "SOLICITACAO", status, valor, horario
//   (null when not made), infoPagador?, gnExtras: {idEnvio, erro?: {codigo, origem, motivo}}}]}`;
// - the field rules of Efí's own SDK and MCP server (github.com/efipay/sdk-node-apis-efi,
//   src/types/pix.ts `PixSendBodySchema`; github.com/efipay/mcp-server-efi, pixSend: idEnvio
//   `^[a-zA-Z0-9]{1,35}$`, keys at most 77 characters, `favorecido` either `{chave, cpf?}`,
//   `{chave, cnpj?}` or `{contaBanco}`, no other property).
//
// Where the two disagree on a name, both are allowed and said so: the PUT's answer writes the
// endToEndId `e2eId` in the documentation and `endToEndId` in the SDK.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const amount = { type: 'string', pattern: '^\\d{1,10}\\.\\d{2}$' };
const key = { type: 'string', minLength: 1, maxLength: 77 };
const instant = { type: 'string', format: 'date-time' };
const endToEndId = { type: 'string', pattern: '^[A-Za-z0-9]{32}$' };
const idEnvio = { type: 'string', pattern: '^[a-zA-Z0-9]{1,35}$' };
const status = { type: 'string', enum: ['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO'] };
const bankAccount = {
  type: 'object',
  required: ['nome', 'codigoBanco', 'agencia', 'conta', 'tipoConta'],
  properties: {
    nome: { type: 'string', maxLength: 199 },
    cpf: { type: 'string', pattern: '^\\d{11}$' },
    cnpj: { type: 'string', pattern: '^\\d{14}$' },
    codigoBanco: { type: 'string', pattern: '^\\d{8}$' },
    agencia: { type: 'string', pattern: '^\\d{1,4}$' },
    conta: { type: 'string', pattern: '^\\d+$' },
    tipoConta: { type: 'string', enum: ['cacc', 'svgs', 'tran'] },
  },
  additionalProperties: false,
};

const SCHEMAS = {
  /** The body of `PUT /v3/gn/pix/:idEnvio`. */
  PixSendRequest: {
    type: 'object',
    required: ['valor', 'pagador', 'favorecido'],
    properties: {
      valor: amount,
      pagador: {
        type: 'object',
        required: ['chave'],
        properties: { chave: key, infoPagador: { type: 'string', maxLength: 140 } },
        additionalProperties: false,
      },
      favorecido: {
        oneOf: [
          {
            type: 'object',
            required: ['chave'],
            properties: { chave: key, cpf: { type: 'string', pattern: '^\\d{11}$' }, cnpj: { type: 'string', pattern: '^\\d{14}$' } },
            not: { required: ['cpf', 'cnpj'] },
            additionalProperties: false,
          },
          { type: 'object', required: ['contaBanco'], properties: { contaBanco: bankAccount }, additionalProperties: false },
        ],
      },
    },
    additionalProperties: false,
  },
  /** The 201 answer to it. */
  PixSendAnswer: {
    type: 'object',
    required: ['idEnvio', 'valor', 'horario', 'status'],
    properties: {
      idEnvio,
      e2eId: endToEndId,
      endToEndId,
      valor: amount,
      horario: { type: 'object', required: ['solicitacao'], properties: { solicitacao: instant } },
      status: { const: 'EM_PROCESSAMENTO' },
    },
    anyOf: [{ required: ['e2eId'] }, { required: ['endToEndId'] }],
  },
  /** `GET /v2/gn/pix/enviados/id-envio/:idEnvio`, 200. */
  SentPix: {
    type: 'object',
    required: ['endToEndId', 'idEnvio', 'valor', 'chave', 'status', 'horario', 'favorecido'],
    properties: {
      endToEndId,
      idEnvio,
      valor: amount,
      chave: key,
      status,
      infoPagador: { type: 'string' },
      horario: { type: 'object', required: ['solicitacao'], properties: { solicitacao: instant, liquidacao: instant } },
      favorecido: {
        type: 'object',
        properties: {
          chave: key,
          identificacao: { type: 'object', properties: { nome: { type: 'string' }, cpf: { type: 'string' }, cnpj: { type: 'string' } } },
          contaBanco: { type: 'object' },
        },
        anyOf: [{ required: ['chave'] }, { required: ['contaBanco'] }],
      },
    },
  },
  /** A notification of sends, as posted to the registered webhook URL + `/pix`. */
  SendNotification: {
    type: 'object',
    required: ['pix'],
    properties: {
      pix: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['endToEndId', 'chave', 'tipo', 'status', 'valor', 'horario', 'gnExtras'],
          properties: {
            endToEndId,
            chave: key,
            tipo: { const: 'SOLICITACAO' },
            status: { enum: ['REALIZADO', 'NAO_REALIZADO'] },
            valor: amount,
            horario: { oneOf: [instant, { type: 'null' }] },
            infoPagador: { type: 'string' },
            gnExtras: {
              type: 'object',
              required: ['idEnvio'],
              properties: {
                idEnvio,
                erro: {
                  type: 'object',
                  required: ['codigo', 'origem', 'motivo'],
                  properties: { codigo: { type: 'string' }, origem: { type: 'string' }, motivo: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    },
  },
  /** Efí's error answer of its own endpoints. */
  EfiError: {
    type: 'object',
    required: ['nome', 'mensagem'],
    properties: { nome: { type: 'string', pattern: '^[a-z_]+$' }, mensagem: { type: 'string', minLength: 1 } },
    additionalProperties: false,
  },
} as const;

export type EfiSchema = keyof typeof SCHEMAS;

let ajv: Ajv | undefined;
const cache = new Map<EfiSchema, ValidateFunction>();

/** The violations of `value` against one of Efí's schemas above (empty when it passes). */
export function efiViolations(name: EfiSchema, value: unknown): string[] {
  let validate = cache.get(name);
  if (validate === undefined) {
    ajv ??= addFormats(new Ajv({ allErrors: true, strict: false }));
    validate = ajv.compile(SCHEMAS[name]);
    cache.set(name, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message ?? error.keyword}`);
}
