'use strict';
// Native stdio framing for the MCP SDK's stdio transports.
//
// The SDK's ReadBuffer appends every chunk with Buffer.concat and rescans for
// the newline from the start, then validates each message with zod (and the
// Protocol validates it again). patchStdioTransport(Transport) swaps a
// transport instance's `_readBuffer`, as its start() begins, for a
// NativeReadBuffer with the same interface (append / readMessage / clear):
// the Rust framer (src/core/framer.rs) splits, validates and classifies each
// chunk in one N-API crossing and hands the chunk's valid messages over as
// one JSON array text, which readMessage() parses with one JSON.parse on its
// first call (src/framer_binding.rs). Everything else — the transport's
// processReadBuffer loop, onmessage/onerror, close — stays the SDK's.
//
// Differences from the stock ReadBuffer: messages are the plain JSON.parse
// result (zod's parse also reorders keys and drops unknown keys of an error
// object); invalid UTF-8 is an error instead of U+FFFD; SDK 2.x no longer
// drops malformed JSON silently.
//
// Bad input (malformed JSON, invalid UTF-8, valid JSON that is not JSON-RPC,
// a line over the size limit, and under 1.x a blank line) makes readMessage()
// throw a StdioFramingError naming the byte offset; the SDK's
// processReadBuffer passes it to onerror and goes on with the next line.
// An oversized line is skipped on its own without being buffered whole (the
// SDK clears its whole buffer, losing the messages behind it).

const native = require('./native.cjs');
const { UnsupportedSdkError } = require('./patch.cjs');
const { findSdkFiles, sourceOfFile } = require('./discover.cjs');
const { stdioClassesDefinedIn } = require('./stdio-detect.cjs');

const { StdioFramer } = native;
// Shared with the Dispatcher's JavaScript front end (lib/native.cjs): the
// message readMessage() just returned, already classified, so that dispatch()
// need not gather and classify it again.
const handoff = native.handoff;

/** The SDK's STDIO_DEFAULT_MAX_BUFFER_SIZE. */
const DEFAULT_MAX_BUFFER_SIZE = 10 * 1024 * 1024;
const kPatch = Symbol.for('mcp-ordered-dispatch.stdio-patch');

/** What readMessage() throws for a line that is not a valid JSON-RPC message. */
class StdioFramingError extends Error {
  constructor(message, offset, line, reason) {
    super(`mcp-ordered-dispatch: stdio: ${message}`);
    this.name = 'StdioFramingError';
    this.code = 'ERR_MCP_STDIO_FRAMING';
    /** 'malformed-json' | 'invalid-utf8' | 'not-json-rpc' | 'blank-line' | 'too-large' */
    this.reason = reason;
    /** Stream offset (bytes) of the line's first byte. */
    this.offset = offset;
    /** 1-based line number. */
    this.line = line;
  }
}

/**
 * Drop-in for the SDK's ReadBuffer, backed by the native framer.
 * options: { maxBufferSize?: number (max line size in bytes), sdk?: 1 | 2,
 *            blankLines?: 'report' | 'skip' (default: 1.x reports, 2.x skips, as the SDK) }
 */
class NativeReadBuffer {
  // Fields, not assignments in the constructor: defined on the instance, so
  // that no accessor on Object.prototype sees or takes them.
  // The last push's result (see src/framer_binding.rs): `_count` entries
  // [code, s, start, end] in the Int32Array `_meta`, which the framer reuses
  // for its next push.
  _out = undefined;
  _meta = undefined;
  _count = 0;
  _next = 0;
  // The chunk's messages parsed at once (out[2] is their JSON array text).
  _batch = undefined;
  _ordinal = 0;
  // Entries of earlier pushes not read before the next append (rare): a
  // linked list { head, tail } of { item, next } nodes (object literals, not
  // an array: no Array.prototype accessor can take an entry), or null.
  _backlog = null;
  _maxBufferSize = DEFAULT_MAX_BUFFER_SIZE;
  _framer = undefined;

  constructor(options = {}) {
    this._maxBufferSize = options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE;
    this._framer = new StdioFramer({ sdk: options.sdk ?? 1, maxMessageSize: this._maxBufferSize, blankLines: options.blankLines });
  }

  append(chunk) {
    if (this._next < this._count) this._stash();
    if (typeof chunk === 'string') chunk = Buffer.from(chunk, 'utf8');
    const out = this._framer.push(chunk);
    this._batch = undefined;
    this._ordinal = 0;
    this._next = 0;
    if (out === undefined) {
      this._count = 0;
      return;
    }
    this._out = out;
    this._meta = out[0];
    this._count = out[1];
  }

