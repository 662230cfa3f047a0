'use strict';
// Load-time patching for `mcp-ordered-dispatch/register`: every SDK copy the
// application loads is patched as it loads, wherever it sits in node_modules
// (nested dependencies included), without loading any copy the app does not use.
//   - CommonJS (and require(esm)): a wrapper around Module._load looks at what
//     a require() under @modelcontextprotocol/ returned.
//   - ES modules: a load hook appends a call to lib/loader-patch.mjs to the
//     SDK modules that define `Protocol` or a stdio transport
//     (lib/esm-transform.cjs). The hook is module.registerHooks()'s wherever
//     Node has it (22.15+, 23.5+: synchronous, in-thread, no loader thread),
//     and module.register()'s (lib/esm-hooks.mjs) only where it does not
//     (20.19–22.14), so Node 26 never sees the deprecated module.register().
//
// Pay for what is used: installing the hooks loads nothing but Node
// built-ins and small dependency-free files (this one, and what the SDK
// adapter knows about SDK modules: lib/adapters/modules.cjs). The native addon, the
// patcher and the SDK source checks are loaded when an SDK module loads.
// With no loadable addon, that first SDK load prints one warning (the
// loader's message) and every SDK copy stays stock; the application runs.

const Module = require('node:module');
const path = require('node:path');
const sdk = require('./adapters/modules.cjs');

// MCP_ORDERED_DISPATCH_FRAMING=off keeps the SDK's own stdio ReadBuffer.
const framing = !/^(0|off|false|no)$/i.test(process.env.MCP_ORDERED_DISPATCH_FRAMING ?? '');

// A module is looked at only when it sits under the SDK's npm scope (sdk.SDK_PATH), or is an alias install of it.
const LOAD_FAILED = 'MCP_ORDERED_DISPATCH_LOAD_FAILED';
let cjsHookInstalled = false;
let esmHookInstalled = false;

// undefined: not loaded yet; null: the addon could not be loaded (warned once).
let machinery;

/** The patcher (and through it the native addon), loaded on first use; null when the addon cannot be loaded. */
function loadMachinery() {
  if (machinery !== undefined) return machinery;
  try {
    const { patchProtocol, isPatched } = require('./patch.cjs');
    const { sourceOfFile } = require('./discover.cjs');
    const { patchStdioExports } = require('./stdio.cjs');
    const { warnUnsupported } = require('./patching.cjs');
    require('./native.cjs').load(); // the addon loads lazily: a NativeAddonError surfaces here
    machinery = { patchProtocol, isPatched, sourceOfFile, patchStdioExports, warnUnsupported };
  } catch (error) {
    if (error?.code !== LOAD_FAILED) throw error;
    machinery = null;
    process.emitWarning(error.message, { type: 'NativeAddonWarning', code: LOAD_FAILED });
  }
  return machinery;
}

// At load time a copy we cannot patch is left stock with a warning rather
// than failing the application's import; install() and patchProtocol() throw.
function patchLoaded(Protocol, file) {
  const m = loadMachinery();
  if (m === null || m.isPatched(Protocol)) return;
  try {
    m.patchProtocol(Protocol, { source: m.sourceOfFile(file) });
  } catch (error) {
    m.warnUnsupported(error);
  }
}

/** Native framing for the stdio transport classes among `exports` (a module's exports or a { name: class } object). */
function patchStdioLoaded(exports, file) {
  const m = loadMachinery();
  if (m !== null) m.patchStdioExports(exports, file);
}

function installCjsHook() {
  if (cjsHookInstalled) return;
  cjsHookInstalled = true;
  const originalLoad = Module._load;
  Module._load = function _load(request, parent, isMain) {
    const exports = originalLoad.apply(this, arguments);
    if (exports !== null && typeof exports === 'object' && machinery !== null) {
      // SDK modules re-require each other: once the patcher is loaded, a
      // Protocol it has patched costs no resolution; without the addon, nothing is done.
      let needsProtocol = false;
      let needsFraming = false;
      try {
        needsProtocol = sdk.isSdkProtocol(exports.Protocol) && !machinery?.isPatched(exports.Protocol);
        needsFraming = framing && sdk.exportsStdio(exports);
      } catch {
        // An exports object whose getter throws is not the SDK's.
      }
      if (needsProtocol || needsFraming) {
        const file = Module._resolveFilename(request, parent, isMain);
        // Under the SDK's scope, or an npm alias install of it (by package.json name).
        if (file.includes(sdk.SDK_PATH) || require('./discover.cjs').isSdkModuleFile(file)) {
          if (needsProtocol) patchLoaded(exports.Protocol, file);
          if (needsFraming) patchStdioLoaded(exports, file);
        }
      }
    }
    return exports;
  };
  // Copies already loaded before the hook: patch them too.
  for (const [file, cached] of Object.entries(require.cache)) {
    if (!file.includes(sdk.SDK_PATH) && !(file.includes(`${path.sep}node_modules${path.sep}`) && require('./discover.cjs').isSdkModuleFile(file))) continue;
    if (sdk.isSdkProtocol(cached?.exports?.Protocol)) patchLoaded(cached.exports.Protocol, file);
    if (framing && cached?.exports && sdk.exportsStdio(cached.exports)) patchStdioLoaded(cached.exports, file);
  }
}

function patchUrl() {
  return require('node:url').pathToFileURL(path.join(__dirname, 'loader-patch.mjs')).href;
}

function installEsmHook() {
  if (esmHookInstalled) return;
  esmHookInstalled = true;
  if (typeof Module.registerHooks === 'function') {
    // The source rewrite loads with the first SDK module, not at start.
    let transform;
    let url;
    Module.registerHooks({
      load(u, context, nextLoad) {
        const result = nextLoad(u, context);
        if (result.format !== 'module' || result.source == null || !u.includes('/node_modules/')) return result;
        transform ??= require('./esm-transform.cjs');
        url ??= patchUrl();
        const source = transform.patchedSdkSource(u, result.source, url, framing);
        return source === undefined ? result : { ...result, source };
      },
    });
  } else if (typeof Module.register === 'function') {
    const { pathToFileURL } = require('node:url');
    Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href, { data: { patchUrl: patchUrl(), framing } });
  }
}

function installHooks() {
  installCjsHook();
  installEsmHook();
}

module.exports = { installHooks, patchLoaded, patchStdioLoaded };
