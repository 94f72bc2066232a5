import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { prepareDataDir, type Database } from './client.ts';
import { migrate } from './migrate.ts';
import { holdsDatabase, removeOtherSchemaTemplates, templatesIn, type DataDirTemplate } from './template.ts';

/**
 * Makes the templates a fresh embedded database starts from (template.ts) that do not exist yet:
 * the initialised one (initdb), then the migrated one (a copy of it, migrated), each in a scratch
 * directory and kept. Migrated templates of other schemas are removed. Answers whether it made
 * any. Callers pass their own templates in tests; the defaults are where the server looks.
 */
export async function prepareTemplate(
  initialised: DataDirTemplate = templatesIn().initialised,
  migrated: DataDirTemplate | undefined = templatesIn(dirname(initialised.dir)).migrated,
): Promise<boolean> {
  let made = false;
  if (!exists(initialised)) {
    await make(initialised, false);
    made = true;
  }
  if (migrated !== undefined && !exists(migrated)) {
    await make(migrated, initialised, (database) => migrate(database));
    made = true;
  }
  if (migrated !== undefined) removeOtherSchemaTemplates(dirname(migrated.dir), schemaOf(migrated));
  return made;
}

function exists(template: DataDirTemplate): boolean {
  return holdsDatabase(template.dir) && template.tarball() !== undefined;
}

function schemaOf(template: DataDirTemplate): string {
  return /-schema-([0-9a-f]{16})-datadir$/.exec(template.dir)?.[1] ?? '';
}

async function make(template: DataDirTemplate, from: DataDirTemplate | false, prepare?: (database: Database) => Promise<unknown>) {
  const scratch = mkdtempSync(join(tmpdir(), 'croupier-template-'));
  try {
    const pgdata = join(scratch, 'pgdata');
    const tarball = await prepareDataDir(pgdata, from, prepare);
    await template.keep(pgdata, tarball);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
