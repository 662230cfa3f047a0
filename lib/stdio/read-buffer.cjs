'use strict';
// NativeReadBuffer: the native drop-in for the MCP SDK's stdio ReadBuffer
// (lib/stdio/patch.cjs puts it into transports; lib/stdio/thread-read-buffer.cjs's
// ThreadReadBuffer extends it). Loaded when the first transport starts, not
// when the SDK loads.
//
// The SDK's ReadBuffer appends every chunk with Buffer.concat and rescans for
// the newline from the start, then validates each message with zod (and the
// Protocol validates it again). NativeReadBuffer has the same interface
// (append / readMessage / clear): the Rust framer (src/core/framer.rs)
// splits and classifies each chunk in one N-API crossing and hands the
// chunk's valid messages over as one JSON array text, which readMessage()
// parses with one JSON.parse on its first call (src/framer_binding.rs). The
// framer reads only each message's envelope; its body's syntax is that
// JSON.parse's to check: when it throws, each message is parsed on its own,
// and a line JSON.parse refuses gets the framer's checking path's verdict
// (recheck), so bad lines are reported exactly as if every body had been
// checked in Rust.
//
// Drop-in: for every input, a patched transport delivers what the stock one
// delivers (deep-equal objects), calls onerror as many times, and closes when
// it closes:
// * invalid UTF-8 becomes U+FFFD exactly as the SDK's Buffer#toString('utf8')
//   makes it (the framer decodes such a line with maximal-subpart
//   replacement, the rule both implement);
// * a blank line or a line that is not JSON: onerror under 1.x (stock:
//   JSON.parse's SyntaxError), nothing under 2.x (stock drops SyntaxErrors);
//   valid JSON that is not JSON-RPC: onerror under both (stock: a ZodError).
//   The framer finds the bad lines; in a patched transport the SDK's own
//   ReadBuffer (the stock one this replaced) then parses that one line's
//   text, so onerror gets the very error stock gives, and a line an older
//   SDK release accepts though the framer's schemas (the newest releases')
//   do not is delivered as stock delivers it. Standalone (no SDK
//   ReadBuffer given) and under strict they are StdioFramingErrors naming
//   the byte offset and line;
// * size: the SDK's ReadBuffer.append() throws `ReadBuffer exceeded maximum
//   size of N bytes` when the incomplete line it holds plus the new chunk
//   exceed maxBufferSize, having dropped both; the transport's data handler
//   then calls onerror and closes the transport. NativeReadBuffer.append()
//   applies the same rule at the same point with the same Error text, so the
//   SDK's own handler reports it and closes, as stock. SDK releases without a
//   limit (1.0 to 1.23) get none. Decision: we do not deliver the valid
//   messages that stock drops with an overflowing chunk. They arrive in the
//   very chunk that makes the transport close itself; delivering them would
//   hand the application requests and responses on a transport that stock
//   has already torn down, and which messages these are depends only on how
//   the pipe cut the stream. Every message stock delivers is delivered.
// * a message the SDK's schema would return with keys dropped (unknown keys
//   of an error object or of the related-task object; the framer flags
//   them, rarely set) is parsed by the SDK's own ReadBuffer, so it is the
//   same object.
// * an SDK release whose schemas are not those the framer mirrors (the
//   newest releases'): found by a few canary lines when a transport starts
//   (verify mode). What such a release accepts and the framer refuses is a
//   bad line, judged by the SDK's parse as above. What it refuses and the
//   framer accepts is, for 1.0 to 1.23 (differential over 120,000
//   generated lines), only an error response without id: in verify mode
//   every error response goes through the SDK's own parse too (rare; every
//   other message stays on the native path).
// Messages are otherwise JSON.parse's result (zod's parse may order keys
// differently, which no deep-equality sees).
//
// options.strict (NativeReadBuffer, patchStdioTransport, install): stricter
// than the SDK: invalid UTF-8 is an error (reason 'invalid-utf8') instead of
// U+FFFD, and under 2.x blank lines and lines that are not JSON are reported
// instead of dropped. Sizes and closes stay the SDK's.

