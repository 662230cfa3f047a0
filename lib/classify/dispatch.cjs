'use strict';
// The classify stage's JavaScript side: the front end of the native
// Dispatcher's `dispatch`, installed on Dispatcher.prototype by this file
// when its Dispatcher is first asked for (dispatcherClass(), or the public
// `Dispatcher` stand-in), once: the addon loader only loads. It gathers the
// fields the Rust classifier reads in one call, and takes the stdio reader's
// hand-off (lib/stdio/handoff.cjs) instead where the framer already
// classified the message.

const native = require('../native/addon.cjs');
const { lazyBinding } = require('../native/lazy.cjs');
const { takeHandoff } = require('../stdio/handoff.cjs');

const { RELATED_TASK, PROGRESS_METHOD } = require('../adapters/common.cjs');

// Reading a property through N-API costs far more than a JIT-compiled read
// in JavaScript (docs/performance.md). So `dispatch` gathers here exactly the
// values the Rust classifier inspects (the `for...in` key set - what zod's .strict() checks -
// the six known fields, and the nested ones only under objects) and passes
// them to the native `_dispatchGathered`, which makes every decision and owns
// the ordering queue. `keys` < 0 makes the native side read the message
// itself (non-objects, or a getter/proxy that threw here). Every bit and code
// here is the binding's (`boundary`, crates/core/src/boundary.rs).
//
// The arguments are positional, in the binding's order (`boundary.SLOT_*`):
// one N-API call reads them all (filling an array by SLOT_* and calling
// through Reflect.apply measured slower: docs/performance.md), so
// the call below lists them in order, and GATHERED_ORDER, checked against
// the binding's SLOT_* when the addon loads, says which order that is.
//
// The stdio hand-off (lib/stdio/handoff.cjs): `_dispatchFrom(readBuffer,
// message, extra)` takes the framer's classification when the transport's
// native read buffer offered this very message, and `_dispatchClassified`
// dispatches it without gathering.
const GATHERED_ORDER = [
  'MESSAGE', 'EXTRA', 'KEYS', 'UNKNOWN', 'JSONRPC', 'ID', 'RESULT', 'ERROR', 'METHOD', 'PARAMS',
  'R_META', 'R_TOKEN', 'R_TASK', 'R_TASK_ID', 'E_CODE', 'E_MESSAGE', 'P_META', 'P_TOKEN', 'P_TASK', 'P_TASK_ID',
  'PR_KEYS', 'PR_UNKNOWN', 'PR_TOKEN', 'PR_PROGRESS', 'PR_TOTAL', 'PR_MESSAGE',
];

function installGatheringDispatch(native) {
  const proto = native.Dispatcher && native.Dispatcher.prototype;
  const boundary = native.boundary;
  if (!proto || typeof proto._dispatchGathered !== 'function' || !boundary) return native;
  if (boundary.SLOT_COUNT !== GATHERED_ORDER.length || GATHERED_ORDER.some((name, i) => boundary[`SLOT_${name}`] !== i)) {
    throw new Error('mcp-ordered-dispatch: the native addon lays out _dispatchGathered\'s arguments (boundary.SLOT_*) otherwise than lib/classify/dispatch.cjs passes them; rebuild the addon from this checkout (`npm run build`).');
  }
  const {
    KEY_JSONRPC, KEY_ID, KEY_RESULT, KEY_ERROR, KEY_METHOD, KEY_PARAMS,
    PROGRESS_KEY_TOKEN, PROGRESS_KEY_PROGRESS, PROGRESS_KEY_TOTAL, PROGRESS_KEY_MESSAGE,
  } = boundary;
  const gathered = proto._dispatchGathered;
  const classified = proto._dispatchClassified;
  // In GATHERED_ORDER.
  function dispatch(message, extra) {
    if (typeof message !== 'object' || message === null) {
      return gathered.call(this, message, extra, -1);
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
        if (method === PROGRESS_METHOD) {
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
      return gathered.call(this, message, extra, -1);
    }
    return gathered.call(
      this, message, extra, keys, unknown, jsonrpc, id, result, error, method, params,
      rMeta, rToken, rTask, rTaskId, eCode, eMessage, pMeta, pToken, pTask, pTaskId,
      prKeys, prUnknown, prToken, prProgress, prTotal, prMessage,
    );
  }
  // `dispatch`, for a message the transport read from `source` (its read
  // buffer, or anything else).
  function dispatchFrom(source, message, extra) {
    const code = takeHandoff(source, message);
    if (code !== 0) return classified.call(this, message, extra, code);
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

let Dispatcher;

/**
 * The addon's Dispatcher class with this front end on its prototype: loads
 * the addon (a NativeAddonError when none loads) and installs, the first time.
 */
function dispatcherClass() {
  if (Dispatcher === undefined) {
    const addon = native.load();
    installGatheringDispatch(addon);
    Dispatcher = addon.Dispatcher;
  }
  return Dispatcher;
}

module.exports = {
  dispatcherClass,
  // The public `Dispatcher`: requiring the package must not load the addon.
  Dispatcher: lazyBinding('Dispatcher', dispatcherClass),
};
