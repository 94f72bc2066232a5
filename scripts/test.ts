// `npm test`: the whole suite on the embedded database, then again on PostgreSQL when
// TEST_DATABASE_URL is set. Extra arguments are passed to `node --test` (e.g. a file).
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_FLAGS } from '../bin/node-flags.js';
import { prepareTemplate } from '../src/platform/db/prepare-template.ts';
import { preparePostgresTemplate } from '../test/helpers/postgres-template.ts';

const args = process.argv.slice(2);
const files = args.length > 0 ? args : globSync('test/**/*.test.ts').sort();
const backends = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];
// Every test file's in-memory database starts from the migrated template of today's schema
// (src/platform/db/template.ts): made here once when a migration or function file changed since
// `npm install`, instead of each file migrating its own.
await prepareTemplate();
// And on PostgreSQL, one database migrated once that each file's databases are copies of.
if (process.env.TEST_DATABASE_URL) await preparePostgresTemplate(process.env.TEST_DATABASE_URL);
let failed = false;
for (const backend of backends) {
  console.log(`\n# croupier tests on ${backend}\n`);
  const result = spawnSync(process.execPath, [...NODE_FLAGS, '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
    stdio: 'inherit',
    // Every test file and every server or command it starts loads the same modules: Node's
    // compile cache (bin/compile-cache.js) strips and compiles each once for the whole run.
    env: {
      NODE_COMPILE_CACHE: join(import.meta.dirname, '..', 'node_modules', '.cache', 'croupier', 'compile-cache'),
      ...process.env,
      TEST_DB: backend,
    },
  });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
