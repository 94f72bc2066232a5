// Plain JavaScript on purpose: it must run, and say what to do, on a Node too old to strip types.
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';

/** The `engines.node` range of package.json, e.g. ">=22.18.0". */
export function requiredRange() {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return manifest.engines.node;
}

/**
 * One line telling the operator what to do when `version` (as in process.versions.node) is below
 * `range` (a ">=X[.Y[.Z]]" floor), or undefined when it is new enough. The sources are TypeScript
 * run by Node's own type stripping (docs/decisions/0001), which older versions cannot load at all.
 */
export function nodeVersionProblem(version, range) {
  const floor = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (floor === null) throw new Error(`package.json engines.node must be a ">=X.Y.Z" floor, got "${range}".`);
  const wanted = floor.slice(1).map((part) => Number(part ?? 0));
  const have = version.replace(/^v/, '').split(/[.-]/).slice(0, 3).map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > wanted[i]) return undefined;
    if ((have[i] ?? 0) < wanted[i]) {
      return (
        `croupier needs Node ${wanted.join('.')} or newer (it runs TypeScript through Node's type stripping) and this is Node ${version}: ` +
        'install Node 24 (e.g. the official image or nodejs.org), or run `npm ci` with devDependencies to get the pinned one.'
      );
    }
  }
  return undefined;
}
