// Node's compile cache keeps each module's compiled code, and for a .ts file the code its types
// were stripped to, on disk, keyed by the file's contents and the Node version: a start after the
// first compiles and strips nothing it already did (about half of the ~2 s of CPU that loading
// croupier's modules took on every start and every command). It lives beside the embedded
// database's template in node_modules/.cache; where that is read-only (the Docker image's /app),
// in the system's temporary directory; where neither is writable, Node carries on without it.
import { constants, enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const own = join(import.meta.dirname, '..', 'node_modules', '.cache', 'croupier', 'compile-cache');
if (process.env.NODE_COMPILE_CACHE === undefined) {
  const { status } = enableCompileCache(own);
  if (status === constants.compileCacheStatus.FAILED) enableCompileCache(join(tmpdir(), 'croupier-compile-cache'));
}
