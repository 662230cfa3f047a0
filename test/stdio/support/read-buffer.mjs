// What a transport's processReadBuffer() loop gets from a read buffer (the
// SDK's ReadBuffer, NativeReadBuffer, ThreadReadBuffer): readMessage() until
// null, each message pushed to `out`, each error as describeError(error) and
// the loop going on, as the SDK's loop goes on after onerror.
export function drainMessages(rb, out, describeError = (error) => `${error.name}: ${error.message}`) {
  for (;;) {
    try {
      const m = rb.readMessage();
      if (m === null) return out;
      out.push(m);
    } catch (error) {
      out.push(describeError(error));
    }
  }
}
