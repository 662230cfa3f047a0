'use strict';
// register under Bun, which has neither module.registerHooks() nor a working
// module.register() (a stub), and never calls Module._load or
// Module.prototype._compile. Bun offers two ways in, and each carries one
// module format:
//   - require() of a CommonJS file goes through Module._extensions: the
//     wrapper here compiles the file's source with its SDK classes' static
//     blocks (lib/register/hooks.cjs's reachedSource) through the module's own
//     _compile, and leaves every other file to Bun's handler;
//   - a preload's Bun.plugin() onLoad sees ES modules, but compiles whatever
//     it returns as an ES module (a CommonJS body returned through it loses
//     its exports: oven-sh/bun#39786), and must return something for every
//     file its filter matches. So the filter matches only files that are ES
//     modules by their path: `.mjs`, the SDK's `dist/esm/` builds, and `.js`
//     files of the application's own package when its package.json says
//     `"type": "module"` (outside its node_modules).
// In both, SDK classes are found by shape in any module, the SDK's own
// builds included (Bun has no hook that sees a module's exports).
// What neither reaches: a CommonJS module that an ES module imports
// (Bun calls no hook for it) and a `.js` ES module in a dependency's package
// outside `dist/esm/`: install() or patchProtocol() reach those.
// Loaded only under Bun, by lib/register/install-hooks.mjs.

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const hooks = require('./hooks.cjs');
const { packageJsonIn } = require('../discover/package-of.cjs');

function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** The application's package root when its package.json says "type": "module" (its `.js` files are ES modules), else undefined. */
function esmAppRoot(from = process.cwd()) {
  let dir = from;
  for (;;) {
    const pkg = packageJsonIn(dir);
    if (pkg !== undefined) return pkg.type === 'module' ? dir : undefined;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The onLoad filter: the files that are ES modules by their path alone. */
function esmFilter(appRoot = esmAppRoot()) {
  const parts = ['\\.mjs$', '[\\\\/]dist[\\\\/]esm[\\\\/].*\\.js$'];
  if (appRoot !== undefined) parts.push(`^${escapeRegExp(appRoot + path.sep)}(?!.*[\\\\/]node_modules[\\\\/]).*\\.js$`);
  return new RegExp(parts.join('|'));
}

/**
 * Module._extensions[ext], wrapped: a CommonJS file with SDK classes is
 * compiled with their static blocks. Bun lists no '.cjs' handler but calls
 * one when it is there: its '.js' handler loads every other `.cjs` file.
 */
function wrapExtension(ext) {
  const original = Module._extensions[ext] ?? Module._extensions['.js'];
  Module._extensions[ext] = function loadWithBlocks(module, filename) {
    let changed;
    try {
      changed = hooks.reachedSource(fs.readFileSync(filename, 'utf8'), filename, 'commonjs', hooks.REACH_ALL_OPTIONS);
    } catch {
      changed = undefined; // never into the application's module loading: the file loads as Bun loads it
    }
    if (changed === undefined) return original.call(this, module, filename);
    return module._compile(changed, filename);
  };
}

/** Install register under Bun (where this Bun offers no way in, one warning: the application runs stock). */
function installBunHooks() {
  if (typeof globalThis.Bun?.plugin !== 'function' || typeof Module._extensions?.['.js'] !== 'function') {
    hooks.warnNoHooks('it has no Bun.plugin() and Module._extensions');
    return;
  }
  wrapExtension('.js');
  wrapExtension('.cjs');
  const filter = esmFilter();
  globalThis.Bun.plugin({
    name: 'mcp-ordered-dispatch',
    setup(build) {
      build.onLoad({ filter }, ({ path: file }) => {
        const contents = fs.readFileSync(file, 'utf8');
        let changed;
        try {
          changed = hooks.reachedSource(contents, file, 'module', hooks.REACH_ALL_OPTIONS);
        } catch {
          changed = undefined;
        }
        return { contents: changed ?? contents, loader: 'js' };
      });
    },
  });
}

module.exports = { installBunHooks, esmFilter, esmAppRoot };
