'use strict';
// The one message reader of both stdio read buffers (lib/stdio/read-buffer.cjs,
// the main-thread framer; lib/stdio/thread-read-buffer.cjs, the worker): it
// reads the messages and bad lines of results in the framer's `out` layout
// (crates/core/src/boundary.rs, the binding's `boundary`), whichever source made them, in
// order, and offers each message it returns to the Dispatcher
// (lib/stdio/handoff.cjs). What it keeps exactly as the SDK does is described
// at the top of lib/stdio/read-buffer.cjs.
//
// What made the results tells it two things about an entry of its last
// result, given as named options (the main-thread framer gives both, the
// worker neither): `entryText(index)`, the line's raw text where the
// handed-over text differs from it (or undefined), and `entryRecheck(index)`,
// the framer's checking path's verdict on a line whose body JSON.parse
// refused (an `out`, or undefined for a line the SDK drops). Without
// entryRecheck, the source checked every body already.

const native = require('../native/addon.cjs');
// What this file knows of the SDK's messages and schemas, the adapter says.
const { stripLikeSchema } = require('../adapters/stdio.cjs');
const { PROGRESS_METHOD } = require('../adapters/common.cjs');
const { Handoff } = require('./handoff.cjs');

// The layout of the framer's results and its codes (crates/core/src/boundary.rs), read
// from the addon when the first reader is made (requiring this file must not
// load it).
let OUT_ENTRIES, OUT_COUNT, OUT_BATCH, ENTRY_SIZE, ENTRY_CODE, ENTRY_SLOT, ENTRY_START, ENTRY_END;
let BAD_MESSAGE, BAD_OFFSET, BAD_LINE, BAD_REASON, BAD_TEXT;
let CODE_KIND, CODE_ERROR, CODE_NOTIFICATION, CODE_SCHEMA_STRIPS, CODE_BAD_LINE;
function readBoundary() {
  if (OUT_ENTRIES !== undefined) return;
  ({
    OUT_ENTRIES, OUT_COUNT, OUT_BATCH, ENTRY_SIZE, ENTRY_CODE, ENTRY_SLOT, ENTRY_START, ENTRY_END,
    BAD_MESSAGE, BAD_OFFSET, BAD_LINE, BAD_REASON, BAD_TEXT,
    CODE_KIND, CODE_ERROR, CODE_NOTIFICATION, CODE_SCHEMA_STRIPS, CODE_BAD_LINE,
  } = native.boundary);
}

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

class MessageReader {
  // Fields, not assignments in the constructor: defined on the instance, so
  // that no accessor on Object.prototype sees or takes them.
  // The current result (see crates/core/src/boundary.rs): `_count` entries
  // [code, slot, start, end] in the Int32Array `_meta`, which the framer
  // reuses for its next result.
  _out = undefined;
  _meta = undefined;
  _count = 0;
  _next = 0;
  // The result's messages parsed at once (out[OUT_BATCH] is their JSON array text).
  _batch = undefined;
  _ordinal = 0;
  // Entries of earlier results not read before the next one came (rare): a
  // linked list { head, tail } of { item, next } nodes (object literals, not
  // an array: no Array.prototype accessor can take an entry), or null.
  _backlog = null;
  // The hand-off to the Dispatcher (lib/stdio/handoff.cjs).
  handoff = new Handoff();
  // The code of the message readMessage() last returned.
  _lastCode = 0;
  _entryText = undefined;
  _entryRecheck = undefined;
  _reference = undefined;
  _referenceBuffer = undefined;
  _verify = false;
  _sdk = 1;
  _strict = false;

  /**
   * options: a read buffer's, resolved (lib/stdio/options.cjs readerOptions()):
   * { sdk, strict, reference: the stock ReadBuffer class this replaces, if
   * any (it parses the rare message whose schema parse drops keys,
   * CODE_SCHEMA_STRIPS), verify }; source: { entryText?, entryRecheck? }
   * (see the top).
   */
  constructor(options, { entryText, entryRecheck } = {}) {
    readBoundary();
    this._entryText = entryText;
    this._entryRecheck = entryRecheck;
    this._reference = options.reference;
    this._verify = options.verify;
    this._sdk = options.sdk;
    this._strict = options.strict;
  }

