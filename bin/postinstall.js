// `npm install` prepares what a first `npm start` on the embedded database would otherwise spend
// seconds on (src/platform/db/template.ts): an initialised data directory, and the same migrated.
// It never fails the install: without the templates a fresh DATA_DIR runs initdb and the
// migrations itself, as before.
import console from 'node:console';
import { nodeVersionProblem, requiredRange } from './node-version.js';

// Too old a Node cannot load the sources; bin/croupier.js says what to do at the first start.
if (nodeVersionProblem(process.versions.node, requiredRange()) === undefined) {
  try {
    await import('./resolve-hooks.js');
    const { prepareTemplate } = await import('../src/platform/db/prepare-template.ts');
    const { defaultTemplateDir } = await import('../src/platform/db/template.ts');
    if (await prepareTemplate()) console.log(`croupier: embedded database templates written to ${defaultTemplateDir()}`);
  } catch (error) {
    console.warn(
      `croupier: no embedded database template (${String(error)}); a fresh DATA_DIR will run initdb and the migrations instead.`,
    );
  }
}
