// Node (22 and 24) parses a package's whole `exports` map again for every module of that package
// it loads (package_json_reader spreads a lazily parsed field). drizzle-orm's map is 178 KB and a
// start loads some 200 of its modules: seconds of CPU and ~200 MB of garbage before the first
// request. Its modules import each other by relative `.js` paths and are all ES modules
// ("type": "module"), so those imports are resolved here without asking its package.json.
import { registerHooks } from 'node:module';
import { URL } from 'node:url';

const DRIZZLE = '/node_modules/drizzle-orm/';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.includes(DRIZZLE) && /^\.\.?\/.*\.js$/.test(specifier)) {
      return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
