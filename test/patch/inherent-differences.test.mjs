// What dispatching in wire order changes, and only where a read holds more
// than one message (README, "Differences from stock, and why"): the stock SDK
// with only the upstream fix applied (test/patch/support/upstream-fixed.cjs)
// does exactly the same under the same reads, while the stock SDK, one
// message per read, does otherwise. Each case: Client, 1.x and 2.x, ESM and
// CJS, run on all three in one child process (test/patch/support/run-scripts.mjs).
//   1. A notifications/cancelled in the same read as its request: the
//      request handler starts already aborted, so no reply is sent (stock,
//      one per read, replies before the cancellation arrives).
//   2. A handler that closes the connection: the rest of its read is still
//      dispatched, to the closed instance (stock runs the handler a microtask
//      after the read, so the read's messages were dispatched before it, and
//      no later read comes).
//   3. Order: call settlements and request handler starts (a microtask
//      later in the SDK itself) land after the read's other events.
// And where the upstream fix itself differs from stock, and the patched SDK
// does not: 4. an onerror that throws on the notification path leaves the
// fixed SDK's onmessage synchronously; stock and patched make it an
// unhandled rejection.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const CHILD = fileURLToPath(new URL('./support/run-scripts.mjs', import.meta.url));
const CONFIGS = ['1-esm', '1-cjs', '2-esm', '2-cjs'];
const UNKNOWN_ID = 'Received a response for an unknown message ID: ';

const note = (mode) => ({ jsonrpc: '2.0', method: 'custom/note', params: { mode } });
const rootsRequest = { jsonrpc: '2.0', id: 'q1', method: 'roots/list', params: {} };
const base = { role: 'client', calls: [{ progress: true }], onerrorThrows: 'never' };
const SCRIPTS = {
  cancelled: { ...base, reads: [[rootsRequest, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'q1', reason: 'changed my mind' } }]] },
  closed: { ...base, reads: [[note('close'), { jsonrpc: '2.0', id: { call: 0 }, result: {} }, note('ok')]] },
  order: { ...base, reads: [[{ jsonrpc: '2.0', id: { call: 0 }, result: {} }, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'ok' } }, rootsRequest]] },
  throwing: { ...base, onerrorThrows: 'always', reads: [[note('throw')]] },
};
const NAMES = Object.keys(SCRIPTS);

let results;
before(async () => {
  const r = await runCommand(process.execPath, [CHILD, '--configs', CONFIGS.join(','), '--scripts', JSON.stringify(Object.values(SCRIPTS))], { timeout: 180_000 });
  assert.equal(r.code, 0, show(r));
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  results = Object.fromEntries(CONFIGS.map((c) => [c, Object.fromEntries(NAMES.map((n, i) => [n, out[c][i]]))]));
});

const sorted = (list) => [...list].sort();

for (const config of CONFIGS) {
  test(`${config}: notifications/cancelled in the same read as its request: no reply, as with the upstream fix`, () => {
    const { stock, patched, fixed } = results[config].cancelled;
    assert.deepEqual(patched.all, fixed.all);
    assert.deepEqual(stock.sent, ['{"result":{"roots":[]},"jsonrpc":"2.0","id":"q1"}'], 'stock, one per read, replies');
    assert.deepEqual(patched.sent, []);
    assert.deepEqual(patched.starts, stock.starts, 'the handler starts alike (already aborted)');
  });

  test(`${config}: a handler that closes the connection: the rest of its read is still dispatched, as with the upstream fix`, () => {
    const { stock, patched, fixed } = results[config].closed;
    assert.deepEqual(patched.all, fixed.all);
    assert.deepEqual(stock.e, ['notif:fallback:{"mode":"close"}', 'onclose'], 'stock: the read after the close never comes');
    assert.equal(patched.e[0], 'notif:fallback:{"mode":"close"}');
    assert.equal(patched.e[1], 'onclose');
    assert.ok(patched.e[2].startsWith(`onerror:${UNKNOWN_ID}`), patched.e[2]);
    assert.equal(patched.e[3], 'notif:fallback:{"mode":"ok"}');
    assert.deepEqual(patched.settled, stock.settled, 'the call settles alike: the connection closed');
  });

  test(`${config}: settlements and request handler starts land after the read's other events, as with the upstream fix`, () => {
    const { stock, patched, fixed } = results[config].order;
    assert.deepEqual(patched.all, fixed.all);
    const kinds = (t) => t.all.filter((e) => !e.startsWith('sent') && e !== 'e onclose' && !e.includes('Connection closed')).map((e) => e.split(' ')[0] + (e.includes('notif:') ? ':notif' : ''));
    assert.deepEqual(kinds(stock), ['settled', 'e:notif', 'starts'], 'stock, one per read: wire order');
    // The notification handler first; then the settlement and the start, in the SDK's own tick order (2.x validates the result first).
    assert.equal(kinds(patched)[0], 'e:notif');
    assert.deepEqual(sorted(kinds(patched).slice(1)), ['settled', 'starts']);
    assert.deepEqual(sorted(patched.all), sorted(stock.all), 'the same events');
  });

  test(`${config}: an onerror that throws on the notification path: an unhandled rejection as with stock (the upstream fix throws out of onmessage)`, () => {
    const { stock, patched, fixed } = results[config].throwing;
    assert.deepEqual(patched.all, stock.all);
    assert.equal(patched.unhandled.length, 1);
    assert.deepEqual(patched.threw, []);
    assert.deepEqual(fixed.threw, patched.unhandled);
    assert.deepEqual(fixed.unhandled, []);
  });
}
