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
// the ordering queue. Its arguments are positional (one N-API call reads them
// all), laid out by the binding: `boundary.SLOT_*` (src/boundary.rs), like
// every bit and code here. `keys` < 0 makes the native side read the message
// itself (non-objects, or a getter/proxy that threw here).
//
// Hand-off from lib/stdio.cjs: the transport's native read buffer keeps the
// message readMessage() just returned, which the Rust framer has already
// validated and classified, with its code (`_handoffMessage`,
// `_handoffCode`). When the transport passes that very object on,
// `_dispatchFrom(readBuffer, message, extra)` skips gathering and
// `_dispatchClassified` takes that classification. Progress notifications
// are gathered as usual, for the native progress fast path.

function installGatheringDispatch(native) {
  const proto = native.Dispatcher && native.Dispatcher.prototype;
  if (!proto || typeof proto._dispatchGathered !== 'function' || !native.boundary) return native;
  const {
    KEY_JSONRPC, KEY_ID, KEY_RESULT, KEY_ERROR, KEY_METHOD, KEY_PARAMS,
    PROGRESS_KEY_TOKEN, PROGRESS_KEY_PROGRESS, PROGRESS_KEY_TOTAL, PROGRESS_KEY_MESSAGE,
    SLOT_MESSAGE, SLOT_EXTRA, SLOT_KEYS, SLOT_UNKNOWN, SLOT_JSONRPC, SLOT_ID, SLOT_RESULT, SLOT_ERROR, SLOT_METHOD, SLOT_PARAMS,
    SLOT_R_META, SLOT_R_TOKEN, SLOT_R_TASK, SLOT_R_TASK_ID, SLOT_E_CODE, SLOT_E_MESSAGE,
    SLOT_P_META, SLOT_P_TOKEN, SLOT_P_TASK, SLOT_P_TASK_ID,
    SLOT_PR_KEYS, SLOT_PR_UNKNOWN, SLOT_PR_TOKEN, SLOT_PR_PROGRESS, SLOT_PR_TOTAL, SLOT_PR_MESSAGE, SLOT_COUNT,
    CODE_RESULT, CODE_NOTIFICATION,
  } = native.boundary;
  const gathered = proto._dispatchGathered;
  const classified = proto._dispatchClassified;
  // The arguments, written in full before each call and emptied after it (so
  // that they keep no message alive). The call reads them all on entry, so a
  // re-entrant dispatch from a callback may reuse the array.
  const args = new Array(SLOT_COUNT).fill(undefined);
  function call(self) {
    try {
      return Reflect.apply(gathered, self, args);
    } finally {
      args.fill(undefined);
    }
  }
  function dispatch(message, extra) {
    args[SLOT_MESSAGE] = message;
    args[SLOT_EXTRA] = extra;
    args[SLOT_KEYS] = -1;
    if (typeof message !== 'object' || message === null) return call(this);
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
          case 'jsonrpc': keys |= KEY_JSONRPC; break;
          case 'id': keys |= KEY_ID; break;
          case 'result': keys |= KEY_RESULT; break;
          case 'error': keys |= KEY_ERROR; break;
          case 'method': keys |= KEY_METHOD; break;
          case 'params': keys |= KEY_PARAMS; break;
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
              case 'progressToken': prKeys |= PROGRESS_KEY_TOKEN; break;
              case 'progress': prKeys |= PROGRESS_KEY_PROGRESS; break;
              case 'total': prKeys |= PROGRESS_KEY_TOTAL; break;
              case 'message': prKeys |= PROGRESS_KEY_MESSAGE; break;
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
      // A getter or proxy trap threw (which may have re-entered): not gathered.
      args.fill(undefined);
      args[SLOT_MESSAGE] = message;
      args[SLOT_EXTRA] = extra;
      args[SLOT_KEYS] = -1;
      return call(this);
    }
    // Getters run above may have re-entered dispatch (and emptied the array).
    args[SLOT_MESSAGE] = message;
    args[SLOT_EXTRA] = extra;
    args[SLOT_KEYS] = keys;
    args[SLOT_UNKNOWN] = unknown;
    args[SLOT_JSONRPC] = jsonrpc;
    args[SLOT_ID] = id;
    args[SLOT_RESULT] = result;
    args[SLOT_ERROR] = error;
    args[SLOT_METHOD] = method;
    args[SLOT_PARAMS] = params;
    args[SLOT_R_META] = rMeta;
    args[SLOT_R_TOKEN] = rToken;
    args[SLOT_R_TASK] = rTask;
    args[SLOT_R_TASK_ID] = rTaskId;
    args[SLOT_E_CODE] = eCode;
    args[SLOT_E_MESSAGE] = eMessage;
    args[SLOT_P_META] = pMeta;
    args[SLOT_P_TOKEN] = pToken;
    args[SLOT_P_TASK] = pTask;
    args[SLOT_P_TASK_ID] = pTaskId;
    args[SLOT_PR_KEYS] = prKeys;
    args[SLOT_PR_UNKNOWN] = prUnknown;
    args[SLOT_PR_TOKEN] = prToken;
    args[SLOT_PR_PROGRESS] = prProgress;
    args[SLOT_PR_TOTAL] = prTotal;
    args[SLOT_PR_MESSAGE] = prMessage;
    return call(this);
  }
  // `dispatch`, for a message the transport read from `source` (its read
  // buffer, or anything else): takes the framer's classification when
  // `source` is a native read buffer that handed this very message over.
  function dispatchFrom(source, message, extra) {
    if (typeof source === 'object' && source !== null && message === source._handoffMessage && message !== undefined) {
      source._handoffMessage = undefined;
      const code = source._handoffCode;
      if (code >= CODE_RESULT && code <= CODE_NOTIFICATION && (code !== CODE_NOTIFICATION || message.method !== 'notifications/progress')) {
        source._handoffHits++;
        return classified.call(this, message, extra, code);
      }
    }
    return dispatch.call(this, message, extra);
  }
  for (const [name, value] of [['dispatch', dispatch], ['_dispatchFrom', dispatchFrom]]) {
    Object.defineProperty(proto, name, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return native;
}

// The addon's own exports, each read lazily (the names of src/*binding.rs;
// any other name is copied on once the addon has loaded).
const BINDINGS = ['Dispatcher', 'ProgressTokens', 'StdioFramer', 'classify', 'boundary', '_testPanic'];
const lazy = { load, loadedFrom, lazyBinding, NativeAddonError };
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
