'use strict';
// Loads the native addon: prebuilds/<platform>-<arch>[-gnu|-musl]/mcp_ordered_dispatch.node
// (relative to the package root), or the file named by MCP_ORDERED_DISPATCH_NATIVE.
// Exports the addon's exports: { Dispatcher, classify }, with
// Dispatcher.prototype.dispatch replaced by a JavaScript front end (see below).

const path = require('node:path');

function isMusl() {
  const report = process.report;
  if (!report || typeof report.getReport !== 'function') return false;
  const excludeNetwork = report.excludeNetwork;
  try {
    report.excludeNetwork = true;
    const header = report.getReport().header || {};
    return !header.glibcVersionRuntime;
  } catch {
    return false;
  } finally {
    report.excludeNetwork = excludeNetwork;
  }
}

function prebuildKey() {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') key += isMusl() ? '-musl' : '-gnu';
  return key;
}

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
function installGatheringDispatch(native) {
  const proto = native.Dispatcher && native.Dispatcher.prototype;
  if (!proto || typeof proto._dispatchGathered !== 'function') return native;
  const gathered = proto._dispatchGathered;
  function dispatch(message, extra) {
    if (typeof message !== 'object' || message === null) {
      return gathered.call(this, message, extra, -1);
    }
    let keys = 0;
    let unknown;
    let jsonrpc, id, result, error, method, params;
    let rMeta, rToken, rTask, rTaskId, eCode, eMessage, pMeta, pToken, pTask, pTaskId;
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
