'use strict';
// Never silent in a Bun-compiled executable: when its embedded graph holds
// SDK classes that run unpatched and register has patched none of them,
// exactly one line on stderr names the executable (process.execPath, and
// the name and version of the package.json beside it or one folder up,
// where there is one) and what to do. An unpatched SDK class cannot be
// hooked, so its first MCP connection cannot be seen; what can be seen comes
// before it, and each is a check:
//   - at start: the executable's entry module (Bun loads it through no hook)
//     holds an SDK class (lib/register/bun-embedded.cjs's checkEntry): said
//     once the entry is loaded (the next turn, or at exit), unless Bun
//     served it, or another chunk, patched through register after all;
//   - as a chunk is imported: one that holds an SDK class is left alone (a
//     `@bun-cjs` chunk whose wrapper is not the one register knows);
//   - at exit: an embedded module Bun loaded (require.cache lists ES modules
//     and CommonJS alike) through no onResolve of register's holds one.
// None is said once a redirected chunk was served patched, or any SDK class
// was patched.

const fs = require('node:fs');
const path = require('node:path');
const { isBunEmbeddedPath } = require('../native/platform.cjs');
const { state, embeddedFormatOf, definesSdkClass } = require('./bun-shared.cjs');
const { readUnlessIndexed, noteRead } = require('./bun-index.cjs');

let said = false;
let watching = false;
// What sayUnreachedLater() was told, until it is said or found reached.
let pending;

/** `name version` of the package.json beside `exe` or one folder up (npm's `bin/` layout), or undefined. */
function executableVersion(exe = process.execPath) {
  for (const dir of [path.dirname(exe), path.dirname(path.dirname(exe))]) {
    try {
      const { name, version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (typeof version === 'string') return typeof name === 'string' ? `${name} ${version}` : version;
    } catch {
      // None there.
    }
  }
  return undefined;
}

/** Whether register reached an SDK copy here: a chunk served patched, or any SDK class patched (an entry Bun served through register). */
function reachedAny() {
  return state.served.size > 0 || require('../patch/records.cjs').anyPatched();
}

/**
 * The one line: the SDK in this executable (`where`: the module holding it,
 * and why register cannot reach it) stays stock. Not said when register
 * patched an SDK chunk already, nor twice.
 */
function sayUnreached(where) {
  if (said || reachedAny()) return;
  said = true;
  require('../patch/records.cjs').reportUnpatched();
  const { sayOnce, FIX } = require('../warnings/warnings.cjs');
  const version = executableVersion();
  sayOnce(
    'UNREACHED',
    `mcp-ordered-dispatch/register cannot reach the MCP SDK copy in the Bun-compiled executable ${process.execPath}${version === undefined ? '' : ` (${version})`}: ${where}, so it stays stock. ${FIX.BUN_BUILD_IT_IN}`,
  );
}

/** sayUnreached(`where`) once the entry module is loaded: the next turn, or at exit if that comes first. */
function sayUnreachedLater(where) {
  pending = where;
  const later = () => {
    if (pending === undefined) return;
    const what = pending;
    pending = undefined;
    sayUnreached(what);
  };
  setImmediate(later).unref?.();
  watchExit(later);
}

/** At exit: an embedded module loaded through no hook of register's that holds an SDK class. */
function checkLoaded() {
  if (said || reachedAny()) return;
  for (const file of Object.keys(require.cache)) {
    if (!isBunEmbeddedPath(file) || state.embedded.has(file) || file === globalThis.Bun?.main) continue;
    const { known, source } = readUnlessIndexed(file);
    const format = source === undefined ? undefined : embeddedFormatOf(source) ?? 'commonjs';
    const holds = format !== undefined && definesSdkClass(source, file, format);
    if (known !== false) noteRead(file, source, holds ? format : undefined, known);
    if (holds) {
      sayUnreached(`the embedded module ${file} (Bun loads it through no hook)`);
      return;
    }
  }
}

const atExit = [checkLoaded];

/** Look at exit (once per process), running `first` before the check of what was loaded. */
function watchExit(first) {
  if (first !== undefined) atExit.unshift(first);
  if (watching) return;
  watching = true;
  process.once('exit', () => {
    try {
      for (const check of atExit) check();
    } catch {
      // Nothing at exit may change how the process ends.
    }
  });
}

module.exports = { sayUnreached, sayUnreachedLater, watchExit };
