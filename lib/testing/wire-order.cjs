'use strict';
// The checks of a wire tap (lib/testing/wire-tap.cjs records, this file
// judges): whether the SDK ran each inbound message's callback in the order
// the messages arrived, whether a progress notification that arrived before
// its response reached its onprogress, and whether every response and
// request was called back; and the WireTap object a test holds
// (assertWireOrder, violations, lostProgress, settle, untap).

const { AssertionError } = require('node:assert');

function describeEntry(entry) {
  if (!entry) return '?';
  const at = `#${entry.seq}`;
  switch (entry.kind) {
    case 'response':
      return `${at} response to request ${JSON.stringify(entry.id)}`;
    case 'request':
      return `${at} request ${entry.method} (id ${JSON.stringify(entry.id)})`;
    case 'notification':
      return entry.progressToken !== undefined
        ? `${at} ${entry.method} (token ${JSON.stringify(entry.progressToken)}, progress ${entry.message?.params?.progress})`
        : `${at} ${entry.method}`;
    default:
      return `${at} invalid message`;
  }
}

function violationsOf(state) {
  const { inbound, callbacks, tokenToRequest } = state;
  const problems = [];
  let latest = null;
  for (const record of callbacks) {
    if (latest && record.seq < latest.seq) {
      problems.push(
        `out of wire order: the callback for ${describeEntry(inbound[record.seq - 1])} ran after the one for ` +
          `${describeEntry(inbound[latest.seq - 1])}, which arrived after it`,
      );
    }
    if (!latest || record.seq > latest.seq) latest = record;
  }
  // A notification still waiting for its handler while a later message's callback already ran.
  for (const entry of inbound) {
    if (!entry.awaitingCallback || entry.callbackRan) continue;
    const later = callbacks.find((c) => c.seq > entry.seq);
    if (later) {
      problems.push(
        `out of wire order: ${describeEntry(entry)} has not reached its handler yet, but the callback for ` +
          `${describeEntry(inbound[later.seq - 1])}, which arrived after it, already ran`,
      );
    }
  }
  for (const record of callbacks) {
    if (record.progress !== 'lost') continue;
    const requestId = tokenToRequest.get(String(record.progressToken));
    if (requestId === undefined) continue; // a token this side never issued
    const response = inbound.find((e) => e.kind === 'response' && e.id === requestId);
    if (!response || response.seq > record.seq) {
      problems.push(
        `progress lost: ${describeEntry(inbound[record.seq - 1])} arrived before ` +
          (response ? `its response (${describeEntry(response)})` : 'its response') +
          ' but its onprogress callback never ran',
      );
    }
  }
  for (const entry of inbound) {
    if ((entry.kind === 'response' || entry.kind === 'request') && !entry.callbackRan) {
      problems.push(`no callback ran for ${describeEntry(entry)}`);
    }
  }
  return problems;
}

/** The WireTap object a test holds. */
function tapOf(state) {
  const { inbound, callbacks, outbound } = state;
  const violations = () => violationsOf(state);
  const tap = {
    inbound,
    callbacks,
    outbound,
    /** Progress notifications whose onprogress callback was not there when their handler ran. */
    get lostProgress() {
      return callbacks.filter((c) => c.progress === 'lost');
    },
    violations,
    assertWireOrder(message) {
      const problems = violations();
      if (problems.length === 0) return;
      const order = callbacks.map((c) => `#${c.seq}${c.progress === 'lost' ? ' (progress lost)' : ''}`).join(', ');
      throw new AssertionError({
        message:
          `${message ? `${message}: ` : ''}MCP callbacks did not run in wire order:\n  - ${problems.join('\n  - ')}\n` +
          `callbacks ran for: ${order || '(none)'}`,
        actual: callbacks.map((c) => c.seq),
        expected: [...callbacks.map((c) => c.seq)].sort((a, b) => a - b),
        operator: 'assertWireOrder',
        stackStartFn: tap.assertWireOrder,
      });
    },
    /** Wait a macrotask, so that handlers the stock SDK deferred have run. */
    settle() {
      return new Promise((resolve) => setImmediate(resolve));
    },
    /** Stop recording and restore what tapWire changed (idempotent). */
    untap() {
      if (!state.active) return;
      state.active = false;
      for (const restore of state.restorers.reverse()) restore();
    },
  };
  return tap;
}

module.exports = { tapOf };
