import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialiseDataDir } from './client.ts';
import { dataDirTemplate, holdsDatabase, type DataDirTemplate } from './template.ts';

/**
 * Makes the template a fresh embedded database starts from (template.ts), unless it exists:
 * initdb once in a scratch directory, kept as the template. Answers whether it made it.
 */
export async function prepareTemplate(template: DataDirTemplate = dataDirTemplate()): Promise<boolean> {
  if (holdsDatabase(template.dir) && template.tarball() !== undefined) return false;
  const scratch = mkdtempSync(join(tmpdir(), 'croupier-template-'));
  try {
    const pgdata = join(scratch, 'pgdata');
    const tarball = await initialiseDataDir(pgdata);
    await template.keep(pgdata, tarball);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return true;
}
