import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectorySync } from '../file-arguments.ts';

export interface DataDirLock {
  release(): void;
}

/**
 * Who holds the lock: a server (`serve`), which carries out the commands run beside it over its
 * command channel (src/platform/command-channel.ts), or a command, which a second one must wait for.
 */
export type LockRole = 'serve' | 'command';

export interface LockHolder {
  pid: number;
  role: LockRole;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  readonly dataDir: string;
  readonly holder: LockHolder | undefined;

  constructor(message: string, dataDir: string, holder?: LockHolder) {
    super(message);
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock file: the holder's pid on the first line, its role on the second (a pid alone, as older versions wrote it: a command). */
function readHolder(path: string): LockHolder {
  const [pid = '', role] = readFileSync(path, 'utf8').split('\n');
  return { pid: Number(pid.trim()), role: role?.trim() === 'serve' ? 'serve' : 'command' };
}

/**
 * The embedded database belongs to one process. A lock file holding the owner's pid keeps a
 * second process out; a lock left by a process that died is taken over.
 */
export function acquireDataDirLock(dataDir: string, role: LockRole = 'command'): DataDirLock {
  // Not Node's recursive mkdir, which retries forever where /proc answers ENOENT (file-arguments.ts).
  makeDirectorySync(dataDir);
  const path = join(dataDir, 'croupier.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n${role}\n`, { flag: 'wx' });
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
      const holder = readHolder(path);
      if (Number.isInteger(holder.pid) && holder.pid > 0 && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${holder.pid}; stop it first or set DATABASE_URL.`,
          dataDir,
          holder,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock the embedded database in ${dataDir}.`, dataDir);
}
