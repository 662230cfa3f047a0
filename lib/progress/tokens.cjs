'use strict';
// The progress-token lifecycle, per Client/Server instance (both SDK generations).
//
// Every retire point of the SDK - the response, cancellation, the request
// timeout, maxTotalTimeout, a failed send (2.x), terminal task cleanup (1.x)
// - ends with `_progressHandlers.delete(messageId)`, and a close with
// `_progressHandlers.clear()`; a request sent with `onprogress` starts with
// `_progressHandlers.set(messageId, ...)`. So the instance's own map is
// instrumented, and the native token table (crates/core/src/tokens.rs) follows it
// exactly, whichever SDK path retired a token. `_onprogress` then asks the
// table first: late progress (a tombstoned token) is dropped quietly and
// handed to onLateProgress; never-issued tokens take the SDK's path and its
// "unknown token" error.
//
// The report (docs/report.md): when MCP_ORDERED_DISPATCH_REPORT names a file,
// read once as this file loads, every instance's table also counts the
// progress stock drops (crates/core/src/tokens.rs), and ./report.cjs writes
// the process's record at exit (started when the first SDK class or instance
// is patched). Without it, ./report.cjs never loads and no function below
// does any of that work: the counting variants are chosen once, where each
// is made.

const native = require('../native/addon.cjs');
// Where the SDK keeps its handler maps, its own progress handler and its
// progress logic, the adapter says.
const {
  notificationHandlerError, progressHandlersOf, responseHandlersOf, notificationHandlersOf,
  PROGRESS_METHOD, isSdkProgressHandler, parsedProgress, deliverProgress,
} = require('../adapters/common.cjs');

// Per-instance state of a patched Client/Server, under a registry symbol so
// that two copies of this package loaded in one process share it.
const kState = Symbol.for('mcp-ordered-dispatch.state');

const MapGet = Map.prototype.get;
const MapSet = Map.prototype.set;
const MapDelete = Map.prototype.delete;
const MapClear = Map.prototype.clear;

/** The variable that switches the report on, naming the file it goes to. */
const REPORT_ENV = 'MCP_ORDERED_DISPATCH_REPORT';

function reportFileOf(env) {
  try {
    const file = env[REPORT_ENV];
    return typeof file === 'string' && file !== '' ? file : undefined;
  } catch {
    // Deno without env access: no report.
    return undefined;
  }
}

/** Where this process's report goes, resolved once; undefined: the report is off. */
const REPORT_FILE = reportFileOf(process.env);
const reporting = REPORT_FILE !== undefined;
let recorder;

/** The process's report recorder (./report.cjs), started the first time an SDK class or instance is patched; only when reporting. */
function reportRecorder() {
  recorder ??= require('./report.cjs').start(REPORT_FILE);
  return recorder;
}

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
      tokens: new native.ProgressTokens(defaults.maxTombstones),
      onLateProgress: undefined,
      expectedLateResponses: 0,
      // Ids whose late response is expected until the read ends (expectUntilTheReadEnds).
      expecting: [],
      lateResponses: 0,
      handlerErrors: 0,
      dispatcher: undefined,
      // orderedOnMessage's nesting, and what the dispatch threw for it to rethrow (lib/patch/protocol.cjs).
      depth: 0,
      escapes: undefined,
      // The progress fast path: the SDK's own registered progress handler, and
      // the notification the dispatcher found to be plain progress (in Rust).
      sdkProgressHandler: undefined,
      plainProgress: undefined,
      fastProgress: 0,
      // The report's (only when it is on): whether a read is under way, the
      // id of the response being handled, the messages dispatched.
      reading: false,
      answering: undefined,
      counts: undefined,
    };
    if (reporting) {
      state.tokens._countSameRead();
      state.counts = reportRecorder().track(state.tokens);
    }
    Object.defineProperty(protocol, kState, { value: state, configurable: true });
  }
  return state;
}

