'use strict';
// Patching the MCP SDK's stdio transports for native framing (beside
// Protocol's, lib/patch/protocol.cjs); install()'s plan for the copies on
// disk is lib/patch/transport-plan.cjs (a bundle built with the plugin
// carries this file, never the search on disk).
//
// patchStdioTransport(Transport) swaps a transport instance's `_readBuffer`,
// as its start() begins, for a NativeReadBuffer (lib/stdio/read-buffer.cjs: the
// Rust framer behind the SDK ReadBuffer's interface; what it keeps exactly
// as the SDK does, and options.strict, are described there) or, by default,
// a ThreadReadBuffer (lib/stdio/thread-read-buffer.cjs: the same message
// reader over a worker thread). Everything else - the
// transport's processReadBuffer loop, onmessage/onerror, close - stays the
// SDK's. Both readers load when the first transport starts: an application
// that loads the SDK and never starts a stdio transport does not pay for
// them.

const { withFixForServer } = require('./fix-env.cjs');
const native = require('../native/addon.cjs');
const { UnsupportedSdkError, describeSource, patchRecordOf, replaceMethods, warnUnsupported } = require('./records.cjs');
const { sourceOfFile } = require('../discover/package-of.cjs');
// What this file knows of the SDK's transports and ReadBuffers, the adapters say.
const sdkModules = require('../adapters/modules.cjs');
const adapter = require('../adapters/stdio.cjs');
const { transportOptions } = require('../stdio/options.cjs');

const kPatch = Symbol.for('mcp-ordered-dispatch.stdio-patch');

/** lib/stdio/read-buffer.cjs, loaded when first needed (a transport starts, or a caller asks for NativeReadBuffer). */
function readBuffer() {
  return require('../stdio/read-buffer.cjs');
}

/** Whether a transport's read buffer is one of ours (NativeReadBuffer or ThreadReadBuffer). */
function isNativeReadBuffer(buffer) {
  return require('../stdio/handoff.cjs').offersHandoff(buffer);
}

function describe(Transport, source) {
  return describeSource(source, typeof Transport === 'function' && Transport.name ? Transport.name : 'this class');
}

/** With NODE_DEBUG=mcp-ordered-dispatch: one line per transport whose read buffer the host owns. */
function debugNote(transport) {
  require('../warnings/warnings.cjs').debugLog()?.('%s keeps its own _readBuffer (%s): native framing steps aside for it', transport.constructor?.name, transport._readBuffer?.constructor?.name);
}

const differs = new WeakMap();

/** Whether a stock ReadBuffer class judges any canary otherwise than the framer (cached per class). */
function schemasDiffer(Reference, sdk) {
  const key = `sdk${sdk}`;
  const known = differs.get(Reference);
  if (known && key in known) return known[key];
  const verdict = (rb, line) => {
    try {
      rb.append(Buffer.from(`${line}\n`, 'utf8'));
      const m = rb.readMessage();
      return m === null ? 'skip' : 'message';
    } catch {
      return 'error';
    }
  };
  const { NativeReadBuffer } = readBuffer();
  let result = false;
  try {
    for (const line of adapter.CANARIES) {
      if (verdict(new Reference({ maxBufferSize: Infinity }), line) !== verdict(new NativeReadBuffer({ sdk }), line)) {
        result = true;
        break;
      }
    }
  } catch {
    result = true;
  }
  differs.set(Reference, { ...known, [key]: result });
  return result;
}

/**
 * Swap a transport instance's stock ReadBuffer for a native one (before any
 * data arrives). A buffer the host owns (lib/adapters/stdio.cjs
 * hostOwnsReadBuffer) stays: that transport reads as stock does, and the
 * Protocol's dispatch keeps wire order all the same.
 */
function useNativeReadBuffer(transport, record) {
  const stock = adapter.readBufferOf(transport);
  if (stock === undefined || isNativeReadBuffer(stock)) return;
  // record.Transport: the patched class (tests and benches swap a buffer directly, with no class).
  if (record.Transport !== undefined && adapter.hostOwnsReadBuffer(transport, record.Transport)) {
    debugNote(transport);
    return;
  }
  const { NativeReadBuffer } = readBuffer();
  const { maxBufferSize, held, generation, Reference } = adapter.stockReadBuffer(stock);
  const sdk = record.sdk ?? generation;
  // offThread (lib/stdio/thread-read-buffer.cjs): framed on a worker thread, delivered to this transport.
  const ReadBuffer = record.offThread ? require('../stdio/thread-read-buffer.cjs').ThreadReadBuffer : NativeReadBuffer;
  const buffer = new ReadBuffer({
    ...(record.offThread ? { ...record.offThread, transport } : {}),
    // The stock buffer's own limit, whatever it is (none: none here either).
    maxBufferSize,
    sdk,
    blankLines: record.blankLines,
    strict: record.strict,
    reference: Reference,
    // Asked at the first error response the transport receives: the canaries run the SDK's schemas (zod) for the first time.
    verify: () => schemasDiffer(Reference, sdk),
  });
  // Bytes the stock buffer already holds (nothing, when start() has not run).
  if (held !== undefined) buffer.append(held);
  adapter.setReadBuffer(transport, buffer);
}

