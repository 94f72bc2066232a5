import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { ADMIN_DIST, loadAdminFiles, type StaticFile } from './files.ts';

/**
 * The back office's policy: everything from this origin only (the API it calls included); MUI
 * writes its styles into <style> elements, hence 'unsafe-inline' for styles and nothing else.
 */
export const ADMIN_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const MISSING_BUILD = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Back office not built</title></head>
<body><h1>The back office is not built</h1>
<p>Run <code>npm install</code> (it builds <code>web/admin/</code> into <code>web/admin/dist</code>), then restart croupier.</p>
</body></html>
`;

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile) {
  const accepts = String(request.headers['accept-encoding'] ?? '');
  reply
    .type(file.type)
    .header('vary', 'Accept-Encoding')
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('content-security-policy', ADMIN_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin');
  if (file.brotli !== undefined && /\bbr\b/.test(accepts)) return reply.header('content-encoding', 'br').send(file.brotli);
  if (file.gzip !== undefined && /\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}

/**
 * GET /admin/ and /admin/* (docs/admin.md, contract section 16): the built files, and index.html for
 * every other path so a deep link opens its screen; a missing build is a 503 page saying what to run.
 */
export function registerBackOfficeRoutes(app: App, ctx: AppContext, dist: string = ADMIN_DIST): void {
  const files = loadAdminFiles(dist, ctx.config.adminLocale);
  const handler = async (request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
    if (files === undefined) {
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', "default-src 'none'")
        .send(MISSING_BUILD);
    }
    const path = request.params['*'] ?? '';
    const file = files.get(path);
    if (file !== undefined) return send(request, reply, file);
    // A missing asset is a 404 (a stale tab asking for an old chunk), not the page in its place.
    if (path.startsWith('assets/')) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return send(request, reply, files.get('index.html')!);
  };
  const response = {
    200: Type.String({ description: 'The file (index.html for a screen’s path), compressed as the request accepts.' }),
    404: Type.String({ description: 'text/plain: a file under assets/ that this build does not have.' }),
    503: Type.String({ description: 'text/html: the back office is not built (run `npm install`).' }),
  };
  const schema = { tags: ['Back office'], response };
  app.get(
    '/admin',
    { config: { stateless: true }, schema: { ...schema, summary: 'The back office (its first screen, the dashboard)' } },
    handler,
  );
  app.get(
    '/admin/*',
    { config: { stateless: true }, schema: { ...schema, summary: 'A back-office file, or index.html for any screen’s path (deep links)' } },
    handler,
  );
}
