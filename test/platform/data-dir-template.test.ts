import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one, openDatabase } from '../../src/platform/db/client.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { prepareTemplate } from '../../src/platform/db/prepare-template.ts';
import { dataDirTemplate, defaultTemplateDir } from '../../src/platform/db/template.ts';
import { backend } from '../helpers/database.ts';

// The template only concerns the embedded database on disk; the PostgreSQL run has nothing to add.
describe('a fresh embedded DATA_DIR starts from a prepared template', { skip: backend === 'postgres' }, () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  function scratch(): string {
    const dir = mkdtempSync(join(tmpdir(), 'croupier-template-test-'));
    dirs.push(dir);
    return dir;
  }

  async function noteCount(dataDir: string, template = dataDirTemplate(scratch())): Promise<number> {
    const database = await openDatabase({ databaseUrl: undefined, dataDir, template });
    try {
      const row = await one<{ count: string }>(database.db, sql`select count(*)::text as count from notes`);
      return Number(row?.count);
    } finally {
      await database.close();
    }
  }

  test('a start without a template keeps its fresh data directory as one, and the next fresh start from it migrates and keeps data', async () => {
    const template = dataDirTemplate(scratch());
    assert.equal(template.load(), undefined);
    const first = await openDatabase({ databaseUrl: undefined, dataDir: scratch(), template });
    await first.close();
    assert.ok(template.load() !== undefined, 'the first fresh start left a template');

    const dataDir = scratch();
    const copied = await openDatabase({ databaseUrl: undefined, dataDir, template });
    try {
      assert.ok((await migrate(copied)).length > 0, 'the template holds no schema: every migration applies');
      await copied.db.execute(sql`create table notes (body text)`);
      await copied.db.execute(sql`insert into notes values ('kept')`);
    } finally {
      await copied.close();
    }
    assert.equal(await noteCount(dataDir, template), 1, 'what was written on the copy is there after a restart');
  });

  test('an existing data directory is opened as it is, never replaced by the template', async () => {
    const template = dataDirTemplate(scratch());
    const dataDir = scratch();
    const database = await openDatabase({ databaseUrl: undefined, dataDir, template });
    try {
      await database.db.execute(sql`create table notes (body text)`);
      await database.db.execute(sql`insert into notes values ('kept')`);
    } finally {
      await database.close();
    }
    assert.ok(template.load() !== undefined);
    assert.equal(await noteCount(dataDir, template), 1);
  });

  test('a damaged template costs one initdb and is replaced by a good one', async () => {
    const template = dataDirTemplate(scratch());
    writeFileSync(template.path, 'not a tarball');
    const dataDir = scratch();
    const database = await openDatabase({ databaseUrl: undefined, dataDir, template });
    try {
      assert.ok((await migrate(database)).length > 0);
    } finally {
      await database.close();
    }
    assert.ok(statSync(template.path).size > 1_000_000, 'the damaged template was rewritten');
    const next = await openDatabase({ databaseUrl: undefined, dataDir: scratch(), template });
    await next.close();
  });

  test('an in-memory database starts from the template, and from initdb when the template is damaged', async () => {
    const template = dataDirTemplate(scratch());
    await prepareTemplate(template);
    for (const damage of [false, true]) {
      if (damage) writeFileSync(template.path, 'not a tarball');
      const database = await openDatabase({ databaseUrl: undefined, dataDir: '', inMemory: true, template });
      try {
        assert.ok((await migrate(database)).length > 0);
      } finally {
        await database.close();
      }
    }
  });

  test('prepareTemplate makes the template once and leaves an existing one alone', async () => {
    const template = dataDirTemplate(scratch());
    assert.equal(await prepareTemplate(template), true);
    const made = statSync(template.path).mtimeMs;
    assert.equal(await prepareTemplate(template), false);
    assert.equal(statSync(template.path).mtimeMs, made);
  });

  test('npm install runs the postinstall step, which succeeds and leaves the template where the server looks', () => {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/postinstall.js')], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.ok(existsSync(dataDirTemplate(defaultTemplateDir()).path));
  });
});