/**
 * Make every instance of an SDK stdio transport class frame natively, from
 * its start() on. Idempotent. Returns a function that restores the class
 * (instances already started keep their native buffer).
 * options: { sdk?: 1 | 2 (default: from the instance's stock ReadBuffer),
 *            strict?: boolean (see the top of this file),
 *            blankLines?: 'report' | 'skip', source?: { name, version, build } for messages,
 *            offThread?: boolean | { maxBatchBytes?, maxBatchMessages?, inlineMax?, highWater? } }
 * (checked by lib/stdio/options.cjs transportOptions()).
 * Throws UnsupportedSdkError, patching nothing, for a class of another shape.
 */
function patchStdioTransport(Transport, options = {}) {
  const existing = patchRecord(Transport);
  if (existing) return existing.unpatch;
  const why = adapter.whyNotStdioTransport(Transport);
  if (why !== null) {
    throw new UnsupportedSdkError(
      `mcp-ordered-dispatch: ${describe(Transport, options.source)} is not a supported MCP stdio transport: ${why}. Nothing was patched. ` +
        'Supported: StdioClientTransport and StdioServerTransport of @modelcontextprotocol/sdk 1.x, @modelcontextprotocol/client and @modelcontextprotocol/server 2.x.',
    );
  }
  const checked = transportOptions(options);
  if (typeof native.StdioFramer !== 'function') {
    throw new Error('mcp-ordered-dispatch: the native addon has no StdioFramer (it predates native stdio framing); rebuild it with `npm run build`.');
  }
  const originalStart = Transport.prototype.start;
  const start = function start(...args) {
    useNativeReadBuffer(this, record);
    return withFixForServer(this, () => originalStart.apply(this, args));
  };
  // The off-thread reader unless offThread is false (lib/stdio/thread-read-buffer.cjs);
  // it also patches close(), which delivers what the worker holds first.
  // The reader's file loads only when a transport starts: an application
  // that never starts one does not pay for it.
  const originalClose = Transport.prototype.close;
  const close = function close(...args) {
    const buffer = adapter.readBufferOf(this);
    if (typeof buffer?.beforeClose !== 'function' || !isNativeReadBuffer(buffer)) return originalClose.apply(this, args);
    buffer.beforeClose();
    const closed = originalClose.apply(this, args);
    Promise.resolve(closed).then(() => buffer.afterClose(), () => buffer.afterClose());
    return closed;
  };
  const record = replaceMethods(Transport.prototype, kPatch, checked.offThread ? { start, close } : { start }, {
    offThread: checked.offThread,
    sdk: checked.sdk,
    strict: checked.strict,
    blankLines: checked.blankLines,
    source: options.source,
    Transport,
  });
  return record.unpatch;
}

function patchRecord(Transport) {
  return patchRecordOf(Transport, kPatch);
}

function isStdioPatched(Transport) {
  return patchRecord(Transport) !== undefined;
}

/**
 * For load-time hooks (lib/register/hooks.cjs): patch whatever stdio transport
 * classes a just-loaded SDK module exports. An unsupported shape is left
 * stock with a warning. options: { offThread? }, as patchStdioTransport's.
 */
function patchStdioExports(exports, file, options = {}) {
  if (exports === null || (typeof exports !== 'object' && typeof exports !== 'function')) return;
  for (const exportName of sdkModules.STDIO_EXPORTS) {
    let Transport;
    try {
      Transport = exports[exportName];
    } catch {
      continue;
    }
    if (typeof Transport !== 'function' || isStdioPatched(Transport)) continue;
    const source = file ? sourceOfFile(file) : undefined;
    try {
      patchStdioTransport(Transport, { sdk: sdkModules.generationOfPackage(source?.name), source, offThread: options.offThread });
    } catch (error) {
      warnUnsupported(error);
    }
  }
}

module.exports = {
  patchStdioTransport,
  isStdioPatched,
  patchStdioExports,
  describeTransport: describe,
  // exposed for tests and benches
  _useNativeReadBuffer: useNativeReadBuffer,
};
