'use strict';
// Off-main-thread stdio framing: the reader install(), register and
// patchStdioTransport() give stdio transports unless `offThread: false`.
//
// ThreadReadBuffer is the message reader (lib/stdio/message-reader.cjs) over
// the addon's StdioThreadReader: append(chunk) copies the chunk to it and
// returns; a thread of the addon's one pool (shared by every transport)
// frames, validates, classifies and transcodes, and hands back pieces in the
// very layout StdioFramer.push returns, bounded by bytes and by count. Each
// piece is read by the same
// message reader as NativeReadBuffer's (bad lines, the SDK's own parse,
// strict, schema stripping, the hand-off to the Dispatcher), so a message or
// an error is the same object or Error the main-thread reader gives, in the
// same order. The worker checks every line's body, so no line needs the
// framer's checking path afterwards. Every reader's pieces come through the
// one hand-over (lib/stdio/hub.cjs): woken once for all ready transports, it
// has each take ONE piece in turn (_pump) and have its transport process it
// (transport.processReadBuffer(): onmessage / onerror as the SDK does them),
// within one budget per turn of the event loop, so that the event loop gets
// a turn between budgets however many servers flood. A small chunk that
// arrives while nothing of this transport is queued is framed at once on the
// main thread (the round trip of a single request pays no hop); nothing can
// overtake it then.
//
// Nothing read is lost or reordered at the edges, which stock handles
// synchronously:
// * the SDK's size rule (its ReadBuffer.append throws when the incomplete
//   line held plus the new chunk exceed the limit): the held length is
//   tracked here, exactly as the framer holds it; on an overflow, every
//   message of the earlier chunks is delivered first (the worker drained
//   synchronously), then the SDK's error is thrown from append, as stock;
// * the stream's 'end' (before the child's 'close' runs the transport's
//   onclose) and transport.close() (the patched close): the worker is
//   drained synchronously and everything delivered first;
// * clear() drops what is not yet read, as the SDK's ReadBuffer.clear() does.
// * the backlog is bounded: when more than `highWater` bytes are pushed and
//   not yet delivered, the stream is paused (the child then blocks on its
//   writes, as it does against a stock reader busy parsing) and resumed
//   below a quarter of it. So memory stays bounded, and what the 'end' or
//   close() flush delivers in one go is at most about that much.
// The reader is stopped at 'end', after close(), and when it is
// garbage-collected; the hand-over never keeps the process alive.

const native = require('../native/addon.cjs');
const adapter = require('../adapters/stdio.cjs');
const { MessageReader } = require('./message-reader.cjs');
const { readerOptions, threadOptions, THREAD_DEFAULTS } = require('./options.cjs');
const { useHub, holdIfOver } = require('./hub.cjs');
const { kHandoff } = require('./handoff.cjs');

let OUT_BATCH;

/**
 * options: NativeReadBuffer's, and { transport?: the SDK transport whose
 * processReadBuffer() is called when pieces arrive, maxBatchBytes?,
 * maxBatchMessages?, inlineMax?, highWater? }. Without a transport, messages are read
 * with readMessage() once they arrived (flush() waits for them).
 */
class ThreadReadBuffer {
  _maxBufferSize = adapter.DEFAULT_MAX_BUFFER_SIZE;
  // The message reader, and its hand-off for the Dispatcher (lib/stdio/handoff.cjs).
  _reader = undefined;
  [kHandoff] = undefined;
  // The addon's StdioThreadReader: the worker and its queue of pieces.
  _worker = undefined;
  _transport = undefined;
  // The SDK's "incomplete line held" (bytes after the last newline).
  _held = 0;
  _limited = false;
  // The stream whose 'end' flushes (the transport's input, once seen).
  _stream = undefined;
  _onEnd = undefined;
  _delivering = 0;
  _highWater = THREAD_DEFAULTS.highWater;
  _maxBatchBytes = THREAD_DEFAULTS.maxBatchBytes;
  // A piece holding one message larger than maxBatchBytes, handed over in
  // steps: { out, batch: its JSON.parse, once done }.
  _big = undefined;
  // The stream paused for the backlog (to resume), and paused for the
  // overall backlog of every transport (lib/stdio/hub.cjs resumes it).
  _paused = undefined;
  _heldStream = undefined;

  constructor(options = {}) {
    ({ OUT_BATCH } = native.boundary);
    const resolved = readerOptions(options);
    this._maxBufferSize = resolved.maxBufferSize;
    const { maxBatchBytes, maxBatchMessages, inlineMax, highWater } = threadOptions(options);
    this._highWater = highWater;
    this._maxBatchBytes = maxBatchBytes;
    const Worker = native.load().StdioThreadReader;
    if (typeof Worker !== 'function' || typeof Worker.hub !== 'function') throw new Error('mcp-ordered-dispatch: the native addon has no StdioThreadReader; rebuild it with `npm run build`.');
    useHub(Worker);
    this._limited = Number.isFinite(this._maxBufferSize);
    // StdioFramer's options, and the hand-over bounds.
    this._worker = new Worker({ ...resolved.framer, maxBatchBytes, maxBatchMessages, inlineMax });
    // The worker's pieces carry each line's own text (no escapes), and it
    // checked every line's body: no entryText, no entryRecheck.
    this._reader = new MessageReader(resolved);
    this[kHandoff] = this._reader.handoff;
    this._transport = options.transport;
    // Called by the hand-over (lib/stdio/hub.cjs) in this reader's turn.
    this._worker.onready = () => this._pump();
  }

  readMessage() {
    return this._reader.readMessage();
  }

