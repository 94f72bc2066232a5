import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import { redactPayload } from '../../platform/admin/redact.ts';
import type { AppContext } from '../../platform/context.ts';
import { ValidationError } from '../../platform/errors.ts';
import { CONTENT_TYPES, newUploadKey, publicUrl, type Storage } from '../../platform/storage/storage.ts';
import { detectImageType } from './image-type.ts';

/** A file as the multipart body carried it. */
export interface ReceivedFile {
  data: Buffer;
  filename: string;
}

/** Admin uploads (images for thumbnails): stored, then logged as an admin change. */
export class UploadService {
  readonly #ctx: AppContext;
  readonly #storage: Storage;

  constructor(ctx: AppContext, storage: Storage) {
    this.#ctx = ctx;
    this.#storage = storage;
  }

  /**
   * Keeps an image (its type read from its first bytes) under a new key and logs it: the log row
   * describes the file stored (not the multipart body), and a file whose log could not be written
   * is deleted again.
   */
  async store(entry: OperationEntry, file: ReceivedFile): Promise<{ url: string; path: string }> {
    const ext = detectImageType(file.data);
    if (ext === undefined) throw ValidationError.field('file', 'The file field must be a file of type: png, jpeg, webp, gif.');
    const key = newUploadKey(ext);
    await this.#storage.put(key, file.data);
    const payload = { file: { name: file.filename, size: file.data.length, type: CONTENT_TYPES[ext] }, path: key };
    try {
      await loggedTransaction(this.#ctx.db, { ...entry, payload: redactPayload(payload) }, async () => undefined);
    } catch (error) {
      await this.#storage.delete(key);
      throw error;
    }
    return { url: publicUrl(this.#ctx.config.appUrl, key), path: key };
  }
}
