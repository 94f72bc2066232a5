import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomHex } from '../crypto.ts';
import { isUploadPath, type Storage } from './storage.ts';

/** Files under DATA_DIR; a key resolves to `<root>/<key>` and never outside the root. */
export class LocalDiskStorage implements Storage {
  readonly #root: string;

  constructor(root: string) {
    this.#root = resolve(root);
  }

  #file(key: string): string {
    if (!isUploadPath(key)) throw new Error(`Not a storage key: ${JSON.stringify(key)}`);
    const file = resolve(join(this.#root, key));
    if (!file.startsWith(this.#root + sep)) throw new Error('Storage key escapes the root.');
    return file;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const file = this.#file(key);
    await mkdir(dirname(file), { recursive: true });
    // Written beside and renamed into place, so a reader never sees half a file.
    const partial = `${file}.${randomHex(6)}.part`;
    await writeFile(partial, data, { flag: 'wx', mode: 0o644 });
    await rename(partial, file);
  }

  async open(key: string): Promise<{ stream: ReturnType<typeof createReadStream>; size: number } | undefined> {
    if (!isUploadPath(key)) return undefined;
    const file = this.#file(key);
    try {
      const info = await stat(file);
      if (!info.isFile()) return undefined;
      return { stream: createReadStream(file), size: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    if (!isUploadPath(key)) return false;
    try {
      return (await stat(this.#file(key))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.#file(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
