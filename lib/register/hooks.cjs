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
const { rewriteEdits } = require('../shape/rewrite.cjs');
const { defineClassReceiver, RECEIVER_GLOBAL } = require('../shape/globals.cjs');

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
// Under `run` (its marker, lib/rule/marker.cjs's MARKER, is in the environment):
// the per-child rule from the start, so a child nothing reaches gets none of
// run's variables even from a process that never loads the SDK (a wrapper).
if (framing && process.env.MCP_ORDERED_DISPATCH_RUN !== undefined) require('../patch/children.cjs').armAtStart();

// The class receiver (lib/patch/receiver.cjs), loaded with the first SDK module.
let receiver;

function patcher() {
  // In a Bun-compiled executable a chunk may run from its bytecode, its stdio
  // transports unreported (lib/register/bun-embedded.cjs): patched as a patched Protocol connects one.
  receiver ??= require('../patch/receiver.cjs').createClassReceiver({
    framing,
    offThread: stdioOptions.offThread,
    stdioAtConnect: require('../native/platform.cjs').isBunEmbeddedPath(globalThis.Bun?.main),
    // Each class patched at its first use: a process that imports the SDK and never uses it loads neither the patcher nor the addon.
    deferred: true,
    // The patcher's modules compiled from V8's code cache, where Node loads them (lib/register/code-cache.cjs).
    load: require('./code-cache.cjs').ownLoader(require),
  });
  return receiver;
}

/** Patch a Protocol class loaded from `file` (left stock with a warning when it cannot be). */
function patchLoaded(Protocol, file) {
  patcher().patchLoaded(Protocol, file);
}

/** Native framing for the stdio transport classes among `exports` (a module's exports or a { name: class } object). */
function patchStdioLoaded(exports, file) {
  patcher().patchStdioLoaded(exports, file);
}

/**
 * What a require() returned (an object): patch the SDK Protocol or stdio
 * transports among its exports, if it is an SDK module (under the SDK's
 * scope, or an npm alias install of it, by package.json name). Returns `exports`.
 */