const native = require('../native/addon.cjs');
// What this file knows of the SDK's messages and schemas, the adapter says.
const { stripLikeSchema } = require('../adapters/stdio.cjs');

// The layout of the framer's results and its codes (src/boundary.rs), read
// from the addon when the first NativeReadBuffer is made (requiring this
// file must not load it).
let OUT_ENTRIES, OUT_COUNT, OUT_BATCH, ENTRY_SIZE, ENTRY_CODE, ENTRY_SLOT, ENTRY_START, ENTRY_END;
let BAD_MESSAGE, BAD_OFFSET, BAD_LINE, BAD_REASON, BAD_TEXT;
let CODE_KIND, CODE_ERROR, CODE_SCHEMA_STRIPS, CODE_BAD_LINE;
function readBoundary() {
  if (OUT_ENTRIES !== undefined) return;
  ({
    OUT_ENTRIES, OUT_COUNT, OUT_BATCH, ENTRY_SIZE, ENTRY_CODE, ENTRY_SLOT, ENTRY_START, ENTRY_END,
    BAD_MESSAGE, BAD_OFFSET, BAD_LINE, BAD_REASON, BAD_TEXT,
    CODE_KIND, CODE_ERROR, CODE_SCHEMA_STRIPS, CODE_BAD_LINE,
  } = native.boundary);
}

/** The SDK's STDIO_DEFAULT_MAX_BUFFER_SIZE. */
const DEFAULT_MAX_BUFFER_SIZE = 10 * 1024 * 1024;

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

/** The framer's own line limit for a ReadBuffer limit (none: the largest safe integer). */
function framerLimit(max) {
  return typeof max === 'number' && Number.isFinite(max) && max >= 1 ? Math.floor(max) : Number.MAX_SAFE_INTEGER;
}

/**
 * Drop-in for the SDK's ReadBuffer, backed by the native framer.
 * options: { maxBufferSize?: number (default 10 MiB, as the SDK; Infinity: no limit),
 *            sdk?: 1 | 2, strict?: boolean,
 *            blankLines?: 'report' | 'skip' (default: 1.x reports, 2.x skips, as the SDK) }
 */
class NativeReadBuffer {
  // Fields, not assignments in the constructor: defined on the instance, so
  // that no accessor on Object.prototype sees or takes them.
  // The last push's result (see src/boundary.rs): `_count` entries
  // [code, slot, start, end] in the Int32Array `_meta`, which the framer
  // reuses for its next push.
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
  // The hand-off to the Dispatcher (lib/native/addon.cjs `_dispatchFrom`): the
  // message readMessage() just returned, already validated and classified
  // by the framer, and its code; how many the Dispatcher took.
  _handoffMessage = undefined;
  _handoffCode = 0;
  _handoffHits = 0;
  _framer = undefined;
  _reference = undefined;
  _referenceBuffer = undefined;
  _verify = false;
  _sdk = 1;
  _strict = false;

  constructor(options = {}) {
    readBoundary();
    this._maxBufferSize = options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE;
    this._framer = new native.StdioFramer({
      sdk: options.sdk ?? 1,
      maxMessageSize: framerLimit(this._maxBufferSize),
      blankLines: options.blankLines,
      strict: options.strict === true,
      // The framer reads each line's envelope and leaves its body's syntax
      // to the JSON.parse below, which it runs anyway; a line JSON.parse
      // refuses is then judged by the framer's checking path (_recheck).
      checkBodies: false,
    });
    // The stock ReadBuffer class this one replaces, if any: it parses the
    // rare message whose schema parse drops keys (CODE_SCHEMA_STRIPS).
    this._reference = typeof options.reference === 'function' ? options.reference : undefined;
    // The SDK release's schemas differ from the framer's (see
    // schemasDiffer()): error responses go through the SDK's own parse too.
    this._verify = options.verify === true && this._reference !== undefined;
    this._sdk = options.sdk ?? 1;
    this._strict = options.strict === true;
  }

