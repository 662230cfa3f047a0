'use strict';
// Loads the native addon: prebuilds/<platform>-<arch>[-gnu|-musl]/mcp_ordered_dispatch.node
// (relative to the package root), or the file named by MCP_ORDERED_DISPATCH_NATIVE.
// Exports the addon's exports: { Dispatcher, classify }, with
// Dispatcher.prototype.dispatch replaced by a JavaScript front end (see below).

const path = require('node:path');
const { prebuildKey } = require('./platform.cjs');

function load() {
  const override = process.env.MCP_ORDERED_DISPATCH_NATIVE;
  const file = override
    ? path.resolve(override)
    : path.join(__dirname, '..', 'prebuilds', prebuildKey(), 'mcp_ordered_dispatch.node');
  try {
    return require(file);
  } catch (cause) {
    const why = cause && cause.message ? cause.message.split('\n')[0] : String(cause);
    const err = new Error(
      `mcp-ordered-dispatch: failed to load the native addon from ${file}` +
        (override ? ' (set by MCP_ORDERED_DISPATCH_NATIVE)' : '') +
        `: ${why}\n` +
        'Run `npm run build` in the mcp-ordered-dispatch package (needs Rust >= 1.88) to build it.',
      { cause },
    );
    err.code = 'MCP_ORDERED_DISPATCH_LOAD_FAILED';
    throw err;
  }
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

module.exports = installGatheringDispatch(load());
