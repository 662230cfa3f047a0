'use strict';
// The native addon, loaded on first use (so that requiring the package never
// throws when no binary fits this machine): from the file named by
// MCP_ORDERED_DISPATCH_NATIVE if set, else the platform package
// (`mcp-ordered-dispatch-<platform>`), else a local build in a clone — see
// lib/platform.cjs. Exports the addon's exports ({ Dispatcher, classify, ... },
// each a getter that loads it), with Dispatcher.prototype.dispatch replaced by
// a JavaScript front end (see below), plus load() and NativeAddonError.

const { loadAddon, NativeAddonError } = require('./platform.cjs');

let loaded = null;
let failure = null;

/**
 * The addon's exports, loaded once. Throws the NativeAddonError (the same one
 * each time) when no addon loads.
 */
function load() {
  if (loaded) return loaded.addon;
  if (failure) throw failure;
  try {
    const found = loadAddon();
    installGatheringDispatch(found.addon);
    loaded = found;
    for (const name of Object.keys(found.addon)) {
      if (!Object.hasOwn(module.exports, name)) module.exports[name] = found.addon[name];
    }
    return found.addon;
  } catch (error) {
    failure = error;
    throw error;
  }
}

/** Where the addon came from: { from, file }, or null before it is loaded. */
function loadedFrom() {
  return loaded ? { from: loaded.from, file: loaded.file } : null;
}

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

// Reading a property through N-API costs ~150 ns; a JIT-compiled read in
// JavaScript ~1 ns. So `dispatch` gathers here exactly the values the Rust
// classifier inspects (the `for...in` key set — what zod's .strict() checks —
// the six known fields, and the nested ones only under objects) and passes
// them to the native `_dispatchGathered`, which makes every decision and owns
// the ordering queue. `keys` = -1 makes the native side read the message
// itself (non-objects, or a getter/proxy that threw here).
//
// Hand-off from lib/stdio.cjs: its native read buffer leaves in `handoff` the
// message readMessage() just returned, which the Rust framer has already
// validated and classified (code 1 result, 2 error response, 3 request,
// 4 notification). When the SDK passes that very object on to dispatch(),
// gathering is skipped and `_dispatchClassified` takes that classification.
// Progress notifications are gathered as usual, for the native progress
// fast path.
const handoff = { message: undefined, code: 0, enabled: true, hits: 0 };

function installGatheringDispatch(native) {
  native.handoff = handoff;
  const proto = native.Dispatcher && native.Dispatcher.prototype;
  if (!proto || typeof proto._dispatchGathered !== 'function') return native;
  const gathered = proto._dispatchGathered;
  const classified = proto._dispatchClassified;
  function dispatch(message, extra) {
    if (typeof message !== 'object' || message === null) {
      return gathered.call(this, message, extra, -1);
    }
    if (message === handoff.message) {
      handoff.message = undefined;
      const code = handoff.code;
      if (handoff.enabled && code >= 1 && code <= 4 && (code !== 4 || message.method !== 'notifications/progress')) {
        handoff.hits++;
        return classified.call(this, message, extra, code);
      }
    }
    let keys = 0;
    let unknown;
    let jsonrpc, id, result, error, method, params;
    let rMeta, rToken, rTask, rTaskId, eCode, eMessage, pMeta, pToken, pTask, pTaskId;
    // The params of a progress notification, for the progress fast path.
    let prKeys = -1;
    let prUnknown, prToken, prProgress, prTotal, prMessage;
    try {
      for (const key in message) {
        switch (key) {
          case 'jsonrpc': keys |= 1; break;
          case 'id': keys |= 2; break;
          case 'result': keys |= 4; break;
          case 'error': keys |= 8; break;
          case 'method': keys |= 16; break;
          case 'params': keys |= 32; break;
          default: if (unknown === undefined) unknown = key;
        }
      }
      jsonrpc = message.jsonrpc;
      id = message.id;
      result = message.result;
      error = message.error;
      method = message.method;
      params = message.params;
      if (typeof result === 'object' && result !== null) {
        rMeta = result._meta;
        if (typeof rMeta === 'object' && rMeta !== null) {
          rToken = rMeta.progressToken;
          rTask = rMeta[RELATED_TASK];
          if (typeof rTask === 'object' && rTask !== null) rTaskId = rTask.taskId;
        }
      }
      if (typeof error === 'object' && error !== null) {
        eCode = error.code;
        eMessage = error.message;
      }
      if (typeof params === 'object' && params !== null) {
        if (method === 'notifications/progress') {
          prKeys = 0;
          for (const key in params) {
            switch (key) {
              case 'progressToken': prKeys |= 1; break;
              case 'progress': prKeys |= 2; break;
              case 'total': prKeys |= 4; break;
              case 'message': prKeys |= 8; break;
              default: if (prUnknown === undefined) prUnknown = key;
            }
          }
          prToken = params.progressToken;
          prProgress = params.progress;
          prTotal = params.total;
          prMessage = params.message;
        }
        pMeta = params._meta;
        if (typeof pMeta === 'object' && pMeta !== null) {
          pToken = pMeta.progressToken;
          pTask = pMeta[RELATED_TASK];
          if (typeof pTask === 'object' && pTask !== null) pTaskId = pTask.taskId;
        }
      }
    } catch {
      return gathered.call(this, message, extra, -1);
    }
    return gathered.call(
      this, message, extra, keys, unknown, jsonrpc, id, result, error, method, params,
      rMeta, rToken, rTask, rTaskId, eCode, eMessage, pMeta, pToken, pTask, pTaskId,
      prKeys, prUnknown, prToken, prProgress, prTotal, prMessage,
    );
  }
  Object.defineProperty(proto, 'dispatch', {
    value: dispatch,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return native;
}

// The addon's own exports, each read lazily (the names of src/*binding.rs;
// any other name is copied on once the addon has loaded).
const BINDINGS = ['Dispatcher', 'ProgressTokens', 'StdioFramer', 'classify', '_testPanic'];
const lazy = { load, loadedFrom, lazyBinding, NativeAddonError, handoff };
for (const name of BINDINGS) {
  Object.defineProperty(lazy, name, { enumerable: true, configurable: true, get: () => load()[name] });
}

/**
 * A stand-in for the addon's class or function `name` that loads the addon
 * when first used (called, constructed, or a property read), for the public
 * entry points: `import { Dispatcher } from 'mcp-ordered-dispatch'` must not
 * load it. `instanceof` and static/prototype access reach the real one.
 */
function lazyBinding(name) {
  const real = () => load()[name];
  // eslint-disable-next-line func-names
  const target = function () {};
  Object.defineProperty(target, 'name', { value: name });
  const proxy = new Proxy(target, {
    apply: (_t, thisArg, args) => Reflect.apply(real(), thisArg, args),
    construct: (_t, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    get: (_t, key) => {
      const fn = real();
      return Reflect.get(fn, key, fn);
    },
    set: (_t, key, value) => Reflect.set(real(), key, value),
    has: (_t, key) => Reflect.has(real(), key),
  });
  return proxy;
}

module.exports = lazy;