  // The SDK's rule, at the SDK's point (see the top of this file): the
  // incomplete line held plus the new chunk over the limit drops both and
  // throws the SDK's Error; the transport reports it and closes.
  _checkSize(chunk) {
    if (this._framer.buffered + chunk.length > this._maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this._maxBufferSize} bytes`);
    }
  }

  // The SDK's own parse of one line's text (its ReadBuffer, which this one
  // replaced): the message, null (2.x: not JSON, dropped), or its error.
  _sdkParse(text) {
    // Reused: its readMessage() consumes the whole line, parse or throw.
    const reference = this._referenceBuffer ?? (this._referenceBuffer = new this._reference({ maxBufferSize: Infinity }));
    reference.append(Buffer.from(`${text}\n`, 'utf8'));
    return reference.readMessage();
  }

  // The raw text of the last push's entry `index` where the handed-over text
  // differs from it (escapes in place of characters beyond ASCII), else undefined.
  _rawText(index) {
    return this._framer.text(index);
  }

  // A message flagged by the framer (CODE_SCHEMA_STRIPS): what the SDK's parse
  // returns for its text (keys dropped; or its own error if this SDK release
  // rejects it).
  _asSdkParses(message, text) {
    if (this._reference === undefined) return stripLikeSchema(message, this._sdk);
    return this._sdkParse(text);
  }

  // A bad line (entry at out[e]). In a patched transport (the stock
  // ReadBuffer at hand) the SDK's own parse of the line's text decides, so
  // that onerror gets the very error stock gives (SyntaxError, ZodError), and
  // a line this SDK release accepts though the framer's schemas (those of the
  // newest releases) do not is delivered as stock delivers it. strict, or
  // standalone: a StdioFramingError naming the offset (strict still delivers
  // what the SDK accepts).
  _badLine(out, e, hasText) {
    if (hasText && this._reference !== undefined && (!this._strict || out[e + BAD_REASON] === 'not-json-rpc')) {
      try {
        return { message: this._sdkParse(out[e + BAD_TEXT]) };
      } catch (sdkError) {
        return { error: this._strict ? framingError(out, e) : sdkError };
      }
    }
    return { error: framingError(out, e) };
  }

  append(chunk) {
    this._checkSize(chunk);
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
    this._meta = out[OUT_ENTRIES];
    this._count = out[OUT_COUNT];
  }

  // The outcome of entry `index` of the last push, a message the framer
  // handed over with its body unchecked, when JSON.parse refused its text:
  // what the framer's checking path says (as if it had checked it in the
  // first place): { message: null } for a line the SDK drops, or a bad
  // line's { message, error } (_badLine), or, should that path accept what
  // V8 refused, an error.
  _recheck(index, parseError) {
    const out = this._framer.recheck(index);
    if (out === undefined) return { message: null, error: undefined };
    const entries = out[OUT_ENTRIES];
    if (entries[ENTRY_CODE] > 0) {
      return { message: undefined, error: new StdioFramingError(`JSON.parse rejected a message the framer accepted: ${parseError?.message}`, undefined, undefined, 'malformed-json') };
    }
    const { message, error } = this._badLine(out, entries[ENTRY_SLOT], entries[ENTRY_START] === 1);
    return { message, error };
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
    const k = ENTRY_SIZE * this._next++;
    let code = meta[k + ENTRY_CODE];
    const s = meta[k + ENTRY_SLOT];
    let message;
    let error;
    if (code <= 0) {
      // A bad line: s is where its fields are; ENTRY_START says whether it has its text.
      ({ message, error } = this._badLine(out, s, meta[k + ENTRY_START] === 1));
    } else if (this._verify && (code & CODE_KIND) === CODE_ERROR) {
      // An error response, under a release whose schemas are not the
      // framer's: its own parse decides, below. (Its place in the batch is
      // still taken.)
      if (s === OUT_BATCH) this._ordinal++;
    } else if (s === OUT_BATCH) {
      const batch = this._batch ?? (this._batch = parseBatch(out, meta, count));
      message = batch[this._ordinal++];
      if (message instanceof Refused) {
        ({ message, error } = this._recheck(k / ENTRY_SIZE, message.error));
        code = CODE_BAD_LINE;
      }
    } else {
      try {
        message = JSON.parse(out[s].slice(meta[k + ENTRY_START], meta[k + ENTRY_END]));
      } catch (parseError) {
        ({ message, error } = this._recheck(k / ENTRY_SIZE, parseError));
        code = CODE_BAD_LINE;
      }
    }
    if (code > 0 && ((code & CODE_SCHEMA_STRIPS) !== 0 || (this._verify && (code & CODE_KIND) === CODE_ERROR)) && error === undefined) {
      try {
        // The line's text as it came (the handed-over text may have escapes
        // instead of characters beyond ASCII, which an SDK error could quote).
        const text = this._rawText(k / ENTRY_SIZE) ?? out[s].slice(meta[k + ENTRY_START], meta[k + ENTRY_END]);
        message = this._asSdkParses(message, text);
      } catch (sdkError) {
        error = sdkError;
      }
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
    // A line the SDK drops (2.x, not JSON): the next entry of this push
    // (never the backlog, which _stash() may be filling from here).
    if (message === null) return this._readCurrent();
    this._handOff(message, code);
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
        if (message === null) break; // the rest were lines the SDK drops
        node = { item: { message, code: this._handoffCode, error: undefined }, next: null };
      } catch (error) {
        node = { item: { message: undefined, code: 0, error }, next: null };
      }
      if (backlog === null) backlog = { head: node, tail: node };
      else backlog.tail = backlog.tail.next = node;
    }
    this._handoffMessage = undefined;
    this._backlog = backlog;
  }

  _readBacklog() {
    const backlog = this._backlog;
    const { item, next } = backlog.head;
    if (next === null) this._backlog = null;
    else backlog.head = next;
    if (item.error !== undefined) throw item.error;
    this._handOff(item.message, item.code);
    return item.message;
  }

  // The message about to be returned, for the Dispatcher: only a message
  // that is what the framer classified (not flagged: a flagged one may be
  // the SDK's own parse, or valid only under the configured SDK).
  _handOff(message, code) {
    this._handoffMessage = code > 0 && (code & ~CODE_KIND) === 0 ? message : undefined;
    this._handoffCode = code;
  }
}

function framingError(out, e) {
  return new StdioFramingError(out[e + BAD_MESSAGE], out[e + BAD_OFFSET], out[e + BAD_LINE], out[e + BAD_REASON]);
}

/** A batch element JSON.parse refused (parseBatch); the framer rechecks its line. */
class Refused {
  constructor(error) {
    this.error = error;
  }
}

/**
 * The chunk's messages: JSON.parse of the batch text out[OUT_BATCH] (see
 * src/boundary.rs). The framer read only their envelopes: when the batch
 * does not parse, each message is parsed on its own, and one JSON.parse
 * refuses is a Refused (its line is then rechecked by the framer).
 */
function parseBatch(out, meta, count) {
  const text = out[OUT_BATCH];
  try {
    return JSON.parse(text);
  } catch {
    const items = [];
    for (let k = 0; k < ENTRY_SIZE * count; k += ENTRY_SIZE) {
      if (meta[k + ENTRY_CODE] <= 0 || meta[k + ENTRY_SLOT] !== OUT_BATCH) continue;
      try {
        items.push(JSON.parse(text.slice(meta[k + ENTRY_START], meta[k + ENTRY_END])));
      } catch (error) {
        items.push(new Refused(error));
      }
    }
    return items;
  }
}

module.exports = { NativeReadBuffer, StdioFramingError, DEFAULT_MAX_BUFFER_SIZE, framerLimit };
