import { Type } from 'typebox';
import { NotFoundError } from '../errors.ts';
import type { App } from '../http/app.ts';
import { MessageBody } from '../http/schemas.ts';
import { contentTypeOf, isUploadPath, type Storage } from './storage.ts';

/** Stored names are random and never reused, so a file under a key never changes. */
const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/** GET /storage/<path>: uploaded files, for browsers and CDNs (no session, no CSRF). */
export function registerStorageRoutes(app: App, storage: Storage): void {
  app.get(
    '/storage/*',
    {
      schema: {
        tags: ['Storage'],
        summary: 'An uploaded file',
        params: Type.Object({ '*': Type.String() }),
        response: { 200: Type.Unsafe({ type: 'string', format: 'binary' }), 404: MessageBody },
      },
      config: { stateless: true },
    },
    async (request, reply) => {
      const key = request.params['*'];
      const type = contentTypeOf(key);
      if (!isUploadPath(key) || type === undefined) throw new NotFoundError();
      const file = await storage.open(key);
      if (file === undefined) throw new NotFoundError();
      return reply
        .type(type)
        .header('content-length', file.size)
        .header('cache-control', CACHE_FOREVER)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .send(file.stream);
    },
  );
}
