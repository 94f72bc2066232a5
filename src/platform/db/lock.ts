import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DataDirLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded database belongs to one process. A lock file holding the owner's pid keeps a
 * second process out; a lock left by a process that died is taken over.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'croupier.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${owner}; stop it first or set DATABASE_URL.`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the embedded database in ${dataDir}.`);
}
