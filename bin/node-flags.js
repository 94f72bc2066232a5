// The V8 flags croupier's processes run with: this file's list is written out in bin/croupier.js's
// first line, package.json's start script and the Dockerfile's CMD (test/platform/node-flags.test.ts
// checks they agree), and tests and benches pass it to the processes they start.
//
// --liftoff-only: the embedded database (PGlite) is PostgreSQL compiled to WebAssembly, and V8
// recompiles its hottest functions with TurboFan in the background. For PostgreSQL's largest
// functions that compilation took 500 MB at its peak, in the first seconds of every start (a
// server's peak RSS went from 250 MB to 790 MB), and CPU that a short-lived process (a command, a
// test file) never earns back. Liftoff, V8's baseline compiler, runs the same code some 25 %
// slower once a long-running server is warm (docs/deployment.md, "The embedded database's
// memory"). Nothing else croupier runs is WebAssembly but Node's own type stripping, whose
// results the compile cache keeps (bin/compile-cache.js); on PostgreSQL the flag changes nothing.
export const NODE_FLAGS = ['--liftoff-only'];
