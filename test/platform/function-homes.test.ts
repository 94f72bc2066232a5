// One current home for every money rule (docs/decisions/0006): each function and trigger is
// created in exactly one file of the repository, db/functions/<function>.sql (test/ aside, whose
// throw-away functions are its own).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listFunctions } from '../../src/platform/db/functions.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** What .gitignore leaves out, and git's own folder. */
const SKIPPED = new Set(['.git', 'node_modules', 'data', 'coverage', '.tmp']);

function repositoryFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return repositoryFiles(path);
    return entry.isFile() ? [relative(root, path)] : [];
  });
}

/** For each name a pattern creates, the files that create it. */
function creators(pattern: RegExp): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of repositoryFiles()) {
    const text = readFileSync(join(root, file), 'utf8');
    const names = new Set([...text.matchAll(pattern)].map((match) => match[1]!.toLowerCase()));
    for (const name of names) found.set(name, [...(found.get(name) ?? []), file]);
  }
  return found;
}

const FUNCTION = /\bcreate\s+(?:or\s+replace\s+)?function\s+([a-z_][a-z0-9_]*)\s*\(/gi;
const TRIGGER = /\bcreate\s+(?:or\s+replace\s+)?trigger\s+([a-z_][a-z0-9_]*)\s/gi;

describe('one home for every SQL function', () => {
  const functions = creators(FUNCTION);

  test('each function is created in exactly one file: its db/functions/<name>.sql', () => {
    assert.ok(functions.has('ledger_apply'), 'the search finds the functions');
    for (const [name, files] of functions) {
      const home = files.every((file) => file.startsWith('test/')) ? files[0]! : `db/functions/${name}.sql`;
      assert.deepEqual(files, [home], `${name} is created in ${files.join(', ')}`);
    }
  });

  test('each trigger is created in exactly one file: the file of the function it runs', () => {
    const triggers = creators(TRIGGER);
    assert.ok(triggers.has('ledger_entries_no_update'), 'the search finds the triggers');
    for (const [name, files] of triggers) {
      assert.equal(files.length, 1, `${name} is created in ${files.join(', ')}`);
      assert.match(files[0]!, /^(db\/functions|test)\//, `${name} is created in ${files[0]}`);
    }
    for (const file of listFunctions()) {
      for (const [, trigger, runs] of file.sql.matchAll(
        /\bcreate\s+or\s+replace\s+trigger\s+(\w+)[\s\S]*?\bexecute\s+function\s+(\w+)/gi,
      )) {
        assert.equal(runs, file.name, `${trigger} runs ${runs}, not the function of its file`);
      }
    }
  });
});
