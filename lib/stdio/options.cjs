'use strict';
// The stdio read buffers' options, resolved and checked in one place:
// patchStdioTransport()'s (checked when it patches, lib/patch/transports.cjs),
// a read buffer's (lib/stdio/read-buffer.cjs, lib/stdio/thread-read-buffer.cjs,
// resolved once in its constructor), and the framer's, made from them. What
// the framer reads (sdk, blankLines, maxMessageSize) the addon checks itself
// (crates/napi/src/options.rs), the one validator of what Rust reads: its
// classes are reachable without this file, so that check cannot go, and a
// second one here would be the same rule written twice.

// The SDK's limit, the adapter says.
const { DEFAULT_MAX_BUFFER_SIZE } = require('../adapters/stdio.cjs');

/**
 * Defaults of the off-thread hand-over bounds (bench/eventloop.mjs): a piece
 * carries at most this many bytes of message text and this many lines; a
 * chunk of at most `inlineMax` bytes is framed on the main thread when the
 * worker is idle; above `highWater` bytes not yet delivered the stream pauses.
 */
const THREAD_DEFAULTS = Object.freeze({ maxBatchBytes: 64 * 1024, maxBatchMessages: 512, inlineMax: 16 * 1024, highWater: 256 * 1024 });

function positiveInteger(value, name, fallback) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > 0x7fffffff) throw new TypeError(`offThread.${name} must be a positive integer`);
  return value;
}

/** The offThread option ({ maxBatchBytes, maxBatchMessages, inlineMax, highWater }) checked, with defaults. */
function threadOptions(offThread) {
  const o = offThread !== null && typeof offThread === 'object' ? offThread : {};
  return {
    maxBatchBytes: positiveInteger(o.maxBatchBytes, 'maxBatchBytes', THREAD_DEFAULTS.maxBatchBytes),
    maxBatchMessages: positiveInteger(o.maxBatchMessages, 'maxBatchMessages', THREAD_DEFAULTS.maxBatchMessages),
    inlineMax: o.inlineMax === 0 ? 0 : positiveInteger(o.inlineMax, 'inlineMax', THREAD_DEFAULTS.inlineMax),
    highWater: positiveInteger(o.highWater, 'highWater', THREAD_DEFAULTS.highWater),
  };
}

/**
 * patchStdioTransport()'s options checked: { sdk (undefined: the stock
 * ReadBuffer's generation), strict, blankLines, offThread: the off-thread
 * reader's bounds (threadOptions()), or undefined for the main-thread reader }.
 */
function transportOptions(options) {
  if (options.sdk !== undefined && options.sdk !== 1 && options.sdk !== 2) throw new TypeError('patchStdioTransport(Transport, options): options.sdk must be 1 or 2');
  if (options.strict !== undefined && typeof options.strict !== 'boolean') throw new TypeError('patchStdioTransport(Transport, options): options.strict must be a boolean');
  if (options.offThread !== undefined && typeof options.offThread !== 'boolean' && (options.offThread === null || typeof options.offThread !== 'object')) {
    throw new TypeError('patchStdioTransport(Transport, options): options.offThread must be a boolean or { maxBatchBytes?, maxBatchMessages?, inlineMax?, highWater? }');
  }
  return {
    sdk: options.sdk,
    strict: options.strict,
    blankLines: options.blankLines,
    offThread: options.offThread === false ? undefined : threadOptions(options.offThread),
  };
}

/** The framer's own line limit for a ReadBuffer limit (none: the largest safe integer). */
function framerLimit(max) {
  return typeof max === 'number' && Number.isFinite(max) && max >= 1 ? Math.floor(max) : Number.MAX_SAFE_INTEGER;
}

/**
 * A read buffer's options resolved: { maxBufferSize, sdk, strict, reference
 * (the stock ReadBuffer class replaced, or undefined), verify, framer: the
 * options of StdioFramer and StdioThreadReader alike }.
 */
function readerOptions(options) {
  const maxBufferSize = options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE;
  const sdk = options.sdk ?? 1;
  const strict = options.strict === true;
  const reference = typeof options.reference === 'function' ? options.reference : undefined;
  return {
    maxBufferSize,
    sdk,
    strict,
    reference,
    // The SDK release's schemas differ from the framer's (schemasDiffer() in
    // lib/patch/transports.cjs): error responses go through its own parse too.
    // A function: asked at the first error response (lib/stdio/message-reader.cjs).
    verify: reference !== undefined && (typeof options.verify === 'function' ? options.verify : options.verify === true),
    framer: { sdk, maxMessageSize: framerLimit(maxBufferSize), blankLines: options.blankLines, strict },
  };
}

module.exports = { THREAD_DEFAULTS, threadOptions, transportOptions, readerOptions };