  /**
   * Whether error responses go through the SDK's own parse too (verify: a
   * boolean, or a function asked at the first error response and kept: the
   * SDK release's canary check, which costs its schemas' first run, is paid
   * only by a transport that receives one).
   */
  _verifies() {
    if (typeof this._verify === 'function') this._verify = this._verify() === true;
    return this._verify;
  }

  /** Whether entries of earlier results are still unread. */
  get pending() {
    return this._next < this._count || this._backlog !== null;
  }

  /**
   * Before the source makes its next result in the arrays of the current
   * one (the main-thread framer reuses them): its unread entries go to the
   * backlog, in order.
   */
  stashUnread() {
    if (this._next < this._count) this._stash();
  }

  /**
   * A result (an `out`, or undefined for none) becomes the current entries
   * (the rest of the previous one, if unread, goes to the backlog first, in
   * order). `batch`: its messages already parsed, if they are.
   */
  use(out, batch) {
    this.stashUnread();
    this._batch = batch ?? undefined;
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

  // The SDK's own parse of one line's text (its ReadBuffer, which this one
  // replaced): the message, null (2.x: not JSON, dropped), or its error.
  _sdkParse(text) {
    // Reused: its readMessage() consumes the whole line, parse or throw.
    const reference = this._referenceBuffer ?? (this._referenceBuffer = new this._reference({ maxBufferSize: Infinity }));
    reference.append(Buffer.from(`${text}\n`, 'utf8'));
    return reference.readMessage();
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

  // The outcome of entry `index` of the current result, a message the framer
  // handed over with its body unchecked, when JSON.parse refused its text:
  // what the framer's checking path says (as if it had checked it in the
  // first place): { message: null } for a line the SDK drops, or a bad
  // line's { message, error } (_badLine), or, should that path accept what
  // V8 refused, an error.
  _recheck(index, parseError) {
    const out = this._entryRecheck === undefined ? null : this._entryRecheck(index);
    if (out === undefined) return { message: null, error: undefined };
    const entries = out === null ? null : out[OUT_ENTRIES];
    if (entries === null || entries[ENTRY_CODE] > 0) {
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
    } else if ((code & CODE_KIND) === CODE_ERROR && this._verifies()) {
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
    if (code > 0 && ((code & CODE_SCHEMA_STRIPS) !== 0 || ((code & CODE_KIND) === CODE_ERROR && this._verifies())) && error === undefined) {
      try {
        // The line's text as it came (the handed-over text may have escapes
        // instead of characters beyond ASCII, which an SDK error could quote).
        const text = (this._entryText === undefined ? undefined : this._entryText(k / ENTRY_SIZE)) ?? out[s].slice(meta[k + ENTRY_START], meta[k + ENTRY_END]);
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

  /** Drops every entry not yet read (the SDK's ReadBuffer.clear()). */
  clear() {
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
        node = { item: { message, code: this._lastCode, error: undefined }, next: null };
      } catch (error) {
        node = { item: { message: undefined, code: 0, error }, next: null };
      }
      if (backlog === null) backlog = { head: node, tail: node };
      else backlog.tail = backlog.tail.next = node;
    }
    this.handoff.message = undefined;
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

  // The message about to be returned (its code kept for _stash), offered to
  // the Dispatcher when it is what the framer classified (see
  // lib/stdio/handoff.cjs).
  _handOff(message, code) {
    this._lastCode = code;
    const handoff = this.handoff;
    if (code > 0 && code <= CODE_NOTIFICATION && (code !== CODE_NOTIFICATION || message.method !== PROGRESS_METHOD)) {
      handoff.message = message;
      handoff.code = code;
    } else {
      handoff.message = undefined;
    }
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
 * crates/core/src/boundary.rs). The framer read only their envelopes: when the batch
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

module.exports = { MessageReader, StdioFramingError };
