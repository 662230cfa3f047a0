'use strict';
// The progress-token lifecycle, per Client/Server instance (both SDK generations).
//
// Every retire point of the SDK — the response, cancellation, the request
// timeout, maxTotalTimeout, a failed send (2.x), terminal task cleanup (1.x)
// — ends with `_progressHandlers.delete(messageId)`, and a close with
// `_progressHandlers.clear()`; a request sent with `onprogress` starts with
// `_progressHandlers.set(messageId, ...)`. So the instance's own map is
// instrumented, and the native token table (src/core/tokens.rs) follows it
// exactly, whichever SDK path retired a token. `_onprogress` then asks the
// table first: late progress (a tombstoned token) is dropped quietly and
// handed to onLateProgress; never-issued tokens take the SDK's path and its
// "unknown token" error.

const { ProgressTokens } = require('./native.cjs');
const { kState, reportHandlerError } = require('./adapters/common.cjs');

const MapSet = Map.prototype.set;
const MapDelete = Map.prototype.delete;
const MapClear = Map.prototype.clear;

/** install() options every instance starts from; configure() overrides per instance. */
const defaults = { onLateProgress: undefined, maxTombstones: 1024 };

function setDefaults({ onLateProgress, maxTombstones } = {}) {
  if (onLateProgress !== undefined) defaults.onLateProgress = onLateProgress;
  if (maxTombstones !== undefined) defaults.maxTombstones = checkLimit(maxTombstones);
}

function checkLimit(n) {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new RangeError(`maxTombstones must be an integer from 0 to 4294967295, got ${n}`);
  }
  return n;
}

/** The per-instance state, created on first use. */
function stateOf(protocol) {
  let state = protocol[kState];
  if (state === undefined) {
    state = {
      tokens: new ProgressTokens(defaults.maxTombstones),
      onLateProgress: undefined,
      expectedLateResponses: 0,
      lateResponses: 0,
      handlerErrors: 0,
      dispatcher: undefined,
    };
    Object.defineProperty(protocol, kState, { value: state, configurable: true });
  }
  return state;
}

function instrumentProgressHandlers(protocol, state) {
  const map = protocol._progressHandlers;
  if (!(map instanceof Map) || Object.prototype.hasOwnProperty.call(map, 'set')) return;
  const tokens = state.tokens;
  const hidden = (value) => ({ value, configurable: true, writable: true, enumerable: false });
  Object.defineProperties(map, {
    set: hidden(function set(key, value) {
      tokens.issue(Number(key));
      return MapSet.call(this, key, value);
    }),
    delete: hidden(function del(key) {
      const had = MapDelete.call(this, key);
      if (had) tokens.retire(Number(key));
      return had;
    }),
    clear: hidden(function clear() {
      MapClear.call(this);
      tokens.clear();
      state.expectedLateResponses = 0;
    }),
  });
  // Requests sent before this instance was instrumented.
  for (const key of map.keys()) tokens.issue(Number(key));
}

/** The patched `_onprogress`, wrapping the SDK's own. */
function makeOnProgress(stockOnProgress) {
  return function _onprogress(notification) {
    const state = this[kState];
    if (state === undefined) return stockOnProgress.call(this, notification);
    const messageId = Number(notification.params?.progressToken);
    const verdict = state.tokens.onProgress(messageId);
    if (verdict === 'late') {
      const hook = state.onLateProgress ?? defaults.onLateProgress;
      if (hook) {
        try {
          const result = hook(notification);
          if (result && typeof result.then === 'function') {
            result.then(undefined, (error) => reportHandlerError(this, error));
          }
        } catch (error) {
          reportHandlerError(this, error);
        }
      }
      return undefined;
    }
    if (verdict === 'unknown') return stockOnProgress.call(this, notification);
    // Active. If this notification crosses maxTotalTimeout, the SDK rejects the
    // request here; its response may follow in the same read: drop it quietly.
    const responseHandlers = this._responseHandlers;
    const waiting = responseHandlers.has(messageId);
    const result = stockOnProgress.call(this, notification);
    if (waiting && !responseHandlers.has(messageId)) {
      state.tokens.expectLateResponse(messageId);
      state.expectedLateResponses++;
    }
    return result;
  };
}

/** Whether a response is the late answer to a request already rejected (see makeOnProgress). */
function isExpectedLateResponse(protocol, state, message) {
  if (state.expectedLateResponses === 0) return false;
  const id = Number(message.id);
  if (protocol._responseHandlers.has(id)) return false;
  if (!state.tokens.takeLateResponse(id)) return false;
  state.expectedLateResponses--;
  state.lateResponses++;
  return true;
}

/**
 * Per-instance settings: `onLateProgress(notification)` for progress that
 * arrives after its request finished, and `maxTombstones`.
 */
function configure(protocol, { onLateProgress, maxTombstones } = {}) {
  if (protocol === null || typeof protocol !== 'object') throw new TypeError('configure(clientOrServer, options): not a Client or Server');
  const state = stateOf(protocol);
  if (onLateProgress !== undefined) {
    if (onLateProgress !== null && typeof onLateProgress !== 'function') throw new TypeError('onLateProgress must be a function');
    state.onLateProgress = onLateProgress ?? undefined;
  }
  if (maxTombstones !== undefined) state.tokens.maxTombstones = checkLimit(maxTombstones);
}

/** Per-instance figures. */
function dispatchStats(protocol) {
  const state = protocol?.[kState];
  if (state === undefined) return undefined;
  const d = state.dispatcher?.stats();
  const t = state.tokens.stats();
  return {
    delivered: d?.dispatched ?? 0,
    responses: d?.responses ?? 0,
    requests: d?.requests ?? 0,
    notifications: d?.notifications ?? 0,
    invalid: d?.invalid ?? 0,
    late: t.late,
    unknownToken: t.unknown,
    lateResponses: state.lateResponses,
    handlerErrors: state.handlerErrors + (d?.handlerErrors ?? 0),
    tokens: { issued: t.issued, retired: t.retired, active: t.active, tombstones: t.tombstones, evicted: t.evicted, maxTombstones: state.tokens.maxTombstones },
  };
}

module.exports = {
  kState,
  stateOf,
  setDefaults,
  instrumentProgressHandlers,
  makeOnProgress,
  isExpectedLateResponse,
  configure,
  dispatchStats,
};
