'use strict';
// Pieces both SDK adapters share.

const fnToString = Function.prototype.toString;

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
    protocol._onerror(notificationHandlerError(error));
    return;
  }
  if (isThenable(result)) {
    result.then(undefined, (error) => protocol._onerror(notificationHandlerError(error)));
  }
}

module.exports = { sourceOf, notificationHandlerError, invokeNotificationHandler };
