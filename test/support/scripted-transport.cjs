'use strict';
// A real Transport (start/send/close and the on* callbacks the SDK sets) with
// the test playing the other side: every message the SDK sends is recorded,
// `initialize` is answered, and the test delivers inbound messages itself by
// calling transport.onmessage(...), exactly as a transport does after a read.

class ScriptedTransport {
  constructor({ capabilities = { tools: {} }, failSend } = {}) {
    this.sent = [];
    // failSend(message) -> true makes send() reject for that message (after recording it).
    this.failSend = failSend;
    this.capabilities = capabilities;
    this.onmessage = undefined;
    this.onerror = undefined;
    this.onclose = undefined;
    this.closed = false;
    this._waiters = [];
  }

  async start() {}

  async send(message) {
    this.sent.push(message);
    for (const waiter of this._waiters.splice(0)) waiter();
    if (this.failSend?.(message)) throw new Error('send failed (scripted)');
    if (message.method === 'initialize' && message.id !== undefined) {
      setImmediate(() =>
        this.onmessage?.({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            protocolVersion: message.params.protocolVersion,
            capabilities: this.capabilities,
            serverInfo: { name: 'scripted', version: '1.0.0' },
          },
        }),
      );
    }
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** The next sent message with this method (waits for it). */
  async nextRequest(method) {
    for (;;) {
      const found = this.sent.find((m) => m.method === method && !m.__seen);
      if (found) {
        Object.defineProperty(found, '__seen', { value: true });
        return found;
      }
      await new Promise((resolve) => this._waiters.push(resolve));
    }
  }
}

module.exports = { ScriptedTransport };
