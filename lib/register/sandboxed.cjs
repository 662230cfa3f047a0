'use strict';
// What `mcp-ordered-dispatch/register` does, depending on who loaded it.
//
// Node's own loader (`--import`/`--require`, Vitest, plain imports): install
// the load-time hooks (lib/register/hooks.cjs), which patch each SDK copy as it loads.
//
// Jest's runtime (`setupFiles`): Jest compiles and caches the modules tests
// load itself, so Node's loader hooks never see them (and Jest 30 makes
// module.register() throw). Instead every CommonJS SDK build resolvable from
// the working directory and the test file is loaded now, through the
// sandbox's own `require` - the module registry the tests then share - and
// patched. In Jest's ESM mode (node --experimental-vm-modules) the ES module
// builds are patched too: register's module.exports becomes an async
// function, which Jest awaits for a setup file, that loads each through the
// sandbox's own `import()` (Jest's ES module registry).
//
// Vitest runs a setup file that is not under node_modules through its own
// module runner too (a sandboxed `module`), but the SDK, under node_modules,
// is still loaded by Node: there the hooks are what works - except in the
// vmThreads/vmForks pools, which load node_modules in a vm context of their
// own (see registerInVitestVm).

// Loaded by register.cjs at start: nothing but node:module here; each case
// loads what it needs (under Node's own loader, lib/register/install-hooks.mjs alone).
const Module = require('node:module');

/** Every SDK build found; discovery is loaded here, not when register installs the hooks. */
function sdkCopies() {
  const { findSdkCopies, defaultBases } = require('../discover/discover.cjs');
  return findSdkCopies(defaultBases());
}

/** The Protocol class among a module's exports (the SDK adapter knows where), loaded here on first use. */
function protocolExportOf(exports) {
  return require('../adapters/modules.cjs').protocolExportOf(exports);
}

/** True when `mod` (a CommonJS `module` object) was not created by Node's own loader. */
function isSandboxed(mod, Module) {
  return typeof Module !== 'function' || !(mod instanceof Module);
}

/**
 * Patch every CommonJS SDK build found, loading it with `load` (the
 * sandbox's `require`). Returns the files patched.
 */
function patchCjsCopiesNow(load = require) {
  const patched = [];
  for (const copy of sdkCopies()) {
    if (copy.build !== 'cjs') continue;
    let Protocol;
    try {
      Protocol = protocolExportOf(load(copy.file));
    } catch (error) {
      warnNotLoaded(copy, error);
      continue;
    }
    patchCopy(copy, Protocol, patched);
  }
  return patched;
}

function warnNotLoaded(copy, error) {
  require('../warnings/warnings.cjs').warn(
    'UNSUPPORTED',
    `mcp-ordered-dispatch: could not load ${require('../patch/records.cjs').describeSource(copy)} to patch it: ${error?.message ?? error}`,
  );
}

function patchCopy(copy, Protocol, patched) {
  if (typeof Protocol !== 'function') return;
  require('./hooks.cjs').patchLoaded(Protocol, copy.file);
  patched.push(copy.file);
}

/**
 * Patch every SDK build of `builds` found, loading it with `load` (the
 * sandbox's `import()`). Returns the files patched.
 */
async function patchCopiesByImport(load, builds = ['esm']) {
  const patched = [];
  for (const copy of sdkCopies()) {
    if (!builds.includes(copy.build)) continue;
    let Protocol;
    try {
      const ns = await load(copy.file);
      Protocol = protocolExportOf(ns) ?? protocolExportOf(ns?.default);
    } catch (error) {
      warnNotLoaded(copy, error);
      continue;
    }
    patchCopy(copy, Protocol, patched);
  }
  return patched;
}

/** Jest runs ES modules (its ESM mode) only where Node has vm.SourceTextModule (--experimental-vm-modules). */
function jestRunsEsm() {
  return typeof require('node:vm').SourceTextModule === 'function';
}

const VM_POOLS = ['vmThreads', 'vmForks'];

// The global a Vitest worker that runs tests sets: lib/register/install-hooks.mjs's
// VITEST_WORKER, written again here since this file cannot load that one in
// Vitest's vm pools (their require() loads no ES module). Were the two to
// differ, test/register/runners.test.mjs's vm pool runs would fail.
const VITEST_WORKER = '__vitest_worker__';

/** The Vitest pool this worker runs tests in, if it is one of the vm pools. */
function vitestVmPool() {
  const worker = globalThis[VITEST_WORKER];
  const pool = worker?.config?.pool ?? worker?.ctx?.pool;
  return VM_POOLS.includes(pool) ? pool : undefined;
}

const SUPPORTED_SETUPS =
  'Supported setups: node --import/--require mcp-ordered-dispatch/register; Vitest (any pool, vmThreads and vmForks ' +
  "included) with test.setupFiles: ['mcp-ordered-dispatch/register']; Jest, CommonJS or ESM mode " +
  "(--experimental-vm-modules), with setupFiles: ['mcp-ordered-dispatch/register'].";

/**
 * @param {object} mod the `module` object of register.cjs
 * @param {boolean} underJest whether Jest injected its `jest` object there
 */
function register(mod, underJest) {
  if (!underJest) {
    // Before anything else: in a vm pool even Node's own-looking `module` is Vitest's.
    const pool = vitestVmPool();
    if (pool !== undefined) return registerInVitestVm(mod, pool);
    try {
      return require('./install-hooks.mjs').installHooks();
    } catch (error) {
      // A Node line whose require() loads no ES module (20.16-20.18): stock, one line.
      if (error?.code === 'ERR_REQUIRE_ESM' && !isSandboxed(mod, Module)) return require('./gate.cjs').refuse('NO_REQUIRE_ESM');
      // A sandbox that refuses loader hooks (Jest without injected globals).
      if (!isSandboxed(mod, Module)) throw error;
    }
  }
  patchCjsCopiesNow();
  // A setup file that exports a function: Jest awaits it before the tests.
  if (underJest && jestRunsEsm()) {
    exportPatcher(mod, () => patchCopiesByImport((file) => import(file), ['esm']), 'Jest ESM mode (--experimental-vm-modules)', "the SDK's ES module builds");
  }
}

/**
 * Make register's module.exports the function that patches the SDK through
 * the sandbox's import(): the runner awaits it when register is the setup
 * file itself. If nobody has called it by the next turn of the event loop,
 * register was loaded some other way and those builds stay stock: say so.
 */
function exportPatcher(mod, patch, where, what) {
  let called = false;
  mod.exports = (...args) => {
    called = true;
    return patch(...args);
  };
  const timer = setTimeout(() => {
    if (called) return;
    require('../warnings/warnings.cjs').warn(
      'UNSUPPORTED_SETUP',
      `mcp-ordered-dispatch: register was loaded under ${where} other than as the setup file itself, so ${what} ` +
        `stay stock and progress can be lost. ${SUPPORTED_SETUPS}`,
    );
  }, 0);
  timer.unref?.();
}

/**
 * Vitest's vm pools load what tests import (the SDK included) in a vm
 * context of their own, past Node's loader hooks. register.mjs, as a setup
 * file, awaits the function exported here with its own `import()` (which
 * loads into that context): every SDK build is loaded through it and
 * patched. Loaded any other way (nobody calls that function before the
 * tests' modules load), nothing could be patched: exportPatcher says so.
 */
function registerInVitestVm(mod, pool) {
  exportPatcher(mod, (load) => patchCopiesByImport(load, ['esm', 'cjs']), `Vitest's ${pool} pool`, "the SDK copies that pool loads (past Node's loader hooks)");
}

module.exports = { register };
