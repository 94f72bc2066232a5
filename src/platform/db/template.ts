import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A fresh embedded database starts from a copy of an initialised data directory instead of
 * running initdb. initdb in PGlite runs in a WebAssembly instance of its own and took more than
 * half of a first `npm start`; copying its result takes a tenth of that. The copy holds nothing
 * of ours (no schema, no migration), so it depends only on the PGlite release, which names it: a
 * PGlite upgrade finds no template and runs initdb, as before templates.
 *
 * `npm install` makes it (bin/postinstall.js, prepare-template.ts): the directory, copied on disk
 * before PGlite starts (PGlite's own `loadDataDir` kept the whole tarball in memory for the life
 * of the process), and the same files as a tarball, which is the only way to seed a database in
 * memory (the tests').
 */
export interface DataDirTemplate {
  /** Copies the template into `pgdata` (which holds no database); false when there is none. */
  copyTo(pgdata: string): boolean;
  /** The template as a tarball for PGlite's `loadDataDir`, if there is one. */
  tarball(): Blob | undefined;
  /** Forgets a template that did not start: the next `npm install` makes it again. */
  discard(): void;
  /** Keeps `pgdata` (initialised, closed) and its tarball as the template. */
  keep(pgdata: string, tarball: Blob): Promise<void>;
  readonly dir: string;
  readonly tarballPath: string;
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

/** Whether `pgdata` already holds a database (PGlite's own test before it runs initdb). */
export function holdsDatabase(pgdata: string): boolean {
  return existsSync(join(pgdata, 'PG_VERSION'));
}

export function dataDirTemplate(folder: string = defaultTemplateDir()): DataDirTemplate {
  const name = `pglite-${pgliteVersion()}-datadir`;
  const dir = join(folder, name);
  const tarballPath = join(folder, `${name}.tar`);
  // Written aside and renamed, so nothing ever reads half a template.
  const partial = (path: string) => `${path}.${process.pid}.partial`;
  return {
    dir,
    tarballPath,
    copyTo(pgdata) {
      if (!holdsDatabase(dir)) return false;
      rmSync(pgdata, { recursive: true, force: true });
      mkdirSync(dirname(pgdata), { recursive: true });
      try {
        cpSync(dir, partial(pgdata), { recursive: true });
        renameSync(partial(pgdata), pgdata);
      } finally {
        rmSync(partial(pgdata), { recursive: true, force: true });
      }
      return true;
    },
    tarball() {
      return existsSync(tarballPath) ? new Blob([readFileSync(tarballPath)]) : undefined;
    },
    discard() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(tarballPath, { force: true });
    },
    async keep(pgdata, tarball) {
      mkdirSync(folder, { recursive: true });
      try {
        writeFileSync(partial(tarballPath), new Uint8Array(await tarball.arrayBuffer()));
        renameSync(partial(tarballPath), tarballPath);
        cpSync(pgdata, partial(dir), { recursive: true });
        rmSync(dir, { recursive: true, force: true });
        renameSync(partial(dir), dir);
      } finally {
        rmSync(partial(tarballPath), { force: true });
        rmSync(partial(dir), { recursive: true, force: true });
      }
    },
  };
}
