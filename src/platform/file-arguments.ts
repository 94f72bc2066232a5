import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A file or directory given to a command (src/commands.ts) that it cannot use: the command says
 * so in one line and exits 1, before it touches the database where it can.
 */
export class FileArgumentError extends Error {
  override readonly name = 'FileArgumentError';
}

/** A failed call of the file system (it names its syscall), as opposed to anything else thrown. */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && 'syscall' in error;
}

/** The failure in words: "no such file or directory" out of "ENOENT: no such file or directory, open '/x'". */
export function failureWords(error: unknown): string {
  if (!isFileSystemError(error)) return String(error);
  const words = /^[A-Z0-9_]+: ([^,]+)/.exec(error.message)?.[1];
  return words ?? error.code!;
}

/**
 * A file the command reads whole: it must be a regular file this process can open. A directory
 * or a FIFO is refused before it is opened (opening a FIFO waits for a writer, forever).
 */
export async function assertReadableFile(file: string): Promise<void> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    throw new FileArgumentError(`Cannot read ${file}: ${failureWords(error)}.`);
  }
  if (info.isDirectory()) throw new FileArgumentError(`Cannot read ${file}: it is a directory, not a file.`);
  if (!info.isFile()) throw new FileArgumentError(`Cannot read ${file}: it is not a regular file.`);
  try {
    await (await open(file, 'r')).close();
  } catch (error) {
    throw new FileArgumentError(`Cannot read ${file}: ${failureWords(error)}.`);
  }
}

/** The nearest of `path` and its ancestors that exists, and the missing ones below it (outermost first). */
function nearestExisting(path: string): { existing: string; missing: string[] } {
  const missing: string[] = [];
  let at = path;
  for (;;) {
    try {
      statSync(at);
      return { existing: at, missing };
    } catch (error) {
      const code = isFileSystemError(error) ? error.code : undefined;
      // ENOTDIR: an ancestor is a file; walking up finds it and says so.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(at) === at) {
        throw new FileArgumentError(`Cannot write in ${path}: ${failureWords(error)}.`);
      }
      missing.unshift(at);
      at = dirname(at);
    }
  }
}

/**
 * Makes `dir` and its missing ancestors with `mode`, one at a time. Node's recursive mkdir is not
 * used: where the file system answers ENOENT to creating a directory in a directory that exists
 * (/proc), it tries again forever. The nearest existing ancestor must be a directory this process
 * may write in; anything that stops it is one FileArgumentError. Synchronous, as the configuration
 * that makes DATA_DIR is read (src/config.ts).
 */
export function makeDirectorySync(dir: string, mode = 0o777): void {
  const { existing, missing } = nearestExisting(dir);
  if (!statSync(existing).isDirectory()) {
    throw new FileArgumentError(`Cannot write in ${dir}: ${existing === dir ? 'it' : existing} is not a directory.`);
  }
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new FileArgumentError(`Cannot write in ${dir}: ${existing} is not writable (${failureWords(error)}).`);
  }
  for (const path of missing) {
    try {
      mkdirSync(path, { mode });
    } catch (error) {
      // Made meanwhile by someone else: as good.
      if (isFileSystemError(error) && error.code === 'EEXIST' && statSync(path).isDirectory()) continue;
      throw new FileArgumentError(`Cannot write in ${dir}: cannot create ${path} (${failureWords(error)}).`);
    }
  }
}

/** makeDirectorySync for the commands' own paths (report:daily --out). */
export async function makeDirectory(dir: string, mode: number): Promise<void> {
  makeDirectorySync(dir, mode);
}
