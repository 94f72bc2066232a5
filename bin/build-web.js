// Builds the back office (web/admin/) into web/admin/dist at install, so that `npm ci && npm start`
// serves it with nothing else to run (docs/decisions/0009-back-office-build.md). A build whose
// inputs (web/ sources, the lockfile) are those of the last one is skipped.
import { createHash } from 'node:crypto';
import console from 'node:console';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');
const web = join(root, 'web');
const dist = join(web, 'admin', 'dist');
const stamp = join(dist, '.fingerprint');

function files(dir, found = []) {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'dist' || name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, found);
    else found.push(path);
  }
  return found;
}

function fingerprint() {
  const hash = createHash('sha256');
  for (const path of [...files(web), join(root, 'package-lock.json')]) {
    hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

/** Compressed copies beside each text file, made once here at the best settings (slow), not at each start. */
function compressAll(dir) {
  for (const path of files(dir)) {
    if (!/\.(js|css|html|svg|json|txt)$/.test(path)) continue;
    const body = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(
      `${path}.br`,
      brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    );
  }
}

const force = process.argv.includes('--force');
const print = fingerprint();
if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8') === print) {
  console.log('croupier: back office already built (web/admin/dist matches its sources)');
} else {
  let vite;
  try {
    createRequire(import.meta.url).resolve('vite');
    vite = await import('vite');
  } catch {
    // An install without devDependencies (--omit=dev) has no build tools: the Dockerfile builds in its own stage.
    console.warn(
      'croupier: vite is not installed (devDependencies left out?): the back office is not built; /admin/ answers 503 until it is',
    );
  }
  if (vite !== undefined) {
    const started = Date.now();
    await vite.build({ configFile: join(web, 'admin', 'vite.config.ts'), logLevel: 'warn' });
    compressAll(dist);
    writeFileSync(stamp, print);
    console.log(`croupier: back office built into web/admin/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
