'use strict';
// Pieces both SDK adapters share.

const fnToString = Function.prototype.toString;
// Per-instance state of a patched Client/Server (see lib/progress/tokens.cjs).
const kState = Symbol.for('mcp-ordered-dispatch.state');

function sourceOf(fn) {
  try {
    return fnToString.call(fn);
  } catch {
    return '';
  }
}

/** The SDK's own wording for a notification handler that failed (1.x and 2.x alike). */
function notificationHandlerError(error) {
  return new Error(`Uncaught error in notification handler: ${error}`);
}

function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';
}

/**
 * Run a notification handler now, in wire order. A synchronous throw or a
 * rejected promise reaches the protocol's onerror exactly as the SDK words it.
 * `withCodec` keeps the SDK's call shape: 2.x calls registered handlers as
 * `handler(notification, codec)` and the fallback as `fallback(notification)`.
 */
function invokeNotificationHandler(protocol, handler, notification, codec, withCodec = false) {
  let result;
  try {
    result = withCodec ? handler(notification, codec) : handler(notification);
  } catch (error) {
    reportHandlerError(protocol, error);
    return;
  }
  if (isThenable(result)) {
    result.then(undefined, (error) => reportHandlerError(protocol, error));
  }
}

function reportHandlerError(protocol, error) {
  const state = protocol[kState];
  if (state !== undefined) state.handlerErrors++;
  protocol._onerror(notificationHandlerError(error));
}

module.exports = { kState, sourceOf, notificationHandlerError, invokeNotificationHandler, reportHandlerError };