  append(chunk) {
    if (this._limited && this._held + chunk.length > this._maxBufferSize) {
      // Stock delivered every earlier chunk's messages before this one came.
      this.flush();
      this.clear();
      throw adapter.readBufferOverflow(this._maxBufferSize);
    }
    if (typeof chunk === 'string') chunk = Buffer.from(chunk, 'utf8');
    if (this._limited) {
      const nl = chunk.lastIndexOf(10);
      this._held = nl === -1 ? this._held + chunk.length : chunk.length - nl - 1;
    }
    this._watchEnd();
    const out = this._worker.push(chunk);
    if (out !== undefined) this._reader.use(out);
    else if (this._stream !== undefined && this._paused === undefined && this._heldStream === undefined) {
      if (this._worker.backlog() > this._highWater) {
        this._paused = this._stream;
        this._paused.pause();
        // The reader wakes _pump() (which resumes) once it has caught up,
        // whether or not a line completed meanwhile.
        this._worker.wakeBelow(this._highWater >> 2);
      } else if (holdIfOver(this, this._stream)) {
        // Paused on the overall bound (lib/stdio/hub.cjs): resumeHeld() resumes.
        this._heldStream = this._stream;
      }
    }
  }

  /** The overall backlog is below its bound again (lib/stdio/hub.cjs calls it). */
  resumeHeld() {
    const held = this._heldStream;
    this._heldStream = undefined;
    if (held !== undefined && this._paused !== held) held.resume();
  }

  _resumeBelow(bytes) {
    const paused = this._paused;
    if (paused !== undefined && this._worker.backlog() <= bytes) {
      this._paused = undefined;
      paused.resume();
    }
  }

  clear() {
    // The SDK's clear(): whatever was appended and not read is dropped.
    this._worker.drain();
    while (this._worker.take() !== undefined);
    this._worker.clear();
    this._big = undefined;
    this._held = 0;
    this._reader.clear();
  }

  /**
   * Waits for the worker to frame every chunk appended and makes its
   * messages readable (delivering them to the transport, if any), in order.
   */
  flush() {
    if (this._big !== undefined) {
      this._useBig();
      this._deliver();
    }
    this._worker.drain();
    let out;
    while ((out = this._worker.take()) !== undefined) {
      this._reader.use(out);
      this._deliver();
    }
  }

  /** Flushes, then stops the worker (later chunks are framed on the main thread). */
  stop() {
    this.flush();
    this._resumeBelow(Infinity);
    this.resumeHeld();
    this._worker.stop();
    if (this._stream !== undefined) this._stream.removeListener('end', this._onEnd);
    this._stream = undefined;
  }

  /** Whether the worker runs. */
  get offThread() {
    return this._worker.running();
  }

  // The transport reads what is there (its processReadBuffer loop).
  _deliver() {
    const transport = this._transport;
    if (transport === undefined || adapter.readBufferOf(transport) !== this) return;
    this._delivering++;
    try {
      transport.processReadBuffer();
    } finally {
      this._delivering--;
    }
  }

  // One piece (or one step of a big one), in this reader's turn of the
  // hand-over; whether it may have more.
  _pump() {
    if (this._big !== undefined) {
      this._bigStep();
      return true;
    }
    let out;
    try {
      out = this._worker.take();
    } catch (error) {
      // The framer failed (a Rust panic): as the transport's data handler
      // does with an error of append(), report it and close.
      this._fail(error);
      return false;
    }
    if (out === undefined) {
      this._resumeBelow(this._highWater >> 2);
      return false;
    }
    if (typeof out[OUT_BATCH] === 'string' && out[OUT_BATCH].length > this._maxBatchBytes) {
      // A message larger than a piece: making its string, parsing it and
      // handling it (the SDK's own work) are steps of their own, so the
      // hand-over's budget can end a turn between them: the worst stall is
      // the largest of them, not their sum.
      this._big = { out, batch: undefined };
      return true;
    }
    this._reader.use(out);
    this._deliver();
    this._resumeBelow(this._highWater >> 2);
    return true;
  }

  _bigStep() {
    const big = this._big;
    if (big.batch === undefined) {
      try {
        big.batch = JSON.parse(big.out[OUT_BATCH]);
      } catch {
        big.batch = null; // readMessage() parses it again, message by message
      }
      return;
    }
    this._useBig();
    this._deliver();
    this._resumeBelow(this._highWater >> 2);
  }

  // The big piece taken, parsed or not yet, becomes the current entries.
  _useBig() {
    const { out, batch } = this._big;
    this._big = undefined;
    this._reader.use(out, batch || undefined);
  }

  _fail(error) {
    const transport = this._transport;
    if (transport === undefined) throw error;
    transport.onerror?.(error);
    Promise.resolve()
      .then(() => transport.close())
      .catch(() => {});
  }

  // The stream ends before the child's 'close' (which runs onclose):
  // everything read is delivered at 'end'.
  _watchEnd() {
    if (this._transport === undefined) return;
    const stream = adapter.inputStreamOf(this._transport);
    if (stream === this._stream || stream === undefined || typeof stream.once !== 'function') return;
    if (this._stream !== undefined) this._stream.removeListener('end', this._onEnd);
    this._stream = stream;
    this._onEnd ??= () => {
      this._stream = undefined;
      this.stop();
    };
    stream.once('end', this._onEnd);
  }

  /**
   * Before transport.close() (patched, lib/patch/transports.cjs): what was
   * read is delivered first, as stock delivered it when it was read; unless
   * close() runs inside a delivery (an onmessage handler), where stock drops
   * the rest of the chunk.
   */
  beforeClose() {
    if (this._delivering === 0) this.flush();
  }

  /** Once transport.close() settled: the reader stops. */
  afterClose() {
    if (this._delivering === 0) this.stop();
  }
}

module.exports = { ThreadReadBuffer };