  readMessage() {
    if (this._backlog !== null) return this._readBacklog();
    return this._readCurrent();
  }

  // The next entry of the last push (null when all are read). Throws the
  // entry's StdioFramingError for a bad line.
  _readCurrent() {
    const count = this._count;
    if (this._next >= count) return null;
    const meta = this._meta;
    const out = this._out;
    const k = 4 * this._next++;
    const code = meta[k];
    const s = meta[k + 1];
    let message;
    let error;
    if (code <= 0) {
      error = framingError(out, s);
    } else if (s === 2) {
      const batch = this._batch ?? (this._batch = parseBatch(out, meta, count));
      message = batch[this._ordinal++];
      if (message instanceof StdioFramingError) error = message;
    } else {
      message = JSON.parse(out[s].slice(meta[k + 2], meta[k + 3]));
    }
    if (this._next === count) {
      // All read: let the texts and the batch go now rather than at the next
      // chunk (a big message's text is megabytes).
      this._out = undefined;
      this._batch = undefined;
      this._count = 0;
      this._next = 0;
    }
    if (error !== undefined) throw error;
    handoff.message = code < 8 ? message : undefined;
    handoff.code = code;
    return message;
  }

  clear() {
    this._framer.clear();
    this._out = undefined;
    this._meta = undefined;
    this._count = 0;
    this._next = 0;
    this._batch = undefined;
    this._ordinal = 0;
    this._backlog = null;
  }

  // append() came before every entry was read: move the rest of the last
  // push's entries (messages and errors) to the end of the backlog, behind
  // what it already holds, before the entries array is reused. Reads the
  // entries with _readCurrent(), never readMessage(), which would take them
  // from the backlog being filled (and never end).
  _stash() {
    let backlog = this._backlog;
    while (this._next < this._count) {
      let node;
      try {
        const message = this._readCurrent();
        node = { item: { message, code: handoff.code, error: undefined }, next: null };
      } catch (error) {
        node = { item: { message: undefined, code: 0, error }, next: null };
      }
      if (backlog === null) backlog = { head: node, tail: node };
      else backlog.tail = backlog.tail.next = node;
    }
    handoff.message = undefined;
    this._backlog = backlog;
  }

  _readBacklog() {
    const backlog = this._backlog;
    const { item, next } = backlog.head;
    if (next === null) this._backlog = null;
    else backlog.head = next;
    if (item.error !== undefined) throw item.error;
    handoff.message = item.code < 8 ? item.message : undefined;
    handoff.code = item.code;
    return item.message;
  }
}

function framingError(out, e) {
  return new StdioFramingError(out[e], out[e + 1], out[e + 2], out[e + 3]);
}

/** The chunk's messages: JSON.parse of the batch text out[2] (see src/framer_binding.rs). */
function parseBatch(out, meta, count) {
  const text = out[2];
  try {
    return JSON.parse(text);
  } catch {
    // Not expected (every message passed serde_json): parse them one by one,
    // so that only a message V8 disagrees about fails.
    const items = [];
    for (let k = 0; k < 4 * count; k += 4) {
      if (meta[k] <= 0 || meta[k + 1] !== 2) continue;
      try {
        items.push(JSON.parse(text.slice(meta[k + 2], meta[k + 3])));
      } catch (error) {
        items.push(new StdioFramingError(`JSON.parse rejected a message the framer accepted: ${error.message}`, undefined, undefined, 'malformed-json'));
      }
    }
    return items;
  }
}

const fnToString = Function.prototype.toString;
function sourceOf(fn) {
  try {
    return fnToString.call(fn);
  } catch {
    return '';
  }
}

function describe(Transport, source) {
  if (source?.name) return `${source.name}@${source.version ?? '?'}${source.build ? ` (${source.build.toUpperCase()} build)` : ''}`;
  return typeof Transport === 'function' && Transport.name ? Transport.name : 'this class';
}

