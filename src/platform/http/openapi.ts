/**
 * The OpenAPI document (`/docs/json`) and its UI (`/docs`), as tools and people need them
 * (docs/api.md section 1): every operation carries an operationId and the security its route's
 * guard options ask for, derived here from the route declaration, so a new route is documented
 * the way it is guarded without anyone writing it twice. The summary is the route's own
 * (test/platform/openapi.test.ts fails when one is missing).
 */
import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyContextConfig, FastifySchema } from 'fastify';
import type { Config } from '../../config.ts';
import { SAFE_METHODS } from './guard.ts';
import { OPENAPI_TAGS } from './openapi-tags.ts';

type SecurityRequirement = Record<string, string[]>;

const SIGNATURE =
  '`X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, the raw body exactly as sent, `t` within 300 s';

/** The schemes a request proves itself with (docs/api.md sections 2 and 9). */
function securitySchemes(sessionCookie: string) {
  return {
    session: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookie,
      description:
        'The session cookie (`SESSION_COOKIE`), set by `GET /api/csrf-cookie` and renewed by signing in (docs/api.md section 2). ' +
        'It is HttpOnly: the browser keeps and sends it. In this UI, open `/docs` at `APP_URL` and sign in with Try it out ' +
        '(`GET /api/csrf-cookie`, then `POST /api/login`): the requests that follow carry it.',
    },
    xsrf: {
      type: 'apiKey',
      in: 'header',
      name: 'X-XSRF-TOKEN',
      description:
        'The `XSRF-TOKEN` cookie’s value, on every request that is not GET, HEAD or OPTIONS, guests’ included (a `X-CSRF-TOKEN` ' +
        'header or a `_token` body field is read too); a new one comes with each sign-in. This UI copies it from the cookie by itself.',
    },
    gatewaySignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Signature',
      description: `Payment and payout gateway notifications: ${SIGNATURE}, with the gateway’s secret (docs/api.md section 9).`,
    },
    providerSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Signature',
      description:
        `Seamless wallet callbacks, built-in protocol (adapter \`demo\`): ${SIGNATURE}, with the provider’s \`wallet_secret\`; ` +
        'another adapter checks its own protocol’s signature (docs/api.md section 9.5).',
    },
    hub88Signature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Hub88-Signature',
      description:
        'Hub88’s wallet calls (docs/api.md section 15): base64 of the RSA-SHA256 signature of the raw body by Hub88’s private key, ' +
        'verified with the provider’s `hub88_public_key`.',
    },
  } as const;
}

const SIGNED_BY = { gateway: 'gatewaySignature', provider: 'providerSignature', hub88: 'hub88Signature' } as const;

/** How each signing caller is told apart, in words, with what answers a missing or bad signature. */
const SIGNED_ACCESS = {
  gateway: 'a machine caller signing the request (`X-Signature`, 401 otherwise)',
  provider: 'a machine caller signing the request (`X-Signature`, 401 otherwise)',
  hub88: 'Hub88 signing the request (`X-Hub88-Signature`, RSA-SHA256; an HTTP 200 `RS_ERROR_INVALID_SIGNATURE` otherwise)',
} as const;

/**
 * What the guard (guard.ts) asks of a request to this route: a stateless route nothing of the
 * session (a signed machine caller its signature), any other route a session and its CSRF token
 * to change anything, a session to read as a signed-in user, and nothing to read as a guest.
 */
export function securityOf(method: string, config: FastifyContextConfig): SecurityRequirement[] {
  if (config.stateless === true) return config.signedBy === undefined ? [] : [{ [SIGNED_BY[config.signedBy]]: [] }];
  if (!SAFE_METHODS.has(method)) return [{ session: [], xsrf: [] }];
  if (config.auth === true || config.permission !== undefined) return [{ session: [] }];
  return [];
}

/**
 * The same requirements in words, in the guard's order of checks, with what answers when one is
 * missing (docs/api.md section 3).
 */
function accessOf(method: string, config: FastifyContextConfig): string | undefined {
  if (config.stateless === true) {
    return config.signedBy === undefined
      ? 'Access: no session or CSRF token.'
      : `Access: ${SIGNED_ACCESS[config.signedBy]}; no session or CSRF token.`;
  }
  const signedIn = config.auth === true || config.permission !== undefined;
  const needs: string[] = [];
  if (!SAFE_METHODS.has(method)) {
    needs.push(
      signedIn
        ? 'the session’s CSRF token in `X-XSRF-TOKEN` (419 otherwise)'
        : 'a session and its CSRF token in `X-XSRF-TOKEN`, guests too: `GET /api/csrf-cookie` first (419 otherwise)',
    );
  }
  if (config.permission !== undefined) needs.push(`signed in with the permission \`${config.permission}\` (401, 403 otherwise)`);
  else if (signedIn) needs.push('signed in (401 otherwise)');
  if (config.verified === true) needs.push('with `EMAIL_VERIFICATION=on`, a verified e-mail (403 otherwise)');
  if (config.confirmPassword === true) needs.push('the password confirmed within `PASSWORD_TIMEOUT_S` (423 otherwise)');
  return needs.length === 0 ? undefined : `Access: ${needs.join('; ')}.`;
}

