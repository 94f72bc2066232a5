// The commands' file arguments (`croupier --help` lists them: report:daily's --out DIR and
// exclusions:import's FILE), refused in one line with exit 1, by real runs of the command line.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BIN, scratch, type Run } from '../helpers/cli.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

/**
 * A run of the command line that is killed if it has not ended after a generous while: a command
 * that hangs (Node's recursive mkdir under /proc) fails its test instead of holding up the suite.
 */
function runKilledIfHung(args: string[], env: Record<string, string>): Promise<Run & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, BIN, ...args], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env },
      timeout: 180_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Exit 1, nothing on stdout, and exactly one line on stderr matching `line`. */
function refusedInOneLine(result: Run & { signal: NodeJS.Signals | null }, line: RegExp): void {
  assert.equal(result.signal, null, 'the command hung and was killed');
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  const lines = result.stderr.split('\n').filter((text) => text !== '');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, line);
}

describe('command line: file arguments that cannot be used', () => {
  const { dataDir, target } = scratch('croupier-cli-paths-');

  test('report:daily --out under a regular file: one line naming the file, exit 1, nothing created', async () => {
    const dir = dataDir();
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'not a directory');
    const under = await runKilledIfHung(['report:daily', '--date', '2026-11-01', '--out', join(file, 'sub')], { DATA_DIR: dir });
    refusedInOneLine(under, new RegExp(`^Cannot write in ${file}/sub: ${file} is not a directory\\.$`));
    const onto = await runKilledIfHung(['report:daily', '--date', '2026-11-01', '--out', file], { DATA_DIR: dir });
    refusedInOneLine(onto, new RegExp(`^Cannot write in ${file}: it is not a directory\\.$`));
    // Refused before the database: no embedded database was made in DATA_DIR.
    assert.ok(!readdirSync(dir).includes('pgdata'), readdirSync(dir).join(' '));
  });

  if (existsSync('/proc/self')) {
    test('report:daily --out /proc/nope ends with one line instead of spinning, exit 1', async () => {
      const result = await runKilledIfHung(['report:daily', '--date', '2026-11-01', '--out', '/proc/nope/deeper'], {
        DATA_DIR: dataDir(),
      });
      refusedInOneLine(result, /^Cannot write in \/proc\/nope\/deeper: /);
    });

    test('DATA_DIR=/proc/nope: migrate and serve end with one line naming DATA_DIR instead of spinning, exit 1', async () => {
      for (const args of [['migrate'], ['serve']]) {
        const result = await runKilledIfHung(args, { DATA_DIR: '/proc/nope', PORT: '0' });
        refusedInOneLine(result, /^Invalid DATA_DIR: Cannot write in \/proc\/nope: /);
      }
    });
  }

  test('report:daily --out a path whose directories are missing makes each of them and writes the report', async () => {
    const out = join(dataDir(), 'reports', '2026', '11', '01');
    const result = await runKilledIfHung(['report:daily', '--date', '2026-11-01', '--out', out], await target());
    assert.equal(result.signal, null, 'the command hung and was killed');
    assert.equal(result.code, 0, result.stderr);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { files: { name: string }[] };
    assert.ok(manifest.files.length > 0, 'the manifest names the files');
    assert.deepEqual(readdirSync(out).sort(), [...manifest.files.map((file) => file.name), 'manifest.json'].sort());
  });

  test('exclusions:import of a missing file, a directory or a FIFO: one line saying which, exit 1', async () => {
    const dir = dataDir();
    const missing = await runKilledIfHung(['exclusions:import', join(dir, 'nonexistent.txt')], { DATA_DIR: dir });
    refusedInOneLine(missing, new RegExp(`^Cannot read ${dir}/nonexistent\\.txt: no such file or directory\\.$`));
    const directory = await runKilledIfHung(['exclusions:import', dir], { DATA_DIR: dir });
    refusedInOneLine(directory, new RegExp(`^Cannot read ${dir}: it is a directory, not a file\\.$`));
    // Opening a FIFO waits for a writer: the command would wait forever.
    const fifo = join(dir, 'list.fifo');
    execFileSync('mkfifo', [fifo]);
    const pipe = await runKilledIfHung(['exclusions:import', fifo], { DATA_DIR: dir });
    refusedInOneLine(pipe, new RegExp(`^Cannot read ${fifo}: it is not a regular file\\.$`));
    assert.ok(!readdirSync(dir).includes('pgdata'), 'refused before the database');
  });
});
