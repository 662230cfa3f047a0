'use strict';
// Never silent in a Bun-compiled executable: when its embedded graph holds
// SDK classes that run unpatched and register has patched none of them,
// exactly one line on stderr names the executable (process.execPath, and
// the name and version of the package.json beside it or one folder up,
// where there is one) and what to do. An unpatched SDK class cannot be
// hooked, so its first MCP connection cannot be seen; what can be seen comes
// before it, and each is a check:
//   - at start: the executable's entry module (Bun loads it through no hook)
//     holds an SDK class (lib/register/bun-embedded.cjs's checkEntry);
//   - as a chunk is imported: one that holds an SDK class is left alone (a
//     `@bun-cjs` chunk whose wrapper is not the one register knows);
//   - at exit: an embedded module Bun loaded (require.cache lists ES modules
//     and CommonJS alike) through no onResolve of register's holds one.
// None is said once a redirected chunk was served patched.

const fs = require('node:fs');
const path = require('node:path');
const { isBunEmbeddedPath } = require('../native/platform.cjs');
const { state, embeddedFormatOf, definesSdkClass } = require('./bun-shared.cjs');
const { readUnlessRecorded, noteRead } = require('./bun-record.cjs');

let said = false;
let watching = false;

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

/**
 * The one line: the SDK in this executable (`where`: the module holding it,
 * and why register cannot reach it) stays stock. Not said when register
 * patched an SDK chunk already, nor twice.
 */
function sayUnreached(where) {
  if (said || state.served.size > 0) return;
  said = true;
  const { sayOnce, FIX } = require('../warnings/warnings.cjs');
  const version = executableVersion();
  sayOnce(
    'UNREACHED',
    `mcp-ordered-dispatch/register cannot reach the MCP SDK copy in the Bun-compiled executable ${process.execPath}${version === undefined ? '' : ` (${version})`}: ${where}, so it stays stock. ${FIX.BUN_BUILD_IT_IN}`,
  );
}

/** At exit: an embedded module loaded through no hook of register's that holds an SDK class. */
function checkLoaded() {
  if (said || state.served.size > 0) return;
  for (const file of Object.keys(require.cache)) {
    if (!isBunEmbeddedPath(file) || state.embedded.has(file) || file === globalThis.Bun?.main) continue;
    const { known, source } = readUnlessRecorded(file);
    const format = source === undefined ? undefined : embeddedFormatOf(source) ?? 'commonjs';
    const holds = format !== undefined && definesSdkClass(source, file, format);
    if (known !== false) noteRead(file, source, holds ? format : undefined, known);
    if (holds) {
      sayUnreached(`the embedded module ${file} (Bun loads it through no hook)`);
      return;
    }
  }
}

/** Look at exit (once per process). */
function watchExit() {
  if (watching) return;
  watching = true;
  process.once('exit', () => {
    try {
      checkLoaded();
    } catch {
      // Nothing at exit may change how the process ends.
    }
  });
}

module.exports = { sayUnreached, watchExit, executableVersion };
