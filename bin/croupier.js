#!/usr/bin/env -S node --liftoff-only
// The sources are TypeScript run by Node's own type stripping, so there is no build step; a Node
// too old for it is told so in one line before any .ts file is loaded.
import console from 'node:console';
import { nodeVersionProblem, requiredRange } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node, requiredRange());
if (problem !== undefined) {
  console.error(problem);
  process.exit(1);
}
await import('./compile-cache.js');
await import('./resolve-hooks.js');
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
