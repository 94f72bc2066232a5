import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './client.ts';
import { dataDirTemplate, type DataDirTemplate } from './template.ts';

/**
 * Makes the template a fresh embedded database starts from (template.ts), unless it exists:
 * initdb once in a scratch directory, which openDatabase keeps as the template.
 * Answers whether it had to make it.
 */
export async function prepareTemplate(template: DataDirTemplate = dataDirTemplate()): Promise<boolean> {
  if (template.load() !== undefined) return false;
  const scratch = mkdtempSync(join(tmpdir(), 'croupier-template-'));
  try {
    const database = await openDatabase({ databaseUrl: undefined, dataDir: scratch, template });
    await database.close();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return template.load() !== undefined;
}
