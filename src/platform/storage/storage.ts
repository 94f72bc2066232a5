import type { Readable } from 'node:stream';
import { randomAlphanumeric } from '../crypto.ts';

/**
 * Where uploaded files live. Keys are relative paths such as `uploads/2026/11/<random>.png`
 * (the `path` the upload endpoint returns); the local disk is one implementation, an
 * S3-compatible bucket can be another without the routes changing.
 */
export interface Storage {
  put(key: string, data: Buffer): Promise<void>;
  /** The stored file, or undefined when there is none under that key. */
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** Whether a file is stored under `key` (a record may name only an uploaded file). */
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
}

/** Image types the upload endpoint accepts, by the extension their keys end in. */
export const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/**
 * The only shape of key ever written or served: a fixed folder, digits for the date and a random
 * alphanumeric name. Nothing else matches, so `..`, absolute paths, encoded slashes and the
 * files beside the uploads in DATA_DIR (the app key) cannot be reached through it.
 */
const UPLOAD_KEY = /^uploads\/\d{4}\/\d{2}\/[A-Za-z0-9]{40}\.(png|jpg|webp|gif)$/;

export function isUploadPath(key: string): boolean {
  return UPLOAD_KEY.test(key);
}

/** A new key for a file of type `ext`: `uploads/<yyyy>/<mm>/<40 random letters and digits>.<ext>` (UTC date). */
export function newUploadKey(ext: string, now = new Date()): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `uploads/${now.getUTCFullYear()}/${month}/${randomAlphanumeric(40)}.${ext}`;
}

export function contentTypeOf(key: string): string | undefined {
  return CONTENT_TYPES[key.slice(key.lastIndexOf('.') + 1)];
}

/** `{APP_URL}/storage/<path>`: where an uploaded file is served (provider game thumbnails use it). */
export function publicUrl(appUrl: string, key: string): string {
  return `${appUrl}/storage/${key}`;
}