/** Why `Transport` is not an SDK stdio transport this can patch, or null. */
function refuse(Transport) {
  if (typeof Transport !== 'function' || Transport.prototype === null || typeof Transport.prototype !== 'object') {
    return `it is not a class (got ${typeof Transport})`;
  }
  const proto = Transport.prototype;
  for (const name of ['start', 'close', 'send', 'processReadBuffer']) {
    if (typeof proto[name] !== 'function') return `${Transport.name || 'the class'}.prototype.${name} is missing`;
  }
  if (!/this\._readBuffer\.readMessage\(\)/.test(sourceOf(proto.processReadBuffer))) {
    return 'processReadBuffer() does not read this._readBuffer.readMessage()';
  }
  // The client appends in start(); the server in its _ondata arrow function
  // (constructor or class field), so look at the whole class too.
  const text = sourceOf(Transport) + sourceOf(proto.start);
  if (!/this\._readBuffer\s*=\s*new\s+[\w$.]*ReadBuffer\(/.test(text)) return 'it does not create a ReadBuffer as this._readBuffer';
  if (!/this\._readBuffer\.append\(/.test(text)) return 'it does not append chunks to this._readBuffer';
  return null;
}

/** The SDK generation of a stock ReadBuffer: 2.x's readMessage skips lines that are not JSON. */
function generationOfReadBuffer(readBuffer) {
  const readMessage = readBuffer?.readMessage;
  return typeof readMessage === 'function' && /instanceof\s+SyntaxError/.test(sourceOf(readMessage)) ? 2 : 1;
}

function looksLikeReadBuffer(value) {
  return value !== null && typeof value === 'object' && typeof value.append === 'function' && typeof value.readMessage === 'function' && typeof value.clear === 'function';
}

/** Swap a transport instance's stock ReadBuffer for a native one (before any data arrives). */
function useNativeReadBuffer(transport, record) {
  const stock = transport._readBuffer;
  if (stock instanceof NativeReadBuffer || !looksLikeReadBuffer(stock)) return;
  const max = stock._maxBufferSize;
  const buffer = new NativeReadBuffer({
    maxBufferSize: typeof max === 'number' && max >= 1 ? Math.floor(max) : DEFAULT_MAX_BUFFER_SIZE,
    sdk: record.sdk ?? generationOfReadBuffer(stock),
    blankLines: record.blankLines,
  });
  // Bytes the stock buffer already holds (nothing, when start() has not run).
  if (stock._buffer && stock._buffer.length > 0) buffer.append(stock._buffer);
  transport._readBuffer = buffer;
}

/**
 * Make every instance of an SDK stdio transport class frame natively, from
 * its start() on. Idempotent. Returns a function that restores the class
 * (instances already started keep their native buffer).
 * options: { sdk?: 1 | 2 (default: from the instance's stock ReadBuffer),
 *            blankLines?: 'report' | 'skip', source?: { name, version, build } for messages }
 * Throws UnsupportedSdkError, patching nothing, for a class of another shape.
 */
function patchStdioTransport(Transport, options = {}) {
  const existing = patchRecord(Transport);
  if (existing) return existing.unpatch;
  const why = refuse(Transport);
  if (why !== null) {
    throw new UnsupportedSdkError(
      `mcp-ordered-dispatch: ${describe(Transport, options.source)} is not a supported MCP stdio transport: ${why}. Nothing was patched. ` +
        'Supported: StdioClientTransport and StdioServerTransport of @modelcontextprotocol/sdk 1.x, @modelcontextprotocol/client and @modelcontextprotocol/server 2.x.',
    );
  }
  if (options.sdk !== undefined && options.sdk !== 1 && options.sdk !== 2) throw new TypeError('patchStdioTransport(Transport, options): options.sdk must be 1 or 2');
  if (typeof StdioFramer !== 'function') {
    throw new Error('mcp-ordered-dispatch: the native addon has no StdioFramer (it predates native stdio framing); rebuild it with `npm run build`.');
  }
  const proto = Transport.prototype;
  const saved = Object.getOwnPropertyDescriptor(proto, 'start');
  const originalStart = proto.start;
  const record = {
    sdk: options.sdk,
    blankLines: options.blankLines,
    source: options.source,
    unpatch() {
      if (proto[kPatch] !== record) return;
      if (saved) Object.defineProperty(proto, 'start', saved);
      else delete proto.start;
      delete proto[kPatch];
    },
  };
  Object.defineProperty(proto, 'start', {
    value: function start(...args) {
      useNativeReadBuffer(this, record);
      return originalStart.apply(this, args);
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
  Object.defineProperty(proto, kPatch, { value: record, configurable: true, enumerable: false });
  return record.unpatch;
}

function patchRecord(Transport) {
  const proto = Transport?.prototype;
  return proto && Object.prototype.hasOwnProperty.call(proto, kPatch) ? proto[kPatch] : undefined;
}

function isStdioPatched(Transport) {
  return patchRecord(Transport) !== undefined;
}

// Where each SDK package keeps its stdio transports.
const STDIO_MODULES = [
  { name: '@modelcontextprotocol/sdk', subpath: './client/stdio.js', exportName: 'StdioClientTransport', sdk: 1 },
  { name: '@modelcontextprotocol/sdk', subpath: './server/stdio.js', exportName: 'StdioServerTransport', sdk: 1 },
  { name: '@modelcontextprotocol/client', subpath: './stdio', exportName: 'StdioClientTransport', sdk: 2 },
  { name: '@modelcontextprotocol/server', subpath: './stdio', exportName: 'StdioServerTransport', sdk: 2 },
];

/**
 * Every SDK stdio transport module (package × ESM/CJS build) resolvable from
 * the base directories: [{ name, version, build, file, root, exportName, sdk }].
 * Nothing is loaded.
 */
function findStdioModules(bases) {
  return findSdkFiles(bases, STDIO_MODULES);
}

/**
 * Load the stdio transport classes resolvable from the base directories:
 * [{ Transport, sdk, source: { name, version, build, file } }], or throws an
 * UnsupportedSdkError listing the modules that could not be loaded.
 */
function findStdioTransports(bases) {
  const found = [];
  const problems = [];
  for (const copy of findStdioModules(bases)) {
    const source = { name: copy.name, version: copy.version, build: copy.build, file: copy.file };
    try {
      // require() loads ESM builds too (Node >= 20.19), the same instance `import` gets.
      const Transport = require(copy.file)?.[copy.exportName];
      if (typeof Transport !== 'function') throw new Error(`it has no ${copy.exportName} export`);
      found.push({ Transport, sdk: copy.sdk, source });
    } catch (error) {
      problems.push(`${copy.name}@${copy.version} (${copy.build.toUpperCase()} build) ${copy.file}: ${error.message}`);
    }
  }
  if (problems.length > 0) throw new UnsupportedSdkError(`mcp-ordered-dispatch: stdio transports could not be loaded:\n${problems.join('\n')}`);
  return found;
}

/**
 * Check every found transport, then patch them all (or none: throws
 * UnsupportedSdkError naming each unsupported one). Returns { patched, unpatch }.
 */
function patchStdioTransports(bases, options = {}) {
  const found = findStdioTransports(bases);
  const problems = [];
  for (const { Transport, source } of found) {
    const why = isStdioPatched(Transport) ? null : refuse(Transport);
    if (why !== null) problems.push(`${describe(Transport, source)}: ${why}`);
  }
  if (problems.length > 0) {
    throw new UnsupportedSdkError(`mcp-ordered-dispatch: unsupported MCP stdio transport(s), nothing was patched:\n${problems.join('\n')}`);
  }
  const unpatchers = found.map(({ Transport, sdk, source }) => patchStdioTransport(Transport, { ...options, sdk, source }));
  return {
    patched: found.map(({ Transport, sdk, source }) => ({ ...source, transport: Transport.name, sdk })),
    unpatch() {
      for (const unpatch of unpatchers) unpatch();
    },
  };
}

/**
 * For load-time hooks: patch whatever stdio transport classes a just-loaded
 * SDK module exports. An unsupported shape is left stock with a warning.
 */
function patchStdioExports(exports, file) {
  if (exports === null || (typeof exports !== 'object' && typeof exports !== 'function')) return;
  for (const exportName of ['StdioClientTransport', 'StdioServerTransport']) {
    let Transport;
    try {
      Transport = exports[exportName];
    } catch {
      continue;
    }
    if (typeof Transport !== 'function' || isStdioPatched(Transport)) continue;
    const source = file ? sourceOfFile(file) : undefined;
    const sdk = source?.name === '@modelcontextprotocol/sdk' ? 1 : source?.name?.startsWith('@modelcontextprotocol/') ? 2 : undefined;
    try {
      patchStdioTransport(Transport, { sdk, source });
    } catch (error) {
      if (error?.name !== 'UnsupportedSdkError') throw error;
      process.emitWarning(`${error.message} It runs unpatched.`, { type: 'UnsupportedSdkWarning', code: 'MCP_ORDERED_DISPATCH_UNSUPPORTED' });
    }
  }
}

module.exports = {
  NativeReadBuffer,
  StdioFramingError,
  patchStdioTransport,
  isStdioPatched,
  findStdioModules,
  findStdioTransports,
  patchStdioTransports,
  patchStdioExports,
  stdioClassesDefinedIn,
  STDIO_MODULES,
  DEFAULT_MAX_BUFFER_SIZE,
  /** Why a class is not an SDK stdio transport this can patch (a string), or null. */
  whyNotStdioTransport: refuse,
  // exposed for tests
  _useNativeReadBuffer: useNativeReadBuffer,
};