/**
 * `get` + the path's words, `/api` left out and a parameter as `By<Name>`:
 * `PUT /api/admin/users/:user` → `putAdminUsersByUser`. A wildcard is the parameter `path`.
 */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((segment, i) => segment !== '' && !(i === 1 && segment === 'api'))
    .flatMap((segment) => (segment.startsWith(':') ? ['by', segment.slice(1)] : segment === '*' ? ['by', 'path'] : [segment]))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter((word) => word !== '');
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/** A wildcard route (`/storage/*`) as OpenAPI can say it: `/storage/{path}`, its parameter named `path`. */
function namedWildcard(url: string, schema: FastifySchema): { url: string; schema: FastifySchema } {
  if (!url.endsWith('*')) return { url, schema };
  const params = schema.params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  const { '*': wildcard, ...others } = params?.properties ?? {};
  const named = {
    ...params,
    type: 'object',
    properties: { ...others, path: wildcard ?? { type: 'string' } },
    required: [...(params?.required ?? []).filter((name) => name !== '*'), 'path'],
  };
  return { url: `${url.slice(0, -1)}:path`, schema: { ...schema, params: named } };
}

const transform: SwaggerTransform = ({ schema, url, route }) => {
  if (schema === undefined || (schema as { hide?: boolean }).hide === true) return { schema, url };
  const methods = typeof route.method === 'string' ? [route.method] : route.method;
  if (methods.length !== 1) throw new Error(`${url}: declare one route per method, so each operation has its own id and security.`);
  const method = methods[0]!;
  const config = route.config ?? {};
  const access = accessOf(method, config);
  const own = schema as FastifySchema & { operationId?: string; description?: string; security?: SecurityRequirement[] };
  const described = {
    ...own,
    operationId: own.operationId ?? operationIdOf(method, url),
    security: own.security ?? securityOf(method, config),
    ...(access === undefined ? {} : { description: own.description === undefined ? access : `${own.description}\n\n${access}` }),
  };
  return namedWildcard(url, described);
};

/** Two operations sharing an id would make a generated client drop one: the document refuses to exist. */
function uniqueOperationIds(document: { paths?: Record<string, Record<string, { operationId?: string }>> }): void {
  const seen = new Map<string, string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const id = operation.operationId;
      if (id === undefined) continue;
      const other = seen.get(id);
      if (other !== undefined) throw new Error(`operationId ${id} of ${method.toUpperCase()} ${path} is also ${other}'s.`);
      seen.set(id, `${method.toUpperCase()} ${path}`);
    }
  }
}

/**
 * The document's server as a URL relative to wherever the document was read: APP_URL's path
 * (`/` for most), without its scheme and host. Try it out then sends requests to the address
 * `/docs` was opened at (`127.0.0.1` or `localhost`, a proxy's name or the instance's), which is
 * the one origin the browser lets it reach with the session's cookies; an absolute APP_URL on
 * another of those origins was a cross-origin request the browser refused.
 */
export function serverOf(appUrl: string): { url: string; description: string } {
  const path = new URL(appUrl).pathname.replace(/\/+$/, '');
  return { url: path === '' ? '/' : path, description: `This service, at the address this document was opened at (APP_URL: ${appUrl})` };
}

export function openapiOptions(config: Config): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      info: {
        title: config.appName,
        version: '1',
        description:
          'Accounts, wallet, payments, games and administration. Sessions, CSRF, errors and the rules behind each route: docs/api.md.',
        license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
      },
      servers: [serverOf(config.appUrl)],
      tags: [...OPENAPI_TAGS],
      components: { securitySchemes: securitySchemes(config.sessionCookie) },
    },
    transform,
    transformObject: (document) => {
      const openapi = 'openapiObject' in document ? document.openapiObject : document.swaggerObject;
      uniqueOperationIds(openapi as Parameters<typeof uniqueOperationIds>[0]);
      return openapi;
    },
  };
}

/**
 * Try it out as the SPA would send it (docs/api.md section 2): the browser's cookies, and the
 * XSRF-TOKEN cookie copied into X-XSRF-TOKEN on a request that changes something. It is read at
 * each request because signing in replaces it. Plain browser JavaScript: swagger-ui writes a
 * function of its settings into the page as the function's source text.
 */
const COPY_XSRF_TOKEN = `function (request) {
  var method = String(request.method || 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return request;
  var found = document.cookie.match(/(?:^|;\\s*)XSRF-TOKEN=([^;]*)/);
  if (found !== null && request.headers['X-XSRF-TOKEN'] === undefined) request.headers['X-XSRF-TOKEN'] = decodeURIComponent(found[1]);
  return request;
}`;

type Interceptor = NonNullable<NonNullable<FastifySwaggerUiOptions['uiConfig']>['requestInterceptor']>;

/** A request interceptor for swagger-ui's settings whose source text (what the page receives) is `source`. */
function browserFunction(source: string): Interceptor {
  const placeholder: Interceptor = (request) => request;
  placeholder.toString = () => source;
  return placeholder;
}

export function docsUiOptions(): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    uiConfig: {
      // Some 140 operations: a box at the top shows one tag's (`Account`, `Admin: users`…).
      filter: true,
      withCredentials: true,
      requestInterceptor: browserFunction(COPY_XSRF_TOKEN),
    },
  };
}
