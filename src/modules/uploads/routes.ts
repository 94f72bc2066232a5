import multipart from '@fastify/multipart';
import { errorCodes, type FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import { DomainError, MalformedUploadError, ValidationError } from '../../platform/errors.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import type { ReceivedFile, UploadService } from './service.ts';

const UploadResult = Type.Object({
  url: Type.String({ description: '{APP_URL}/storage/<path>' }),
  path: Type.String({ description: 'uploads/<yyyy>/<mm>/<random>.<ext>; use it as a thumbnail.' }),
});

/** Room for the multipart framing around a file of the largest allowed size. */
const FRAMING_BYTES = 1024 * 1024;

/**
 * The server's hard limit on an upload's body (413 above it, before it is read). Below it, a
 * file over UPLOAD_MAX_BYTES is read to its end and answered with the field's 422, so a user who
 * picks a photo a few times too large is told the limit. Four times the file limit is PHP's
 * default ratio of post_max_size to upload_max_filesize (8M to 2M).
 */
function uploadHardLimit(maxBytes: number): number {
  return 4 * maxBytes + FRAMING_BYTES;
}

async function receiveFile(request: FastifyRequest, maxBytes: number): Promise<ReceivedFile> {
  const required = ValidationError.field('file', 'The file field is required.');
  if (!request.isMultipart()) throw required;
  let received: ReceivedFile | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      if (part.fieldname === 'file' && received === undefined) received = { data: await part.toBuffer(), filename: part.filename };
      else part.file.resume();
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      throw ValidationError.field('file', `The file field must not be greater than ${Math.floor(maxBytes / 1024)} kilobytes.`);
    }
    if (code === 'FST_FILES_LIMIT') throw ValidationError.field('file', 'The file field must be a single file.');
    if (error instanceof DomainError) throw error;
    // Whatever else the parser throws is about the body it was given: no boundary, a part cut
    // off before its closing boundary, too many parts or fields.
    throw new MalformedUploadError();
  }
  if (received === undefined) throw required;
  return received;
}

/**
 * POST /api/admin/upload: one image in the multipart field `file`. Multipart parsing exists only
 * in this route's scope; everywhere else a multipart body is refused as an unsupported type.
 */
export function registerUploadRoutes(app: App, ctx: AppContext, service: UploadService): void {
  const maxBytes = ctx.config.uploadMaxBytes;
  const hardLimit = uploadHardLimit(maxBytes);
  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 25 } });
    scope.post(
      '/api/admin/upload',
      {
        schema: {
          tags: ['Admin: upload'],
          summary: 'Upload an image (png, jpeg, webp or gif, detected from its content)',
          description: `multipart/form-data with one field \`file\`; at most ${maxBytes} bytes (UPLOAD_MAX_BYTES).`,
          consumes: ['multipart/form-data'],
          response: { 200: UploadResult, ...errorResponses },
        },
        config: { permission: 'uploads.manage' },
        // A body over the hard limit is refused before it is read (413 comes before every other check).
        onRequest: async (request) => {
          if (Number(request.headers['content-length'] ?? 0) > hardLimit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
        },
      },
      async (request) => service.store(operationEntry(request), await receiveFile(request, maxBytes)),
    );
  });
}
