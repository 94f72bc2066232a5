// Node (22 and 24) parses a package's whole `exports` map again each time it resolves a module of
// that package (package_json_reader spreads a lazily parsed field). drizzle-orm's map is 178 KB,
// a start loads some 200 of its modules, and the app imports it from about a hundred files:
// seconds of CPU and ~200 MB of garbage before the first request. So: drizzle's own modules,
// which import each other by relative `.js` paths and are all ES modules ("type": "module"), are
// resolved without its package.json, and each `drizzle-orm[/…]` specifier is resolved once.
import { registerHooks } from 'node:module';
import { URL } from 'node:url';

const DRIZZLE = '/node_modules/drizzle-orm/';
/** Bare drizzle specifiers as the app resolved them: one package, so one answer per specifier. */
const resolved = new Map();

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.includes(DRIZZLE) && /^\.\.?\/.*\.js$/.test(specifier)) {
      return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true };
    }
    if ((specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/')) && !context.parentURL?.includes('/node_modules/')) {
      const key = `${specifier}\0${context.conditions?.join(',') ?? ''}`;
      let result = resolved.get(key);
      if (result === undefined) {
        result = nextResolve(specifier, context);
        resolved.set(key, result);
      }
      return { ...result, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
