'use strict';
// What `mcp-ordered-dispatch/register` does, depending on who loaded it.
//
// Node's own loader (`--import`/`--require`, Vitest, plain imports): install
// the load-time hooks (lib/hooks.cjs), which patch each SDK copy as it loads.
//
// Jest's runtime (`setupFiles`): Jest compiles and caches the modules tests
// load itself, so Node's loader hooks never see them (and Jest 30 makes
// module.register() throw). Instead every CommonJS SDK build resolvable from
// the working directory and the test file is loaded now, through the
// sandbox's own `require` — the module registry the tests then share — and
// patched. ES module builds are not reachable from there.
//
// Vitest runs a setup file that is not under node_modules through its own
// module runner too (a sandboxed `module`), but the SDK, under node_modules,
// is still loaded by Node: there the hooks are what works.

const Module = require('node:module');
const { patchLoaded, installHooks } = require('./hooks.cjs');

/** True when `mod` (a CommonJS `module` object) was not created by Node's own loader. */
function isSandboxed(mod, Module) {
  return typeof Module !== 'function' || !(mod instanceof Module);
}

/**
 * Patch every CommonJS SDK build found, loading it with `load` (the
 * sandbox's `require`). Returns the files patched.
 */
function patchCjsCopiesNow(load = require) {
  // SDK discovery only here (Jest), not when register installs the hooks.
  const { findSdkCopies, defaultBases } = require('./discover.cjs');
  const patched = [];
  for (const copy of findSdkCopies(defaultBases())) {
    if (copy.build !== 'cjs') continue;
    let Protocol;
    try {
      Protocol = load(copy.file)?.Protocol;
    } catch (error) {
      process.emitWarning(
        `mcp-ordered-dispatch: could not load ${copy.name}@${copy.version} (CJS build) to patch it: ${error?.message ?? error}`,
        { type: 'UnsupportedSdkWarning', code: 'MCP_ORDERED_DISPATCH_UNSUPPORTED' },
      );
      continue;
    }
    if (typeof Protocol !== 'function') continue;
    patchLoaded(Protocol, copy.file);
    patched.push(copy.file);
  }
  return patched;
}

/**
 * @param {object} mod the `module` object of register.cjs
 * @param {boolean} underJest whether Jest injected its `jest` object there
 */
function register(mod, underJest) {
  if (!isSandboxed(mod, Module)) return installHooks();
  if (!underJest) {
    try {
      return installHooks();
    } catch {
      // A sandbox that refuses loader hooks (Jest without injected globals).
    }
  }
  patchCjsCopiesNow();
}

module.exports = { isSandboxed, patchCjsCopiesNow, register };
