import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one, openDatabase } from '../../src/platform/db/client.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { prepareTemplate } from '../../src/platform/db/prepare-template.ts';
import { listMigrations } from '../../src/platform/db/migration-files.ts';
import {
  dataDirTemplate,
  defaultTemplateDir,
  freshDatabaseTemplate,
  holdsDatabase,
  removeOtherSchemaTemplates,
  schemaFingerprint,
  templatesIn,
} from '../../src/platform/db/template.ts';
import { scratch as scratchDirs } from '../helpers/cli.ts';
import { backend } from '../helpers/database.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

// The template only concerns the embedded database; the PostgreSQL run has nothing to add.
describe('a fresh embedded DATA_DIR starts from a prepared template', { skip: backend === 'postgres' }, () => {
  const { dataDir: scratch } = scratchDirs('croupier-template-test-');
  // One template for the suite: making one is an initdb.
  const shared = dataDirTemplate(scratch());

  async function noteCount(dataDir: string): Promise<number> {
    const database = await openDatabase({ databaseUrl: undefined, dataDir, template: shared });
    try {
      const row = await one<{ count: string }>(database.db, sql`select count(*)::text as count from notes`);
      return Number(row?.count);
    } finally {
      await database.close();
    }
  }

  test('prepareTemplate makes the template once and leaves an existing one alone', async () => {
    assert.equal(await prepareTemplate(shared, undefined), true);
    assert.ok(holdsDatabase(shared.dir));
    assert.ok(statSync(shared.tarballPath).size > 1_000_000);
    const made = statSync(shared.tarballPath).mtimeMs;
    assert.equal(await prepareTemplate(shared, undefined), false);
    assert.equal(statSync(shared.tarballPath).mtimeMs, made);
  });

  test('a fresh data directory is a copy of the template: every migration applies and what is written is there after a restart', async () => {
    const dataDir = scratch();
    const copied = await openDatabase({ databaseUrl: undefined, dataDir, template: shared });
    try {
      assert.ok(holdsDatabase(join(dataDir, 'pgdata')));
      assert.ok((await migrate(copied)).length > 0, 'the template holds no schema');
      await copied.db.execute(sql`create table notes (body text)`);
      await copied.db.execute(sql`insert into notes values ('kept')`);
    } finally {
      await copied.close();
    }
    assert.equal(await noteCount(dataDir), 1);
  });

  test('an existing data directory is opened as it is, never replaced by the template', async () => {
    const dataDir = scratch();
    const database = await openDatabase({ databaseUrl: undefined, dataDir, template: false });
    try {
      await database.db.execute(sql`create table notes (body text)`);
      await database.db.execute(sql`insert into notes values ('kept'), ('too')`);
    } finally {
      await database.close();
    }
    assert.equal(await noteCount(dataDir), 2);
  });

  test('a damaged template costs one initdb and is discarded', async () => {
    const damaged = dataDirTemplate(scratch());
    await prepareTemplate(damaged, undefined);
    writeFileSync(join(damaged.dir, 'global', 'pg_control'), 'not a control file');
    const database = await openDatabase({ databaseUrl: undefined, dataDir: scratch(), template: damaged });
    try {
      assert.ok((await migrate(database)).length > 0);
    } finally {
      await database.close();
    }
    assert.equal(existsSync(damaged.dir), false, 'the damaged template is gone, for the next install to make again');
  });

  test('an in-memory database starts from the template, and from initdb when the template is damaged', async () => {
    const template = dataDirTemplate(scratch());
    await prepareTemplate(template, undefined);
    for (const damage of [false, true]) {
      if (damage) writeFileSync(template.tarballPath, 'not a tarball');
      const database = await openDatabase({ databaseUrl: undefined, dataDir: '', inMemory: true, template });
      try {
        assert.ok((await migrate(database)).length > 0);
      } finally {
        await database.close();
      }
    }
  });

  test('a fresh data directory from the migrated template has every migration applied, and starts without applying any', async () => {
    const folder = scratch();
    assert.equal(await prepareTemplate(dataDirTemplate(folder)), true);
    const { migrated } = templatesIn(folder);
    assert.ok(holdsDatabase(migrated.dir) && existsSync(migrated.tarballPath), 'prepareTemplate made the migrated template');
    for (const inMemory of [false, true]) {
      const database = await openDatabase({
        databaseUrl: undefined,
        dataDir: inMemory ? '' : scratch(),
        inMemory,
        template: freshDatabaseTemplate(folder),
      });
      try {
        assert.deepEqual(await migrate(database), [], 'nothing left to apply');
        const row = await one<{ count: string }>(database.db, sql`select count(*)::text as count from schema_migrations`);
        assert.equal(Number(row?.count), listMigrations().length);
      } finally {
        await database.close();
      }
    }
  });

  test('a schema changed since the template was made starts from the initialised template and migrates', async () => {
    const folder = scratch();
    await prepareTemplate(dataDirTemplate(folder));
    const changed = [...listMigrations(), { name: '29991231000000_later', sql: 'create table later (id int)' }];
    assert.notEqual(schemaFingerprint(changed), schemaFingerprint());
    // What a checkout with one more migration finds: no migrated template of its schema.
    const stale = dataDirTemplate(folder, schemaFingerprint(changed));
    assert.equal(stale.copyTo(join(scratch(), 'pgdata')), false);
    const database = await openDatabase({ databaseUrl: undefined, dataDir: scratch(), template: dataDirTemplate(folder) });
    try {
      assert.equal((await migrate(database, changed)).filter((name) => !name.includes('/')).length, changed.length);
    } finally {
      await database.close();
    }
  });

  test("templates of other schemas are removed once an hour old, and today's is kept", () => {
    const folder = scratch();
    const names = [
      'pglite-0.0.0-schema-0000000000000000-datadir',
      'pglite-0.0.0-schema-0000000000000000-datadir.tar',
      'pglite-0.0.0-schema-1111111111111111-datadir',
    ];
    for (const name of names) writeFileSync(join(folder, name), 'x');
    removeOtherSchemaTemplates(folder, '1111111111111111', Date.now() + 30 * 60 * 1000);
    assert.ok(
      names.every((name) => existsSync(join(folder, name))),
      'half an hour old: perhaps another checkout is testing with it',
    );
    removeOtherSchemaTemplates(folder, '1111111111111111', Date.now() + 2 * 60 * 60 * 1000);
    assert.deepEqual(
      names.map((name) => existsSync(join(folder, name))),
      [false, false, true],
    );
  });

  test('croupier migrate on a new DATA_DIR says it was created from the migrated template, with nothing left to migrate', () => {
    const result = spawnSync(process.execPath, [...NODE_FLAGS, join(import.meta.dirname, '../../bin/croupier.js'), 'migrate'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, DATA_DIR: scratch() },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      result.stdout,
      `Created the embedded database from the migrated template: every migration (${listMigrations().length}) applied.\nNothing to migrate.\n`,
    );
  });

  test('npm install runs the postinstall step, which succeeds and leaves the template where the server looks', () => {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/postinstall.js')], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    const { initialised, migrated } = templatesIn(defaultTemplateDir());
    for (const template of [initialised, migrated]) {
      assert.ok(holdsDatabase(template.dir), template.dir);
      assert.ok(existsSync(template.tarballPath), template.tarballPath);
    }
  });
});
