import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rows, sql, type Db } from '../../src/platform/db/client.ts';
import { listFunctions, type FunctionFile } from '../../src/platform/db/functions.ts';

export const FUNCTIONS_DIR = fileURLToPath(new URL('../../db/functions/', import.meta.url));

/** The body a function file gives its function: its first dollar-quoted text. */
export function fileBody(file: FunctionFile): string {
  const match = /\$(\w*)\$([\s\S]*?)\$\1\$/.exec(file.sql);
  if (match === null) throw new Error(`${file.name} has no dollar-quoted body`);
  return match[2]!;
}

/** db/functions/ copied into `dir` with `name`'s text changed by `change`, as the runner reads it. */
export function withChangedFile(dir: string, name: string, change: (text: string) => string): FunctionFile[] {
  cpSync(FUNCTIONS_DIR, dir, { recursive: true });
  const path = join(dir, `${name}.sql`);
  const text = readFileSync(path, 'utf8');
  const changed = change(text);
  if (changed === text) throw new Error(`the change left ${name}.sql as it was`);
  writeFileSync(path, changed);
  return listFunctions(dir);
}

/** Function files written into `dir` from their texts, as the runner reads them. */
export function functionFiles(dir: string, texts: Record<string, string>): FunctionFile[] {
  for (const [name, text] of Object.entries(texts)) writeFileSync(join(dir, `${name}.sql`), text);
  return listFunctions(dir);
}

export interface Definitions {
  functions: string[];
  triggers: string[];
}

/** Every function of the schema as PostgreSQL would write it again, and every trigger. */
export async function definitions(db: Db): Promise<Definitions> {
  const functions = await rows<{ definition: string }>(
    db,
    sql`select pg_get_functiondef(p.oid) as definition from pg_proc p
      where p.pronamespace = current_schema()::regnamespace order by p.proname, p.oid::regprocedure::text`,
  );
  const triggers = await rows<{ definition: string }>(
    db,
    sql`select pg_get_triggerdef(t.oid) as definition from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where not t.tgisinternal and c.relnamespace = current_schema()::regnamespace order by t.tgname`,
  );
  return { functions: functions.map((row) => row.definition), triggers: triggers.map((row) => row.definition) };
}