function afterRequire(exports, request, parent, isMain) {
  // Without the addon, nothing is done.
  if (receiver?.unavailable) return exports;
  // SDK modules re-require each other: once the patcher is loaded, a
  // Protocol it has patched costs no resolution.
  let Protocol;
  let needsProtocol = false;
  let needsFraming = false;
  try {
    Protocol = sdk.protocolExportOf(exports);
    needsProtocol = sdk.isSdkProtocol(Protocol) && !receiver?.isPatched(Protocol);
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

// ---- SDK copies found by shape (bundles, minified builds): lib/shape/rewrite.cjs ----


/** An SDK class defined (`kind`, `generation`) in module `file`, handed to the class receiver. */
function classDefined(kind, generation, file, Class) {
  patcher().classDefined(kind, generation, file, Class);
}

/** Define the global the inserted blocks call (once; a block runs on the main thread, whichever thread changed its module's source). */
function defineReceiverGlobal() {
  defineClassReceiver(RECEIVER_GLOBAL, classDefined);
}

/** What register asks of lib/shape/rewrite.cjs: SDK-scope modules are patched by their exports (afterRequire, esmLoaded). */
const REWRITE_OPTIONS = { global: RECEIVER_GLOBAL, framing, skipSdkScope: true };
/** The same, where a runtime has no hook that sees a module's exports (Bun): SDK-scope modules are found by shape too. */
const REWRITE_ALL_OPTIONS = { ...REWRITE_OPTIONS, skipSdkScope: false };

/**
 * A module's source (any module, any format the hooks see: 'module',
 * 'commonjs') with a static block in each SDK class it defines, or
 * undefined (lib/shape/rewrite.cjs's rewriteSdkClasses decides). `options`:
 * REWRITE_OPTIONS or REWRITE_ALL_OPTIONS. Never throws: on any failure the
 * module loads as it was, so callers wrap it in nothing.
 */
function rewrittenSource(source, file, format, options = REWRITE_OPTIONS) {
  return rewrittenClasses(source, file, format, options)?.text;
}

/** rewrittenSource(), with the classes found: { text, at } (lib/shape/rewrite.cjs's rewriteEdits()), or undefined. */
function rewrittenClasses(source, file, format, options = REWRITE_OPTIONS) {
  const changed = rewriteEdits(source, file, format, options);
  if (changed === undefined) return undefined;
  try {
    defineReceiverGlobal();
  } catch {
    return undefined; // a global object that takes no new property: the blocks would have nothing to call
  }
  return changed;
}

/**
 * module.registerHooks()'s load hook, for every module with a source whose
 * format is 'module', 'commonjs', or not decided yet (undefined: Node
 * decides it by the syntax, and the rewrite keeps that decision). The
 * result keeps the format it was given.
 */
function loaded(url, result) {
  if (result.format === 'module' && sdk.maySdkUrl(url)) {
    const patched = esmLoaded(url, result);
    if (patched !== result) return patched;
  }
  const source = rewrittenSource(result.source, url, result.format ?? undefined);
  return source === undefined ? result : { ...result, source };
}

/**
 * Where Node has no module.registerHooks(): sources Node compiles through
 * Module.prototype._compile. Its third argument, where Node passes one, is
 * the format ('commonjs', 'module', or null: decided by the syntax).
 */
function wrapCompile() {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function _compile(content, filename, ...rest) {
    if (typeof content === 'string' && typeof filename === 'string') {
      const format = rest.length === 0 ? 'commonjs' : compileFormatOf(rest[0]);
      const changed = rewrittenSource(content, filename, format);
      if (changed !== undefined) content = changed;
    }
    return compile.call(this, content, filename, ...rest);
  };
}

/** The format Module.prototype._compile's third argument names: a format, `true` (Node 20's loadAsESM), or null and undefined (decided by the syntax). */
function compileFormatOf(given) {
  if (given === 'module' || given === true) return 'module';
  if (given === 'commonjs' || given === false) return 'commonjs';
  return undefined;
}

/** This runtime, as a warning names it. */
function runtimeName() {
  if (process.versions.bun !== undefined) return `Bun ${process.versions.bun}`;
  if (process.versions.deno !== undefined) return `Deno ${process.versions.deno}`;
  return `Node ${process.version}`;
}

/**
 * register cannot hook module loading here (`why`): say so once; what it
 * cannot reach runs stock. `esmOnly`: CommonJS modules are still reached.
 */
function warnNoHooks(why, esmOnly = false) {
  const reach = esmOnly ? 'ES module loading' : 'module loading';
  const left = esmOnly
    ? 'every MCP SDK copy loaded as an ES module stays stock (CommonJS ones are still patched)'
    : 'it patches nothing and every MCP SDK copy stays stock';
  const { warn, FIX } = require('../warnings/warnings.cjs');
  warn('NO_HOOKS', `mcp-ordered-dispatch/register cannot hook ${reach} in ${runtimeName()} (${why}), so ${left}. ${FIX.PATCH_IN_CODE}`);
}

/**
 * Where Node has no module.registerHooks(): the module.register() hooks, on
 * their loader thread, and the CommonJS compile wrapper. register() returns
 * once the hooks' initialize() has run, which answers on a port: no answer
 * (a module.register() that does nothing) is warned about.
 */
function registerEsmHooks() {
  const { pathToFileURL } = require('node:url');
  const { MessageChannel, receiveMessageOnPort, isMainThread } = require('node:worker_threads');
  defineReceiverGlobal();
  wrapCompile();
  const url = pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')).href;
  const data = { patchUrl: patchUrl(), framing, rewriteOptions: REWRITE_OPTIONS };
  // Node 20 also runs --require preloads on its loader thread, where a port
  // cannot be handed to module.register(): checked on the main thread only.
  if (!isMainThread) {
    Module.register(url, { data });
    return;
  }
  const { port1, port2 } = new MessageChannel();
  try {
    Module.register(url, { data: { ...data, port: port2 }, transferList: [port2] });
    if (receiveMessageOnPort(port1) === undefined) warnNoHooks('its module.register() installed no hooks', true);
  } finally {
    port1.close();
  }
}

module.exports = {
  afterRequire,
  patchRequired,
  loaded,
  registerEsmHooks,
  patchLoaded,
  patchStdioLoaded,
  rewrittenSource,
  rewrittenClasses,
  classDefined,
  warnNoHooks,
  REWRITE_ALL_OPTIONS,
};
