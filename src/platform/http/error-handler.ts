import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import FindMyWay from 'find-my-way';
import { isDatabaseUnavailable } from '../db/client.ts';
import { DomainError, MalformedRequestError, ServiceUnavailableError, ValidationError } from '../errors.ts';
import { localizedBody, saysLanguage } from '../i18n/http.ts';
import { LANGUAGE_TAGS, type Locale } from '../i18n/locale.ts';
import { translate } from '../i18n/translate.ts';
import { loggableError } from '../log-safety.ts';
import { isRedisUnavailable } from '../redis.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Every refusal is a text for a person: in the request's language, which Content-Language names (docs/i18n.md). */
function send(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}): FastifyReply {
  // A request Fastify refused before routing (frameworkErrors) was never decorated: APP_LOCALE's
  // words; an app without the locale at all (a plugin's own, in a test) answers in English.
  const locale = (reply.request.locale as Locale | undefined) ?? (reply.server as { appLocale?: Locale }).appLocale ?? 'en';
  saysLanguage(reply, locale);
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(localizedBody(body, locale));
}

/** Fastify's own errors that come from the request itself rather than from a fault. */
function clientError(error: FastifyError): { status: number; message: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: 'Malformed JSON body.' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, message: 'The request body is too large.' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Unsupported media type.' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'Invalid content length.' };
    default:
      if (error instanceof SyntaxError && error.statusCode === 400) return { status: 400, message: 'Malformed JSON body.' };
      return undefined;
  }
}

/** Node's HTTP parser refusals by code: status, reason phrase, message. Anything else is a 400. */
const PARSER_REFUSALS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request headers are too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'The request body is too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request took too long to arrive.'],
};
const MALFORMED: [number, string, string] = [400, 'Bad Request', new MalformedRequestError().message];

/**
 * A request Node's HTTP parser refuses (a bad request line or header, headers too large, a broken
 * chunked body, one that took too long) never reaches Fastify: there is no request to answer, so
 * the answer is written to the socket, in the shape of docs/api.md section 3 (Fastify option `clientErrorHandler`,
 * whose default writes `{error, message, statusCode}`). As Node does, nothing is written when an
 * answer on that connection has already begun, and the connection is closed. Logged at debug, by
 * code only: the raw bytes may carry credentials, and the internet sends plenty of these.
 */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> = function (this: FastifyInstance, error, socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = PARSER_REFUSALS[error.code ?? ''] ?? MALFORMED;
  this.log.debug({ code: error.code, status }, 'malformed HTTP request');
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answering) {
    // No request was read, so no Accept-Language either: APP_LOCALE's words.
    const body = JSON.stringify({ message: translate(message, this.appLocale) });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Language: ${LANGUAGE_TAGS[this.appLocale]}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
};

const NOT_FOUND = { message: 'Not found.' };

/**
 * Fastify's refusals before routing (Fastify option `frameworkErrors`): a path whose
 * percent-encoding is broken, or whose parameter is longer than any id, code or slug, names no
 * route or record: 404, never Fastify's own 400/414 bodies.
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, reply) => {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    send(reply, 404, NOT_FOUND);
    return;
  }
  request.log.error({ err: loggableError(error) }, 'routing error');
  send(reply, 500, { message: 'Server Error.' });
};

/**
 * One mapping from errors to the shapes of docs/api.md section 3. Domain errors carry their own
 * status; anything unexpected is a 500 whose details stay in the log.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  // Routes are mirrored into a plain router so an unknown method on a known path can be told from
  // an unknown path (405 versus 404). It matches paths as the app's router does.
  const known = FindMyWay({ ignoreTrailingSlash: app.initialConfig.routerOptions?.ignoreTrailingSlash ?? false });
  app.addHook('onRoute', (route) => {
    // CORS answers OPTIONS on every path; that says nothing about which paths exist.
    if (route.url === '*' || route.url === '/*') return;
    for (const method of [route.method].flat()) {
      if (METHODS.includes(method as never) && known.find(method as never, route.url) === null) {
        known.on(method as never, route.url, () => undefined);
      }
    }
  });

  // What Node would answer itself with an empty body, answered in the shape of docs/api.md section 3 instead: an
  // HTTP/1.1 request without Host (RFC 9112: a 400; Node's own check is off, see app.ts) and an
  // Expect other than 100-continue (a 417).
  app.addHook('onRequest', (request, _reply, done) => {
    done(request.headers.host === undefined && request.raw.httpVersion === '1.1' ? new MalformedRequestError() : undefined);
  });
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ message: translate('Only "Expect: 100-continue" is supported.', app.appLocale) });
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-language': LANGUAGE_TAGS[app.appLocale],
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      if (error.status >= 500) request.log.error({ code: error.code, err: loggableError(error) }, 'domain error');
      // A validation failure names its fields, never their values (a password, a card number).
      else if (error instanceof ValidationError) {
        request.log.info({ code: error.code, status: error.status, fields: Object.keys(error.errors) }, 'request refused');
      } else request.log.info({ code: error.code, status: error.status }, 'request refused');
      return send(reply, error.status, error.body(), error.headers);
    }
    const client = clientError(error);
    if (client !== undefined) return send(reply, client.status, { message: client.message });
    // Lost or unmigrated, the database is the operator's to fix, and so is a Redis that does not
    // answer (sessions, rate limits): the client may simply retry.
    const lost = isDatabaseUnavailable(error) ? 'database' : isRedisUnavailable(error) ? 'Redis' : undefined;
    if (lost !== undefined) {
      request.log.error({ err: loggableError(error) }, `${lost} unavailable`);
      const unavailable = new ServiceUnavailableError();
      return send(reply, unavailable.status, unavailable.body(), unavailable.headers);
    }
    request.log.error({ err: loggableError(error) }, 'unhandled error');
    return send(reply, 500, { message: 'Server Error.' });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => method !== request.method && method !== 'OPTIONS' && known.find(method, path) !== null);
    if (allowed.length > 0) {
      return send(reply, 405, { message: 'Method not allowed.' }, { allow: allowed.join(', ') });
    }
    return send(reply, 404, NOT_FOUND);
  });
}
