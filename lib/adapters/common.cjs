'use strict';
// What both SDK generations share, as the stages need to know it: the
// SDK's wording of the errors it reports, where a Protocol instance keeps
// its handler maps, the methods an inbound message reaches, the `_meta` key
// of a related task, and the SDK's own notifications/progress handler (every
// Protocol constructor registers one that calls `this._onprogress(notification)`)
// with what the SDK's zod parse makes of a plain progress notification before
// that handler sees it (the progress fast path, lib/progress/tokens.cjs).
// A leaf: requires nothing.

const fnToString = Function.prototype.toString;

function sourceOf(fn) {
  try {
    return fnToString.call(fn);
  } catch {
    return '';
  }
}

// ---- reading the SDK's method sources, bundled and minified too ----
// Minifiers rename parameters, locals and module-private helpers, never
// property names or string literals; so no check here names a local
// (`notification`) or a helper (`liftWireOnlyMaterial`).

/** Whether an _onnotification source looks its handler up as `this._notificationHandlers.get(<name>.method)`, whatever the local is called. */
function looksUpHandlerByMethod(source) {
  return /this\._notificationHandlers\.get\(\s*[\w$]+\.method\s*\)/.test(source);
}

/**
 * Whether an _onnotification source lifts the wire-only `_meta` material
 * first (2.x: `liftWireOnlyMaterial(raw, "notification")`): a call whose
 * last argument is the string literal "notification", whatever the helper
 * is called.
 */
function liftsWireOnlyMaterial(source) {
  return /[\w$]\s*\(\s*[\w$]+\s*,\s*(["'`])notification\1\s*\)/.test(source);
}

/** The SDK's own wording for a notification handler that failed (1.x and 2.x alike). */
function notificationHandlerError(error) {
  return new Error(`Uncaught error in notification handler: ${error}`);
}

function safeStringify(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** The SDK's own wording for an inbound message that is no request, notification or response. */
function unknownMessageError(message) {
  return new Error(`Unknown message type: ${safeStringify(message)}`);
}

// ---- where a Protocol instance keeps its handlers (both generations) ----

/** The Map of request id -> progress callback (`_progressHandlers`). */
function progressHandlersOf(protocol) {
  return protocol._progressHandlers;
}

/** The Map of request id -> response callback (`_responseHandlers`). */
function responseHandlersOf(protocol) {
  return protocol._responseHandlers;
}

/** The Map of notification method -> handler (`_notificationHandlers`). */
function notificationHandlersOf(protocol) {
  return protocol._notificationHandlers;
}

/** The handler of a notification whose method has none of its own (`fallbackNotificationHandler`). */
const FALLBACK_NOTIFICATION_HANDLER = 'fallbackNotificationHandler';

// ---- the Protocol methods an inbound message reaches (both generations) ----

/** The method the SDK calls with each inbound message, by the message's kind. */
const INBOUND_METHODS = Object.freeze({ response: '_onresponse', request: '_onrequest', notification: '_onnotification' });

/** The method that hands a progress notification to its request's onprogress. */
const ON_PROGRESS = '_onprogress';

/** Hand a parsed progress notification to the SDK's progress logic, as the SDK's own handler does. */
function deliverProgress(protocol, notification) {
  return protocol._onprogress(notification);
}

/** The `_meta` key that links a message to a task. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

// ---- notifications/progress ----

const PROGRESS_METHOD = 'notifications/progress';

// The handler every SDK Protocol constructor registers for notifications/progress:
// `(notification) => { this._onprogress(notification); }`, its parameter
// under any name (a minifier's `e=>{this._onprogress(e)}`), with or without
// the braces (`e=>this._onprogress(e)`).
const SDK_PROGRESS_HANDLER = /^\(?\s*([\w$]+)\s*\)?\s*=>\s*(?:\{\s*this\._onprogress\(\s*\1\s*\);?\s*\}|this\._onprogress\(\s*\1\s*\))$/;

/** Whether `handler` (as passed to setNotificationHandler) is the SDK's own progress handler. */
function isSdkProgressHandler(handler) {
  return typeof handler === 'function' && SDK_PROGRESS_HANDLER.test(sourceOf(handler));
}

/**
 * What the SDK's ProgressNotificationSchema parse returns for a plain
 * progress notification (one Rust found to have exactly the schema's keys):
 * the same keys in the same order, `jsonrpc` dropped.
 */
function parsedProgress(notification) {
  const p = notification.params;
  const params = { progress: p.progress };
  if (p.total !== undefined) params.total = p.total;
  if (p.message !== undefined) params.message = p.message;
  params.progressToken = p.progressToken;
  return { method: notification.method, params };
}

module.exports = {
  sourceOf,
  looksUpHandlerByMethod,
  liftsWireOnlyMaterial,
  notificationHandlerError,
  unknownMessageError,
  progressHandlersOf,
  responseHandlersOf,
  notificationHandlersOf,
  FALLBACK_NOTIFICATION_HANDLER,
  INBOUND_METHODS,
  ON_PROGRESS,
  deliverProgress,
  RELATED_TASK,
  PROGRESS_METHOD,
  isSdkProgressHandler,
  parsedProgress,
};
