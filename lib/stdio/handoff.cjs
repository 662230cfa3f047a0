'use strict';
// The stdio -> dispatch hand-off, the one contract between a native read
// buffer (the frame stage) and the Dispatcher's front end (the classify
// stage, lib/classify/dispatch.cjs).
//
// The framer has validated and classified every message it frames. When a
// read buffer's readMessage() returns a message the framer classified as
// exactly what the SDK's schemas accept (no flag: not one the SDK's own
// parse produced, not one valid only under another SDK generation) and that
// is no progress notification (those are gathered, for the native progress
// fast path), the buffer offers it: { message, code }. The SDK's transport
// then passes that message to onmessage; when the routing closure
// (lib/patch/protocol.cjs) dispatches that very object, the Dispatcher takes
// the code instead of gathering and classifying the message again. Any other
// message (another object, a stock read buffer, a message the transport
// changed or made) is dispatched as any message is.
//
// A read buffer holds its message reader's Handoff as its own field under
// kHandoff (a symbol: no accessor on Object.prototype sees it, and it is no
// public member of the read buffer).

/** The key a read buffer holds its Handoff under. */
const kHandoff = Symbol('mcp-ordered-dispatch.handoff');

class Handoff {
  // The message readMessage() just returned, if offered, and its code.
  message = undefined;
  code = 0;
  // How many offered messages the Dispatcher took (tests and benches read it).
  hits = 0;
}

/**
 * The code `source` (whatever the transport holds as its read buffer) offered
 * for `message`, taken (once), or 0 when it offered none for this very object.
 */
function takeHandoff(source, message) {
  const handoff = typeof source === 'object' && source !== null ? source[kHandoff] : undefined;
  if (!(handoff instanceof Handoff) || message !== handoff.message || message === undefined) return 0;
  handoff.message = undefined;
  handoff.hits++;
  return handoff.code;
}

/** Whether `buffer` is one of this package's read buffers (either source): it offers hand-offs. */
function offersHandoff(buffer) {
  return buffer !== null && typeof buffer === 'object' && buffer[kHandoff] instanceof Handoff;
}

module.exports = { Handoff, kHandoff, takeHandoff, offersHandoff };
