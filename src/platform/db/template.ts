import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFunctions } from './functions.ts';
import { listMigrations } from './migration-files.ts';

/**
 * A fresh embedded database starts from a copy of a prepared data directory instead of running
 * initdb and every migration. initdb in PGlite runs in a WebAssembly instance of its own and took
 * more than half of a first `npm start`, and the migrations and function files most of the rest
 * (docs/benchmarks.md, "Start-up"); copying their result takes a tenth of that. There are two:
 * - the initialised directory, holding nothing of ours, named by the PGlite release alone;
 * - the same directory migrated, named by the release and a fingerprint of migrations/ and
 *   db/functions/ (schemaFingerprint). It holds nothing but what every fresh database gets from
 *   the migrations, which are deterministic (no random value, no secret: APP_KEY never reaches
 *   them). A changed migration or function file finds no migrated template of its fingerprint
 *   and starts from the initialised one, migrating as before templates.
 *
 * `npm install` makes both (bin/postinstall.js, prepare-template.ts), and `npm test` the migrated
 * one when the schema changed since (scripts/test.ts): each as a directory, copied on disk before
 * PGlite starts (PGlite's own `loadDataDir` kept the whole tarball in memory for the life of the
 * process), and as a tarball, which is the only way to seed a database in memory (the tests').
 */
export interface TemplateSource {
  /** Copies the template into `pgdata` (which holds no database); false when there is none. */
  copyTo(pgdata: string): boolean;
  /** The template as a tarball for PGlite's `loadDataDir`, if there is one. */
  tarball(): Blob | undefined;
  /** Forgets a template that did not start: the next `npm install` makes it again. */
  discard(): void;
  /** Whether the last copy or tarball given holds today's schema: the migrations come with it. */
  readonly migrated: boolean;
}

export interface DataDirTemplate extends TemplateSource {
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

/**
 * What the migrations and function files make of a fresh database: a hash of their names and
 * texts, in the order they apply. Any change to either is another fingerprint.
 */
export function schemaFingerprint(migrations = listMigrations(), functions = listFunctions()): string {
  const hash = createHash('sha256');
  for (const migration of migrations) hash.update(`migration ${migration.name}\0${migration.sql}\0`);
  for (const file of functions) hash.update(`function ${file.name}\0${file.hash}\0`);
  return hash.digest('hex').slice(0, 16);
}

const SCHEMA_TEMPLATE = /^pglite-.+-schema-([0-9a-f]{16})-datadir(\.tar)?$/;

/**
 * The template of PGlite's initialised data directory, or with `schema` (a schemaFingerprint) of
 * that directory migrated.
 */
export function dataDirTemplate(folder: string = defaultTemplateDir(), schema?: string): DataDirTemplate {
  const name = schema === undefined ? `pglite-${pgliteVersion()}-datadir` : `pglite-${pgliteVersion()}-schema-${schema}-datadir`;
  const dir = join(folder, name);
  const tarballPath = join(folder, `${name}.tar`);
  // Written aside and renamed, so nothing ever reads half a template.
  const partial = (path: string) => `${path}.${process.pid}.partial`;
  return {
    dir,
    tarballPath,
    migrated: schema !== undefined,
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

/** The migrated template of today's schema and the initialised one, in `folder`. */
export function templatesIn(folder: string = defaultTemplateDir()): { migrated: DataDirTemplate; initialised: DataDirTemplate } {
  return { migrated: dataDirTemplate(folder, schemaFingerprint()), initialised: dataDirTemplate(folder) };
}

/**
 * What a fresh database starts from by default: the migrated template of today's schema when
 * there is one, else the initialised one. A copy that does not start discards the one it came from.
 */
export function freshDatabaseTemplate(folder: string = defaultTemplateDir()): TemplateSource {
  const { migrated, initialised } = templatesIn(folder);
  let used: TemplateSource | undefined;
  return {
    copyTo(pgdata) {
      used = [migrated, initialised].find((template) => {
        try {
          return template.copyTo(pgdata);
        } catch {
          // Removed while copied (another checkout's install replaced it): the next one will do.
          return false;
        }
      });
      return used !== undefined;
    },
    tarball() {
      for (const template of [migrated, initialised]) {
        const tarball = template.tarball();
        if (tarball !== undefined) {
          used = template;
          return tarball;
        }
      }
      return undefined;
    },
    discard() {
      used?.discard();
    },
    get migrated() {
      return used === migrated;
    },
  };
}

/** Old enough that no process still starts from it: a test run copies its template within minutes. */
const STALE_MS = 60 * 60 * 1000;

/**
 * Removes the migrated templates in `folder` of any schema but `keep` made over an hour ago (each
 * is some 80 MB; a schema's is made again when needed). Younger ones may belong to another
 * checkout sharing this node_modules, with a test run under way.
 */
export function removeOtherSchemaTemplates(folder: string, keep: string, now = Date.now()): void {
  if (!existsSync(folder)) return;
  for (const entry of readdirSync(folder)) {
    const schema = SCHEMA_TEMPLATE.exec(entry)?.[1];
    if (schema === undefined || schema === keep) continue;
    const path = join(folder, entry);
    if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
}
