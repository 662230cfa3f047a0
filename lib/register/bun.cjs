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
//
// Bun lines, as run against the raw server (test/runtimes/bun-lines.test.mjs):
//   - before 1.3.0 (lib/register/gate.cjs's MIN_BUN): 1.1 and 1.2.0 have no
//     process.getBuiltinModule(); with Module._extensions['.js'] wrapped at
//     all (even by a wrapper that only calls Bun's own), 1.2.x fails to
//     parse CommonJS files an ES module imports (cross-spawn's which.js) and
//     crashes on CommonJS apps: the gate leaves them stock, with one line;
//   - 1.3.0 to 1.4.2 crash (a segmentation fault) on a require() of a file
//     not loaded yet made inside a Bun.plugin() onResolve that Bun called
//     for a require(); fixed in 1.4.3. register's onResolve requires its
//     search by shape lazily, so on these lines it loads it first, at start
//     (loadWhatOnResolveNeeds);
//   - 1.4.3 on: as written.

const fs = require('node:fs');
const Module = require('node:module');
const hooks = require('./hooks.cjs');
const { mayRun, olderThan } = require('./gate.cjs');
const { PACKAGE_NAME } = require('../shape/globals.cjs');
const { isOwnFile } = require('../shape/rewrite.cjs');

/**
 * Module._extensions[ext], wrapped: a CommonJS file with SDK classes is
 * compiled with their static blocks. Bun lists no '.cjs' handler but calls
 * one when it is there: its '.js' handler loads every other `.cjs` file.
 */
function wrapExtension(ext) {
  const original = Module._extensions[ext] ?? Module._extensions['.js'];
  Module._extensions[ext] = function loadWithBlocks(module, filename) {
    if (isOwnFile(filename)) return original.call(this, module, filename);
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

/** The first Bun line that survives a require() made inside an onResolve called for a require(). */
const REENTRANT_REQUIRE_SAFE = '1.4.3';

/**
 * What register's onResolve would otherwise require() lazily (the search by
 * shape, the addon), loaded now: on Bun before 1.4.3 a require() of a file
 * inside an onResolve Bun called for a require() crashes the process.
 */
function loadWhatOnResolveNeeds() {
  require('node:vm');
  require('../shape/cache.cjs');
  require('../shape/blocks.cjs');
  require('../shape/classes.cjs');
  // The addon, through the locate step's own loader (the JavaScript one where it does not load).
  require('../shape/sdk-classes.cjs').classesIn('class A {}');
}

/** Install register under Bun (where this Bun offers no way in, one warning: the application runs stock). */
function installBunHooks() {
  if (!mayRun()) return;
  if (typeof globalThis.Bun?.plugin !== 'function' || typeof Module._extensions?.['.js'] !== 'function') {
    hooks.warnNoHooks('it has no Bun.plugin() and Module._extensions');
    return;
  }
  if (olderThan(process.versions.bun, REENTRANT_REQUIRE_SAFE)) loadWhatOnResolveNeeds();
  wrapExtension('.js');
  wrapExtension('.cjs');
  const { setupGraph } = require('./bun-graph.cjs');
  globalThis.Bun.plugin({ name: PACKAGE_NAME, setup: setupGraph });
}

module.exports = { installBunHooks };
