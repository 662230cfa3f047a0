'use strict';
// register under Bun, which has neither module.registerHooks() nor a working
// module.register() (a stub), and never calls Module._load or
// Module.prototype._compile. Bun offers two ways in:
//   - require() of a CommonJS file from disk goes through
//     Module._extensions: the wrapper here compiles the file's source with
//     its SDK classes' static blocks (lib/register/hooks.cjs's rewrittenSource)
//     through the module's own _compile, and leaves every other file to
//     Bun's handler;
//   - a preload's Bun.plugin(): its onResolve sees every import (of ES
//     modules from disk, and of every module embedded in a Bun-compiled
//     executable, CommonJS chunks included), and lib/register/bun-graph.cjs
//     sends the few that define an SDK class into a namespace whose onLoad
//     returns them patched. No onLoad of this plugin matches a file by its
//     path: Bun compiles whatever an onLoad returns as an ES module
//     (oven-sh/bun#39786), so a CommonJS file matched by one would lose its
//     exports.
// In both, SDK classes are found by shape in any module, the SDK's own
// builds included (Bun has no hook that sees a module's exports).
// Loaded only under Bun, by lib/register/install-hooks.mjs.

const fs = require('node:fs');
const Module = require('node:module');
const hooks = require('./hooks.cjs');

/**
 * Module._extensions[ext], wrapped: a CommonJS file with SDK classes is
 * compiled with their static blocks. Bun lists no '.cjs' handler but calls
 * one when it is there: its '.js' handler loads every other `.cjs` file.
 */
function wrapExtension(ext) {
  const original = Module._extensions[ext] ?? Module._extensions['.js'];
  Module._extensions[ext] = function loadWithBlocks(module, filename) {
    let source;
    try {
      source = fs.readFileSync(filename, 'utf8');
    } catch {
      return original.call(this, module, filename); // Bun's own handler says why it cannot be read
    }
    const changed = hooks.rewrittenSource(source, filename, 'commonjs', hooks.REWRITE_ALL_OPTIONS);
    if (changed === undefined) return original.call(this, module, filename);
    require('./bun-graph.cjs').compiledByRequire(filename);
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
  const { setupGraph } = require('./bun-graph.cjs');
  globalThis.Bun.plugin({ name: 'mcp-ordered-dispatch', setup: setupGraph });
}

module.exports = { installBunHooks };
