'use strict';
// register's load hook under Deno, which has module.registerHooks() but
// differs from Node in three ways this hook makes up for (each leaves the
// module loading exactly as Deno does it without register):
//   - nextLoad() leaves `format` undefined: the format is inferred here the
//     way Node infers it (.mjs, .cjs, .json; a .js file by the nearest
//     package.json's `type`, and where that names none, by its syntax, left
//     undecided: the rewrite then runs either way), for
//     lib/register/hooks.cjs's loaded() to decide; the result keeps the
//     format Deno gave;
//   - with any load hook registered, require() compiles a .json file as
//     JavaScript unless the hook says 'json';
//   - with any load hook registered, require() compiles a .node file as
//     JavaScript: a .node file is opened with process.dlopen() instead,
//     which Deno still does natively.
// Loaded only under Deno, by lib/register/install-hooks.mjs.

const { fileURLToPath } = require('node:url');
const { moduleTypeOf } = require('../discover/package-of.cjs');

/**
 * The format Node would give the module at `url` (a file: URL): 'json',
 * 'module', 'commonjs', null (a `.js` file whose package.json names no
 * `type`: its syntax decides), or undefined (TypeScript, anything else: Deno's own).
 */
function urlFormatOf(url) {
  if (!url.startsWith('file:')) return undefined;
  const pathname = url.replace(/[?#].*$/, '');
  if (pathname.endsWith('.json')) return 'json';
  return moduleTypeOf(fileURLToPath(pathname));
}

/**
 * The load hook: `loaded(url, result)` is what register does with a module
 * that has a source and a format ('module' or 'commonjs'); `busy()` is true
 * while register's own files load (they pass unlooked at).
 */
function denoLoadHook(loaded, busy) {
  return function load(url, context, nextLoad) {
    if (url.startsWith('file:') && url.replace(/[?#].*$/, '').endsWith('.node')) {
      return { format: 'commonjs', source: `process.dlopen(module, ${JSON.stringify(fileURLToPath(url))});`, shortCircuit: true };
    }
    const result = nextLoad(url, context);
    if (result.source == null || busy()) return result;
    let format = result.format;
    if (format == null) {
      try {
        format = urlFormatOf(url);
      } catch {
        return result;
      }
      if (format === 'json') return { ...result, format };
    }
    if (format !== 'module' && format !== 'commonjs' && format !== null) return result;
    const changed = loaded(url, { ...result, format: format ?? undefined });
    return changed.source === result.source ? result : { ...result, source: changed.source };
  };
}

module.exports = { denoLoadHook };
