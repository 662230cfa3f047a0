'use strict';
// Whether register can run in this runtime line at all, checked before
// anything of it loads: a line without what it needs runs exactly stock,
// with one line on stderr. `run` puts register into every Node and Bun
// process a host starts, and users' MCP servers still run lines older than
// this package supports (Node 16, 18, early 20; Bun 1.1, 1.2): there,
// nothing may break. Named bail-outs:
//   - NO_BUILTIN_MODULE: process.getBuiltinModule(), which register's start
//     takes its built-ins with;
//   - NO_REQUIRE_ESM: require() of an ES module, which
//     the `--require` entry loads the hooks' installer with: known only by
//     trying (a test runner's sandbox reports process.features of its own),
//     so lib/register/sandboxed.cjs reports it through refuse();
//   - OLD_BUN: a Bun line before MIN_BUN. By version, since it is a Bun bug
//     no feature check can see without breaking the process: Bun 1.2.x fails
//     to load CommonJS once Module._extensions is wrapped at all (1.1 and
//     1.2.0 also lack getBuiltinModule). lib/register/bun.cjs has the lines
//     above it that need care.
// Deno has its own way in (lib/register/deno.cjs). Written for every Node
// line from 16 on: no syntax or API that an older line lacks.

/** The oldest Bun line register's Bun path runs on. */
const MIN_BUN = '1.3.0';

/** Whether version `version` ('1.3.14', '1.4.0-canary.1') is older than `than` ('1.4.3'). */
function olderThan(version, than) {
  const a = String(version).split(/[.-]/).map(Number);
  const b = than.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] || 0) !== b[i]) return (a[i] || 0) < b[i];
  return false;
}

/** Why register cannot run here, or undefined when it can. */
function whyNot() {
  if (process.versions.bun !== undefined) return olderThan(process.versions.bun, MIN_BUN) ? 'OLD_BUN' : undefined;
  if (process.versions.deno !== undefined) return undefined;
  if (typeof process.getBuiltinModule !== 'function') return 'NO_BUILTIN_MODULE';
  return undefined;
}

/** What each bail-out needs, and the Node lines that have it (whyNot() checks for the function itself). */
const NEEDS = {
  NO_BUILTIN_MODULE: 'process.getBuiltinModule() (Node 20.16+ or 22.3+)',
  NO_REQUIRE_ESM: 'require() of ES modules (Node 20.19+, 22.12+ or 24+, without --no-experimental-require-module)',
};

/** The one line for bail-out `why`. */
function lineFor(why) {
  if (why === 'OLD_BUN') {
    return `mcp-ordered-dispatch/register needs Bun ${MIN_BUN} or newer (Bun ${process.versions.bun} breaks CommonJS loading once Module._extensions is wrapped), so this process runs stock. To fix it here, upgrade Bun (bun upgrade).`;
  }
  return `mcp-ordered-dispatch/register needs ${NEEDS[why]}; Node ${process.version} lacks it, so this process runs stock. To fix it here, run this program on a newer Node.`;
}

/** Say, in one line (once per process), that register cannot run here for `why`: the process runs stock. */
function refuse(why) {
  require('../warnings/warnings.cjs').sayOnce('OLD_RUNTIME', lineFor(why));
}

/**
 * Whether this is the thread module.register()'s hooks run on. Node runs
 * --require preloads there too (register.cjs, under `run`), but nothing of
 * the application runs there, and the hooks the main thread's register
 * registered reach every module it loads: register does nothing there,
 * silently (there, it would only register its hooks a second time). Every
 * worker thread has process.chdir disabled; of them only that one has no
 * parentPort (node:worker_threads is loaded in worker threads only: it is
 * no small load).
 */
function inHooksThread() {
  return process.chdir !== undefined && process.chdir.disabled === true && require('node:worker_threads').parentPort === null;
}

/** The variable set while register's own module.register() starts the hooks thread, which takes a copy of the environment. */
const OWN_LOADER_THREAD = 'MCP_ORDERED_DISPATCH_LOADER_THREAD';

/**
 * Run `start` (register's module.register(), lib/register/install-hooks.mjs)
 * with OWN_LOADER_THREAD set, so that the hooks thread it starts is known
 * there as register's own; the main thread's environment is left as it was.
 */
function asOwnLoaderThread(start) {
  process.env[OWN_LOADER_THREAD] = '1';
  try {
    return start();
  } finally {
    delete process.env[OWN_LOADER_THREAD];
  }
}

/**
 * In the hooks thread (Node's loader thread) that register's own
 * module.register() started (Node 20.19-22.14), Node runs every --require preload again, which a start
 * without register never does. Under `run` register's is the first of them
 * (lib/rule/marker.cjs): the ones after it, the user's, are not run there, only
 * on the main thread, as often as without register. Node requires each
 * preload with the one parent module 'internal/preload'.
 */
function skipLaterPreloads() {
  delete process.env[OWN_LOADER_THREAD];
  const Module = require('node:module');
  const load = Module._load;
  Module._load = function _load(request, parent) {
    if (parent?.id === 'internal/preload') return undefined;
    return load.apply(this, arguments);
  };
}

/**
 * Whether register may go on; when not, one line says why and the process
 * runs stock (in the hooks thread, silently, there only keeping the preloads
 * after it from running again).
 */
function mayRun() {
  if (inHooksThread()) {
    if (process.env[OWN_LOADER_THREAD] !== undefined) skipLaterPreloads();
    return false;
  }
  const why = whyNot();
  if (why !== undefined) refuse(why);
  return why === undefined;
}

module.exports = { mayRun, refuse, olderThan, asOwnLoaderThread };
