import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { NODE_FLAGS } from '../../bin/node-flags.js';

const ROOT = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const flags = NODE_FLAGS.join(' ');

// Each way of starting croupier names the flags itself (a shebang or a script cannot import them):
// one that drifted would start the server with TurboFan's 500 MB peak again (bin/node-flags.js).
test('npx croupier, npm start, npm run migrate and the Docker image start node with the flags of bin/node-flags.js', () => {
  assert.equal(read('bin/croupier.js').split('\n')[0], `#!/usr/bin/env -S node ${flags}`);
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.start, `exec node ${flags} bin/croupier.js serve`);
  assert.equal(scripts.migrate, `node ${flags} bin/croupier.js migrate`);
  const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
  assert.deepEqual(JSON.parse(cmd ?? '[]'), ['node', ...NODE_FLAGS, 'bin/croupier.js', 'serve']);
});
