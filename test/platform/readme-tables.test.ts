import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { run } from '../helpers/cli.ts';

/**
 * The README's tables are where a newcomer looks for a command or a variable: one that
 * `croupier --help` lists or src/config.ts reads, and the README does not name, is invisible.
 */
const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

/** The first cell of each row of the table under `heading` (up to the next heading). */
function firstCells(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `the README has a "${heading}" section`);
  const section = readme.slice(start + 1).split(/\n## /)[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]!);
}

describe('the README', () => {
  test('its command table names every command `croupier --help` lists', async () => {
    const help = await run(['--help'], {});
    assert.equal(help.code, 0, help.stderr);
    const commands = [...help.stdout.matchAll(/^ {2}([a-z]+(?::[a-z]+)?)\b/gm)].map((match) => match[1]!);
    assert.ok(commands.length >= 10, `--help lists the commands: ${commands.join(', ')}`);
    const documented = new Set(firstCells('Command line').map((cell) => /`([a-z]+(?::[a-z]+)?)/.exec(cell)?.[1]));
    assert.deepEqual(
      commands.filter((command) => !documented.has(command)),
      [],
      'commands the README does not list',
    );
  });

  test('its configuration table names every variable src/config.ts reads', () => {
    const config = readFileSync(new URL('src/config.ts', root), 'utf8');
    const variables = new Set([...config.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]!));
    assert.ok(variables.size >= 30, `config.ts reads the environment: ${[...variables].join(', ')}`);
    const documented = new Set(
      firstCells('Configuration').flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!)),
    );
    assert.deepEqual(
      [...variables].filter((variable) => !documented.has(variable)),
      [],
      'variables the README does not list',
    );
  });
});
