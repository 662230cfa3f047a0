'use strict';
// What both SDK generations do with notifications/progress, as far as the
// progress fast path (lib/progress/tokens.cjs) needs to know: which handler is the
// SDK's own (every Protocol constructor registers one that calls
// `this._onprogress(notification)`), and what the SDK's zod parse makes of a
// plain progress notification before that handler sees it.

const { sourceOf } = require('./common.cjs');

const PROGRESS_METHOD = 'notifications/progress';

// The handler every SDK Protocol constructor registers for notifications/progress.
const SDK_PROGRESS_HANDLER = /^\(?\s*notification\s*\)?\s*=>\s*\{\s*this\._onprogress\(notification\);?\s*\}$/;

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

module.exports = { PROGRESS_METHOD, isSdkProgressHandler, parsedProgress };
