import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every SQL function has one current file, db/functions/<name>.sql, holding its whole definition
 * (and the triggers that run it): a reader finds today's rule by its name, and changing a rule is
 * editing its file (docs/decisions/0006). `migrate` (migrate.ts) applies a file whose text the
 * database has not recorded, after the pending migrations, in the same transaction.
 */
const FUNCTIONS_DIR = fileURLToPath(new URL('../../../db/functions/', import.meta.url));

export interface FunctionFile {
  /** The function's name, and the file's: db/functions/<name>.sql. */
  name: string;
  sql: string;
  /** SHA-256 of the text: the database records it once the file is applied. */
  hash: string;
  /** The other function files this one names (comments aside): applied before it. */
  after: string[];
}

/** Where a function's file is, as `migrate` reports it. */
export function functionPath(name: string): string {
  return `db/functions/${name}.sql`;
}

const CREATES = /\bcreate\s+(or\s+replace\s+)?(function|trigger)\s+("?[\w.]+"?)/gi;

/**
 * What a file creates must be created again each time it is applied: one function, the file's
 * own, and any triggers that run it, each with `create or replace`. Anything else (types,
 * tables, data) is a migration's.
 */
function checkFunctionFile(name: string, code: string): void {
  const created = [...code.matchAll(CREATES)];
  const functions = created.filter((match) => match[2]!.toLowerCase() === 'function').map((match) => match[3]!.toLowerCase());
  if (functions.length !== 1 || functions[0] !== name) {
    throw new Error(`${functionPath(name)} must create the one function ${name}; it creates ${functions.join(', ') || 'none'}.`);
  }
  const once = created.find((match) => match[1] === undefined);
  if (once !== undefined) {
    throw new Error(`${functionPath(name)}: "${once[0]}" fails when the file is applied again; write "create or replace".`);
  }
}

/**
 * The files in the order they are applied: a file after the files of the functions it names,
 * otherwise by name. A language-sql body, a trigger and a signature need what they name to exist;
 * PL/pgSQL bodies are resolved when called, so a cycle among them (functions calling each other)
 * is broken by name.
 */
function inDependencyOrder(files: Array<Omit<FunctionFile, 'after'> & { code: string }>): FunctionFile[] {
  const named = files.map(({ code, ...file }) => ({
    ...file,
    after: files
      .filter((other) => other.name !== file.name && new RegExp(`\\b${other.name}\\b`, 'i').test(code))
      .map((other) => other.name),
  }));
  const waiting = named.sort((a, b) => (a.name < b.name ? -1 : 1));
  const placed = new Set<string>();
  const ordered: FunctionFile[] = [];
  while (waiting.length > 0) {
    const ready = waiting.findIndex((file) => file.after.every((name) => placed.has(name)));
    const [next] = waiting.splice(Math.max(ready, 0), 1);
    ordered.push(next!);
    placed.add(next!.name);
  }
  return ordered;
}

/**
 * What a file says, not what it explains. A `--` inside a quoted string cuts its line short here:
 * this text is only searched for what the file creates and names, never run.
 */
function withoutComments(text: string): string {
  return text.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '');
}

export function listFunctions(dir = FUNCTIONS_DIR): FunctionFile[] {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => {
      const name = file.replace(/\.sql$/, '');
      const text = readFileSync(join(dir, file), 'utf8');
      const code = withoutComments(text);
      checkFunctionFile(name, code);
      return { name, sql: text, hash: createHash('sha256').update(text).digest('hex'), code };
    });
  return inDependencyOrder(files);
}

/**
 * The files a script calls (`name(`, comments aside), with the files they name in turn, in the
 * order they are applied: what must exist before a migration that calls a function runs (a
 * backfill through today's rule, a trigger).
 */
export function calledBy(script: string, files: FunctionFile[]): FunctionFile[] {
  const code = withoutComments(script);
  const needed = new Set(files.filter((file) => new RegExp(`\\b${file.name}\\s*\\(`, 'i').test(code)).map((file) => file.name));
  // Backwards through the order, so what a file names is added before it is reached.
  for (const file of [...files].reverse()) if (needed.has(file.name)) file.after.forEach((name) => needed.add(name));
  return files.filter((file) => needed.has(file.name));
}
