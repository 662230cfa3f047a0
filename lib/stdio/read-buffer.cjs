'use strict';
// NativeReadBuffer: the native drop-in for the MCP SDK's stdio ReadBuffer
// (lib/patch/transports.cjs puts it into transports with `offThread: false`), the
// message reader (lib/stdio/message-reader.cjs) over the main-thread framer.
// Loaded when the first transport starts, not when the SDK loads.
//
// The SDK's ReadBuffer appends every chunk with Buffer.concat and rescans for
// the newline from the start, then validates each message with zod (and the
// Protocol validates it again). NativeReadBuffer has the same interface
// (append / readMessage / clear): the Rust framer splits and classifies each
// chunk in one N-API crossing and hands the chunk's valid messages over as
// one JSON array text, which readMessage() parses with one JSON.parse on its
// first call. The
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
//   newest releases'): found by a few canary lines at the first error
//   response a transport receives, the only message verify mode changes
//   (a transport that receives none never runs the SDK's schemas on them).
//   What such a release accepts and the framer refuses is a
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
// The SDK's limit and its error, the adapter says.
const { DEFAULT_MAX_BUFFER_SIZE, readBufferOverflow } = require('../adapters/stdio.cjs');
const { MessageReader, StdioFramingError } = require('./message-reader.cjs');
const { readerOptions } = require('./options.cjs');
const { kHandoff } = require('./handoff.cjs');

/**
 * Drop-in for the SDK's ReadBuffer, backed by the native framer.
 * options: { maxBufferSize?: number (default 10 MiB, as the SDK; Infinity: no limit),
 *            sdk?: 1 | 2, strict?: boolean,
 *            blankLines?: 'report' | 'skip' (default: 1.x reports, 2.x skips, as the SDK) }
 */
class NativeReadBuffer {
  // Fields, not assignments in the constructor: defined on the instance, so
  // that no accessor on Object.prototype sees or takes them.
  _maxBufferSize = DEFAULT_MAX_BUFFER_SIZE;
  _framer = undefined;
  _reader = undefined;
  // The message reader's, for the Dispatcher (lib/stdio/handoff.cjs).
  [kHandoff] = undefined;

  constructor(options = {}) {
    const resolved = readerOptions(options);
    this._maxBufferSize = resolved.maxBufferSize;
    const framer = new native.StdioFramer({
      ...resolved.framer,
      // The framer reads each line's envelope and leaves its body's syntax
      // to the reader's JSON.parse, which it runs anyway; a line JSON.parse
      // refuses is then judged by the framer's checking path (recheck).
      checkBodies: false,
    });
    this._framer = framer;
    // The last push's entry `index`: its raw text where the handed-over text
    // differs from it (escapes in place of characters beyond ASCII), else
    // undefined; and the framer's checking path's verdict on it.
    this._reader = new MessageReader(resolved, {
      entryText: (index) => framer.text(index),
      entryRecheck: (index) => framer.recheck(index),
    });
    this[kHandoff] = this._reader.handoff;
  }

  // The SDK's rule, at the SDK's point (see the top of this file): the
  // incomplete line held plus the new chunk over the limit drops both and
  // throws the SDK's Error; the transport reports it and closes.
  append(chunk) {
    if (this._framer.buffered + chunk.length > this._maxBufferSize) {
      this.clear();
      throw readBufferOverflow(this._maxBufferSize);
    }
    this._reader.stashUnread();
    if (typeof chunk === 'string') chunk = Buffer.from(chunk, 'utf8');
    this._reader.use(this._framer.push(chunk));
  }

  readMessage() {
    return this._reader.readMessage();
  }

  clear() {
    this._framer.clear();
    this._reader.clear();
  }
}

module.exports = { NativeReadBuffer, StdioFramingError, DEFAULT_MAX_BUFFER_SIZE };