/**
 * A notification handler (or a hook of ours called as one) failed: counted,
 * and reported to the protocol's onerror in the SDK's wording.
 */
function reportHandlerError(protocol, error) {
  const state = protocol[kState];
  if (state !== undefined) state.handlerErrors++;
  protocol._onerror(notificationHandlerError(error));
}

function instrumentProgressHandlers(protocol, state) {
  const map = progressHandlersOf(protocol);
  if (!(map instanceof Map) || Object.prototype.hasOwnProperty.call(map, 'set')) return;
  const tokens = state.tokens;
  const hidden = (value) => ({ value, configurable: true, writable: true, enumerable: false });
  Object.defineProperties(map, {
    set: hidden(function set(key, value) {
      tokens.issue(Number(key));
      return MapSet.call(this, key, value);
    }),
    delete: hidden(!reporting
      ? function del(key) {
        const had = MapDelete.call(this, key);
        if (had) tokens.retire(Number(key));
        return had;
      }
      // The report: a retire by the response being handled (answeredBy()) counts.
      : function del(key) {
        const had = MapDelete.call(this, key);
        if (had) {
          const k = Number(key);
          if (k === state.answering) tokens._retireAnswered(k);
          else tokens.retire(k);
        }
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

/**
 * Only a response in the same read as the progress that crossed
 * maxTotalTimeout is dropped: a read is one synchronous run of onmessage
 * calls (a transport hands a chunk's messages over in one; the event loop
 * runs between chunks, the microtask queue at least). A later one reaches
 * onerror as the SDK reports it ("unknown message ID"), as with stock.
 */
function expectUntilTheReadEnds(state, messageId) {
  state.expecting.push(messageId);
  if (state.expecting.length > 1) return;
  queueMicrotask(() => {
    const ids = state.expecting;
    state.expecting = [];
    for (const id of ids) {
      if (state.tokens.takeLateResponse(id)) state.expectedLateResponses--;
    }
  });
}

/** The patched `_onprogress`, wrapping the SDK's own (with the report on, counting what it delivers). */
function makeOnProgress(stockOnProgress) {
  const onProgress = orderedOnProgress(stockOnProgress);
  if (!reporting) return onProgress;
  return function _onprogress(notification) {
    // The table counts it only while its token is active (its handler runs).
    this[kState]?.tokens._progressDelivered(Number(notification.params?.progressToken));
    return onProgress.call(this, notification);
  };
}

function orderedOnProgress(stockOnProgress) {
  return function _onprogress(notification) {
    const state = this[kState];
    if (state === undefined) return stockOnProgress.call(this, notification);
    const messageId = Number(notification.params?.progressToken);
    // Active tokens are exactly the SDK's own progress handlers (the table
    // follows that map), so the common case needs no call into Rust. Only a
    // token without a handler asks the table: late (quiet) or never issued.
    if (!progressHandlersOf(this).has(messageId)) {
      if (state.tokens.onProgress(messageId) !== 'late') return stockOnProgress.call(this, notification);
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
    // Active. If this notification crosses maxTotalTimeout, the SDK rejects the
    // request here; its response may follow in the same read: drop it quietly.
    const responseHandlers = responseHandlersOf(this);
    const waiting = responseHandlers.has(messageId);
    const result = stockOnProgress.call(this, notification);
    if (waiting && !responseHandlers.has(messageId)) {
      state.tokens.expectLateResponse(messageId);
      state.expectedLateResponses++;
      expectUntilTheReadEnds(state, messageId);
    }
    return result;
  };
}

/**
 * The patched `setNotificationHandler`. The Protocol constructor registers
 * the SDK's own progress handler first thing; remember the wrapper it stored,
 * so that `_onnotification` knows when the handler in place is still the
 * SDK's (a user-replaced one never takes the fast path).
 */
function makeSetNotificationHandler(stockSetNotificationHandler) {
  return function setNotificationHandler(...args) {
    const handlers = notificationHandlersOf(this);
    const first = handlers instanceof Map && !handlers.has(PROGRESS_METHOD);
    const result = stockSetNotificationHandler.apply(this, args);
    if (first && args.length === 2 && isSdkProgressHandler(args[1])) {
      const stored = MapGet.call(handlers, PROGRESS_METHOD);
      if (stored !== undefined) stateOf(this).sdkProgressHandler = stored;
    }
    return result;
  };
}

/**
 * If `notification` may take the progress fast path, take it and return true:
 * Rust found it to be a plain progress notification (so the SDK's zod parse
 * would only drop `jsonrpc`), and `handler` is still the SDK's own. Builds
 * exactly what that parse returns (same keys, same order) and calls the
 * progress logic, as the SDK's handler does. A throw is passed to
 * `report(protocol, error)`, as the SDK's deferral catches it.
 */
function tryPlainProgress(protocol, handler, notification, report = reportHandlerError) {
  const state = protocol[kState];
  // The report counts progress the host's own handler takes (Gemini CLI's), which no SDK token retires.
  if (reporting && state?.counts !== undefined && handler !== state.sdkProgressHandler && notification?.method === PROGRESS_METHOD) state.counts.ownProgress++;
  if (state === undefined || state.plainProgress !== notification || handler !== state.sdkProgressHandler) return false;
  state.fastProgress++;
  try {
    deliverProgress(protocol, parsedProgress(notification));
  } catch (error) {
    report(protocol, error);
  }
  return true;
}

/** Whether a response is the late answer to a request already rejected (see makeOnProgress). */
function isExpectedLateResponse(protocol, state, message) {
  if (state.expectedLateResponses === 0) return false;
  const id = Number(message.id);
  if (responseHandlersOf(protocol).has(id)) return false;
  if (!state.tokens.takeLateResponse(id)) return false;
  state.expectedLateResponses--;
  state.lateResponses++;
  return true;
}

/**
 * The report's side of the routing (lib/patch/protocol.cjs asks, once per
 * connection, and gets `onmessage` back as it is when the report is off): a
 * read is one synchronous run of onmessage calls, the run in which the stock
 * SDK's deferred notification handlers have not run yet (they run at the
 * next microtask checkpoint, which ends the read here too). Each read is
 * begun in the table; each message counted.
 */
function countReads(state, onmessage) {
  if (!reporting) return onmessage;
  const endRead = () => {
    state.reading = false;
  };
  return function orderedOnMessage(message, extra) {
    state.counts.messages++;
    if (!state.reading) {
      state.reading = true;
      state.tokens._beginRead();
      queueMicrotask(endRead);
      reportRecorder().touched();
    }
    return onmessage.call(this, message, extra);
  };
}

/**
 * The report's side of onResponse (lib/patch/protocol.cjs; as it is when the
 * report is off): while `respond` handles a response, a retire of its id is
 * the response's (instrumentProgressHandlers()).
 */
function answeredBy(state, respond) {
  if (!reporting) return respond;
  return (message) => {
    const outer = state.answering;
    state.answering = Number(message?.id);
    try {
      respond(message);
    } finally {
      state.answering = outer;
    }
  };
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
    /** Progress notifications validated in Rust that skipped the SDK's zod parse. */
    fastProgress: state.fastProgress,
    tokens: { issued: t.issued, retired: t.retired, active: t.active, tombstones: t.tombstones, evicted: t.evicted, maxTombstones: state.tokens.maxTombstones },
  };
}

module.exports = {
  REPORT_ENV,
  reporting,
  reportRecorder,
  countReads,
  answeredBy,
  kState,
  stateOf,
  reportHandlerError,
  setDefaults,
  instrumentProgressHandlers,
  makeOnProgress,
  makeSetNotificationHandler,
  tryPlainProgress,
  isExpectedLateResponse,
  configure,
  dispatchStats,
};
