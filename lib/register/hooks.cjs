'use strict';
// Load-time patching for `mcp-ordered-dispatch/register`: every SDK copy the
// application loads is patched as it loads, wherever it sits in node_modules
// (nested dependencies included), without loading any copy the app does not use.
// The hooks are installed by lib/register/install-hooks.mjs, which loads this file on
// first use; what they do is here:
//   - CommonJS (and require(esm)): afterRequire() looks at what a require()
//     under @modelcontextprotocol/ returned.
//   - ES modules: esmLoaded() appends a call to lib/register/loader-patch.mjs to the
//     SDK modules that define `Protocol` or a stdio transport
//     (lib/register/esm-transform.cjs), in module.registerHooks()'s load hook;
//     registerEsmHooks() registers the module.register() hooks
//     (lib/register/esm-hooks.mjs) where Node has no registerHooks (20.19-22.14).
//
// The native addon, the patcher and the SDK source checks are loaded when an
// SDK module loads. The files loaded on that path are plain ASCII: V8 first
// converts a source with any other character to two-byte text, which every
// process that loads the SDK would pay for. With no loadable addon, that
// first SDK load prints one warning (the loader's message) and every SDK
// copy stays stock; the application runs.

const Module = require('node:module');
const path = require('node:path');
const sdk = require('../adapters/modules.cjs');

/**
 * What MCP_ORDERED_DISPATCH_FRAMING asks of register, which takes no
 * options: 'off' (also 0, false, no): the SDK's own stdio ReadBuffer;
 * 'main-thread': the main-thread reader (offThread: false); anything else:
 * the default, the off-thread reader.
 */
function framingFromEnv(value = process.env.MCP_ORDERED_DISPATCH_FRAMING ?? '') {
  if (/^(0|off|false|no)$/i.test(value)) return 'off';
  return /^main-thread$/i.test(value) ? 'main-thread' : 'default';
}
const framingMode = framingFromEnv();
const framing = framingMode !== 'off';
const stdioOptions = { offThread: framingMode === 'main-thread' ? false : undefined };

const LOAD_FAILED = 'MCP_ORDERED_DISPATCH_LOAD_FAILED';

// undefined: not loaded yet; null: the addon could not be loaded (warned once).
let machinery;

/** The patcher (and through it the native addon), loaded on first use; null when the addon cannot be loaded. */
function loadMachinery() {
  if (machinery !== undefined) return machinery;
  try {
    const { patchProtocol, isPatched } = require('../patch/protocol.cjs');
    const { sourceOfFile } = require('../discover/package-of.cjs');
    const { patchStdioExports } = require('../stdio/patch.cjs');
    const { warnUnsupported } = require('../patch/patching.cjs');
    require('../native/addon.cjs').load(); // the addon loads lazily: a NativeAddonError surfaces here
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
  if (m !== null) m.patchStdioExports(exports, file, stdioOptions);
}

/**
 * What a require() returned (an object): patch the SDK Protocol or stdio
 * transports among its exports, if it is an SDK module (under the SDK's
 * scope, or an npm alias install of it, by package.json name). Returns `exports`.
 */
function afterRequire(exports, request, parent, isMain) {
  // Without the addon, nothing is done.
  if (machinery === null) return exports;
  // SDK modules re-require each other: once the patcher is loaded, a
  // Protocol it has patched costs no resolution.
  let Protocol;
  let needsProtocol = false;
  let needsFraming = false;
  try {
    Protocol = sdk.protocolExportOf(exports);
    needsProtocol = sdk.isSdkProtocol(Protocol) && !machinery?.isPatched(Protocol);
    needsFraming = framing && sdk.exportsStdio(exports);
  } catch {
    // An exports object whose getter throws is not the SDK's.
  }
  if (needsProtocol || needsFraming) {
    const file = Module._resolveFilename(request, parent, isMain);
    if (file.includes(sdk.SDK_PATH) || require('../discover/package-of.cjs').isSdkModuleFile(file)) {
      if (needsProtocol) patchLoaded(Protocol, file);
      if (needsFraming) patchStdioLoaded(sdk.stdioExportsOf(exports), file);
    }
  }
  return exports;
}

/** SDK copies required before the hooks went in: patch them too. */
function patchRequired() {
  const nodeModules = `${path.sep}node_modules${path.sep}`;
  for (const [file, cached] of Object.entries(require.cache)) {
    if (!file.includes(sdk.SDK_PATH) && !(file.includes(nodeModules) && require('../discover/package-of.cjs').isSdkModuleFile(file))) continue;
    const Protocol = sdk.protocolExportOf(cached?.exports);
    if (sdk.isSdkProtocol(Protocol)) patchLoaded(Protocol, file);
    if (framing && cached?.exports && sdk.exportsStdio(cached.exports)) patchStdioLoaded(sdk.stdioExportsOf(cached.exports), file);
  }
}

function patchUrl() {
  return require('node:url').pathToFileURL(path.join(__dirname, 'loader-patch.mjs')).href;
}

let transform;
let loaderPatchUrl;

/** module.registerHooks()'s load hook, for an ES module under node_modules: its source, patched if it is an SDK module that needs it. */
function esmLoaded(url, result) {
  transform ??= require('./esm-transform.cjs');
  loaderPatchUrl ??= patchUrl();
  const source = transform.patchedSdkSource(url, result.source, loaderPatchUrl, framing);
  return source === undefined ? result : { ...result, source };
}

/** Where Node has no module.registerHooks(): the module.register() hooks, on their loader thread. */
function registerEsmHooks() {
  const { pathToFileURL } = require('node:url');
  Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href, { data: { patchUrl: patchUrl(), framing } });
}

module.exports = { afterRequire, patchRequired, esmLoaded, registerEsmHooks, patchLoaded, patchStdioLoaded, framingFromEnv };
