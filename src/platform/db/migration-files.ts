import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url));

export interface Migration {
  name: string;
  sql: string;
}

/** The committed migrations (migrations/*.sql), in the order they apply: by name. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ''), sql: readFileSync(`${dir}/${file}`, 'utf8') }));
}
