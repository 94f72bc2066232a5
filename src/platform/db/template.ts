import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';

/**
 * A fresh embedded database starts from a copy of an initialised data directory instead of
 * running initdb. initdb in PGlite runs in a WebAssembly instance of its own and took more than
 * half of a first `npm start`; unpacking the same files takes a tenth of that. The copy holds
 * nothing of ours (no schema, no migration), so it depends only on the PGlite release, which
 * names it: a PGlite upgrade simply finds no copy and runs initdb once more.
 *
 * `npm install` makes the copy (bin/postinstall.js); a start that finds none makes it after its
 * own initdb, so the next fresh DATA_DIR (another checkout's, a test's) starts from it.
 */
export interface DataDirTemplate {
  /** The tarball to start a new data directory from, if one was made for this PGlite release. */
  load(): Blob | undefined;
  /** Keeps `client`'s freshly initialised data directory for the next fresh start. */
  save(client: PGlite): Promise<void>;
  readonly path: string;
}

const PGLITE_ENTRY = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));

/** PGlite's own package directory: its dist/ entry's parent. */
function pgliteDir(): string {
  return dirname(dirname(PGLITE_ENTRY));
}

function pgliteVersion(): string {
  const manifest = JSON.parse(readFileSync(join(pgliteDir(), 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** The build-cache folder of the node_modules that holds PGlite, where tools keep what they derive. */
export function defaultTemplateDir(): string {
  return join(pgliteDir(), '..', '..', '.cache', 'croupier');
}

export function dataDirTemplate(dir: string = defaultTemplateDir()): DataDirTemplate {
  const path = join(dir, `pglite-${pgliteVersion()}-datadir.tar`);
  return {
    path,
    load() {
      if (!existsSync(path)) return undefined;
      return new Blob([readFileSync(path)]);
    },
    async save(client) {
      const tarball = await client.dumpDataDir('none');
      const bytes = new Uint8Array(await tarball.arrayBuffer());
      mkdirSync(dir, { recursive: true });
      // Written aside and renamed, so a start never reads half a tarball.
      const partial = `${path}.${process.pid}.partial`;
      try {
        writeFileSync(partial, bytes);
        renameSync(partial, path);
      } finally {
        rmSync(partial, { force: true });
      }
    },
  };
}

/** Whether `pgdata` already holds a database (PGlite's own test before it runs initdb). */
export function holdsDatabase(pgdata: string): boolean {
  return existsSync(join(pgdata, 'PG_VERSION'));
}
