'use strict';
// The class receiver: patching each SDK class as it is defined, reported
// by the static block inserted into it, for whoever
// hands it: register's load hooks (lib/register/hooks.cjs: a module's
// exports, or the static block lib/shape/blocks.cjs inserts) and the
// runtime a bundler plugin builds into an application (lib/plugin/runtime.cjs).
// The patcher, the SDK source checks and the native addon load on the first
// class reported; with no loadable addon that first class prints one
// warning (the loader's message, a NativeAddonWarning) and every class stays
// stock. A class the SDK's checks refuse is left stock with a warning; nothing
// here throws into the application's module loading or class definition.

const sdk = require('../adapters/modules.cjs');


/**
 * A class receiver. `options`: framing (whether stdio
 * transports get native framing), offThread (their reader: undefined, the
 * default off-thread one, or false), sourceOf(file) (what messages name a
 * class by; default: the nearest package.json of `file`), stdioAtConnect
 * (with framing: the stdio transport a Protocol patched here connects has
 * its SDK class patched then, before the SDK starts it, where nothing
 * reported that class as it was defined), deferred (each class patched at
 * its first use: lib/patch/deferred.cjs), load (what loads ./machinery.cjs,
 * `load('patch/machinery.cjs')`, a file of lib/: register's code cache;
 * default require()).
 */
function createClassReceiver({ framing = true, offThread, sourceOf, stdioAtConnect = false, deferred = false, load } = {}) {
  // undefined: not loaded yet; null: the addon could not be loaded (warned once).
  let machinery;

  /** The patcher (and through it the native addon), loaded on first use; null when the addon cannot be loaded. */
  function loadMachinery() {
    if (machinery !== undefined) return machinery;
    try {
      const loaded = load === undefined ? require('./machinery.cjs') : load('patch/machinery.cjs');
      loaded.loadAddon(); // the addon loads lazily: a NativeAddonError surfaces here
      // An MCP host or server from here on: what `run` put in the environment is for its servers only.
      // Without framing no transport puts it back, so it stays.
      if (framing) loaded.takeOutOnce();
      machinery = { ...loaded, sourceOf: sourceOf ?? loaded.sourceOfFile };
    } catch (error) {
      const { LOAD_FAILED } = require('../native/load-error.cjs');
      if (error?.code !== LOAD_FAILED) throw error;
      machinery = null;
      require('../warnings/warnings.cjs').warn('LOAD_FAILED', error.message);
    }
    return machinery;
  }

  /**
   * With `deferred`: `patch` is made at the first use of the class whose
   * prototype is `proto` (lib/patch/deferred.cjs), by its `entries`; run's
   * variables leave the environment now, as the class is defined, as they
   * would with the patch. Returns whether it was deferred.
   */
  function deferredTo(proto, entries, patch) {
    if (!deferred || machinery === null) return false;
    // An MCP host or server from here on (as loadMachinery() says).
    if (framing) require('./fix-env.cjs').takeOutOnce();
    return require('./deferred.cjs').deferPatch(proto, entries, patch);
  }

  // At load time a copy we cannot patch is left stock with a warning rather
  // than failing the application's import; install() and patchProtocol() throw.
  function patchLoaded(Protocol, file) {
    if (deferredTo(Protocol.prototype, sdk.PROTOCOL_ENTRIES, () => patchProtocolNow(Protocol, file))) return;
    patchProtocolNow(Protocol, file);
  }

  function patchProtocolNow(Protocol, file) {
    const m = loadMachinery();
    if (m === null || m.isPatched(Protocol)) return;
    try {
      m.patchProtocol(Protocol, { source: m.sourceOf(file) });
      if (stdioAtConnect && framing) m.beforeConnect(Protocol, (transport) => patchStdio(require('../adapters/stdio.cjs').stdioClassOf(transport), file));
    } catch (error) {
      m.warnUnsupported(error);
    }
  }

  /** Native framing for stdio transport class `Class` (from `file`), unless patched already. */
  function patchStdio(Class, file) {
    if (typeof Class !== 'function') return;
    if (deferredTo(Class.prototype, sdk.STDIO_ENTRIES, () => patchStdioNow(Class, file))) return;
    patchStdioNow(Class, file);
  }

  function patchStdioNow(Class, file) {
    const m = loadMachinery();
    if (m === null || m.isStdioPatched(Class)) return;
    try {
      m.patchStdioTransport(Class, { source: m.sourceOf(file), offThread });
    } catch (error) {
      m.warnUnsupported(error);
    }
  }

  /** Native framing for the stdio transport classes among `exports` (a module's exports or a { name: class } object). */
  function patchStdioLoaded(exports, file) {
    if (deferred && machinery !== null) {
      for (const [name, Class] of Object.entries(exports)) {
        if (typeof Class !== 'function' || Class.prototype === null || typeof Class.prototype !== 'object') continue;
        if (!deferredTo(Class.prototype, sdk.STDIO_ENTRIES, () => patchStdioExportsNow({ [name]: Class }, file))) patchStdioExportsNow({ [name]: Class }, file);
      }
      return;
    }
    patchStdioExportsNow(exports, file);
  }

  function patchStdioExportsNow(exports, file) {
    const m = loadMachinery();
    if (m !== null) m.patchStdioExports(exports, file, { offThread });
  }

  /** A class its static block reported as it was defined: patch it (the SDK's own checks decide; an unsupported one is left stock with a warning). */
  function classDefined(kind, generation, file, Class) {
    if (typeof Class !== 'function') return;
    if (typeof file === 'string' && file.startsWith('file:')) {
      try {
        file = require('node:url').fileURLToPath(file);
      } catch {
        return;
      }
    }
    if (kind === 'protocol') {
      if (sdk.isSdkProtocol(Class)) patchLoaded(Class, file);
      return;
    }
    if (kind === 'stdio' && framing) patchStdio(Class, file);
  }

  return {
    loadMachinery,
    patchLoaded,
    patchStdioLoaded,
    classDefined,
    /** Whether the addon could not be loaded (warned): nothing more is done. */
    get unavailable() {
      return machinery === null;
    },
    /** Whether `Protocol` is patched, or its patch deferred, as far as the loaded patcher knows (false before it loads); fires no deferred patch. */
    isPatched(Protocol) {
      if (require('./deferred.cjs').isDeferred(Protocol)) return true;
      return machinery ? machinery.isPatched(Protocol) : false;
    },
  };
}

module.exports = { createClassReceiver };
