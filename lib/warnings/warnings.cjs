'use strict';
// Every warning this package prints, in one room: each warning's code and
// type, the fix sentences several warnings share (written once), warn() and
// its once-per-key memory, and the text of the warning call a built output
// makes (lib/plugin/outputs.cjs). A leaf: it requires nothing but Node's
// built-ins, so any file
// may load it, and only when it has something to say (register's start path
// loads it only then). README.md names every code with
// what to do (test/package/warnings.test.mjs checks it).

/** Each warning: the code a listener tests (`warning.code`) and the type Node prints before it. */
const WARNINGS = Object.freeze({
  // No native addon loads here: the application runs stock (doctor says why).
  LOAD_FAILED: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_LOAD_FAILED', type: 'NativeAddonWarning' }),
  // A built output's runtime did not start: the SDK in it runs stock.
  BUILT_START: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_BUILT_START', type: 'NativeAddonWarning' }),
  // An SDK copy whose shape no adapter knows, or that could not be loaded to be patched.
  UNSUPPORTED: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_UNSUPPORTED', type: 'UnsupportedSdkWarning' }),
  // register loaded by a test runner in a way that cannot reach its sandbox.
  UNSUPPORTED_SETUP: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_UNSUPPORTED_SETUP', type: 'UnsupportedSetupWarning' }),
  // The runtime offers register no way to hook module loading.
  NO_HOOKS: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_NO_HOOKS', type: 'RegisterWarning' }),
  // Deno without read access to this package's own files.
  NO_READ: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_NO_READ', type: 'RegisterWarning' }),
  // A runtime line older than register needs: the process runs stock.
  OLD_RUNTIME: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_OLD_RUNTIME', type: 'RegisterWarning' }),
  // An SDK class register found but cannot reach (a module loaded through no hook).
  UNREACHED: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_UNREACHED', type: 'RegisterWarning' }),
  // install() found no SDK copy to patch.
  NO_SDK: Object.freeze({ code: 'MCP_ORDERED_DISPATCH_NO_SDK', type: 'NoSdkWarning' }),
});

/** The fix sentences several warnings (and run's and doctor's lines) end with. */
const FIX = Object.freeze({
  PATCH_IN_CODE: "Patch in code instead: call install() from 'mcp-ordered-dispatch' before the application connects, or patchProtocol() on the Protocol class it imports.",
  INSTALL_OR_PATCH: "Call install() from 'mcp-ordered-dispatch' before the application connects, or patchProtocol() on the Protocol class it exports.",
  BUILD_IT_IN: 'only building the fix in reaches it: the bundler plugin (mcp-ordered-dispatch/esbuild, /rollup, /vite, /webpack or /bun before it is packed; docs/build-it-in.md)',
  BUN_BUILD_IT_IN: 'Build the fix in: add mcp-ordered-dispatch/bun (the bundler plugin) to the Bun.build() that compiles it, or build it with --splitting and the SDK imported lazily.',
  DENO_PERMISSIONS: 'Run deno with --allow-read and --allow-ffi (the native addon), or -A.',
});

const said = new Set();
// The codes printed, in order: a host run's report lists them (lib/progress/report.cjs).
const printed = [];

/**
 * Print warning `which` (a WARNINGS key) with `text`; with `onceKey`, only
 * the first time that key is given in this process. Returns whether it printed.
 */
function warn(which, text, onceKey) {
  const { code, type } = WARNINGS[which];
  if (onceKey !== undefined) {
    const key = `${code}\0${onceKey}`;
    if (said.has(key)) return false;
    said.add(key);
  }
  printed.push(code);
  process.emitWarning(text, { type, code });
  return true;
}

/**
 * Write warning `which` as exactly one line on stderr, once per process and
 * code, where a process must otherwise stay byte for byte as stock (a
 * runtime line register cannot run on): process.emitWarning() would add a
 * second line. Honours --no-warnings and NODE_NO_WARNINGS=1 as Node does.
 */
function sayOnce(which, text) {
  const { code } = WARNINGS[which];
  if (said.has(code)) return;
  said.add(code);
  printed.push(code);
  if (process.env.NODE_NO_WARNINGS === '1' || process.execArgv.includes('--no-warnings')) return;
  try {
    require('node:fs').writeSync(2, `${text} (${code})\n`);
  } catch {
    // No stderr to write to: nothing to say it on.
  }
}

/**
 * The JavaScript of a statement that prints warning `which` with the text
 * `messageSource` (an expression) where a built output runs: it never throws,
 * also where no `process` is.
 */
function warnSource(which, messageSource) {
  const { code, type } = WARNINGS[which];
  return `globalThis.process?.emitWarning?.(${messageSource},{type:${JSON.stringify(type)},code:${JSON.stringify(code)}})`;
}

/** The codes of the warnings this process printed (or would have, under --no-warnings), in order. */
function printedCodes() {
  return [...printed];
}

// debugLog()'s answer: the log, or null when off. Node reads NODE_DEBUG once, at start, so it is
// asked once (a fixed host asks at every start of a child: 2 µs each).
let debugLogged;

/**
 * NODE_DEBUG=mcp-ordered-dispatch's log (util.debuglog()), or undefined when
 * it is off. Bun's debuglog() logs as Node's does but has no `enabled`, so
 * NODE_DEBUG is read where it is missing.
 */
function debugLog() {
  if (debugLogged === undefined) {
    const log = require('node:util').debuglog('mcp-ordered-dispatch');
    const on = log.enabled ?? String(process.env.NODE_DEBUG ?? '').split(',').some((name) => /^\s*(mcp-ordered-dispatch|\*)\s*$/i.test(name));
    debugLogged = on ? log : null;
  }
  return debugLogged ?? undefined;
}

module.exports = { WARNINGS, FIX, warn, sayOnce, warnSource, printedCodes, debugLog };
