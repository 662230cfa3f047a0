// A user onerror that throws: the exception leaves as it does
// with the stock SDK: thrown out of transport.onmessage on the response path
// and for a message that is none of request, notification, response; an
// unhandled rejection on the notification path, after onerror was called a
// second time with the SDK's "Uncaught error in notification handler" text.
// Never swallowed, never reported to onerror once more. Client and Server,
// 1.x and 2.x, ESM and CJS; each run against the stock SDK in the same child
// process (test/patch/support/run-scripts.mjs).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const CHILD = fileURLToPath(new URL('./support/run-scripts.mjs', import.meta.url));
const CONFIGS = ['1-esm', '1-cjs', '2-esm', '2-cjs'];
const UNKNOWN_ID = 'Received a response for an unknown message ID: ';
const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token: ';
const HANDLER = 'Uncaught error in notification handler: ';
const threwFor = (text) => `onerror threw for: ${text.slice(0, 80)}`;

const script = (role, reads, extra = {}) => ({ role, calls: [{ progress: true }], onerrorThrows: 'always', reads, ...extra });
const unknownId = { jsonrpc: '2.0', id: 4244, result: {} };
const neverIssued = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 9999, progress: 1 } };
const invalid = { jsonrpc: '2.0', id: 5 };
const quietHandler = { jsonrpc: '2.0', method: 'custom/note', params: { mode: 'ok' } };
const throwingHandler = { jsonrpc: '2.0', method: 'custom/note', params: { mode: 'throw' } };

const SCRIPTS = [];
for (const role of ['client', 'server']) {
  SCRIPTS.push(script(role, [[unknownId]]));
  SCRIPTS.push(script(role, [[neverIssued]]));
  SCRIPTS.push(script(role, [[invalid]]));
  SCRIPTS.push(script(role, [[throwingHandler]]));
  // The four in one read, then in one read delivered from inside the first callback.
  SCRIPTS.push(script(role, [[unknownId, neverIssued, invalid, throwingHandler]]));
  SCRIPTS.push(script(role, [[quietHandler, neverIssued, unknownId, throwingHandler, invalid]], { reenter: true }));
}

let results;
before(async () => {
  const r = await runCommand(process.execPath, [CHILD, '--configs', CONFIGS.join(','), '--scripts', JSON.stringify(SCRIPTS)], { timeout: 180_000 });
  assert.equal(r.code, 0, show(r));
  results = JSON.parse(r.stdout.trim().split('\n').pop());
});

/** The streams that a throwing onerror changes. */
const escapes = (t) => ({ e: t.e.filter((x) => x !== 'onclose'), threw: [...t.threw].sort(), unhandled: [...t.unhandled].sort(), async: t.async });

for (const config of CONFIGS) {
  for (const [index, s] of SCRIPTS.entries()) {
    const label = `${config} ${s.role}, script ${index}: ${s.reads.map((r) => r.length).join('+')} message(s)${s.reenter ? ', re-entrant' : ''}`;
    test(`onerror that throws, ${label}: the same calls and escapes as stock`, () => {
      const { stock, patched, patchedOnePerRead } = results[config][index];
      assert.deepEqual(escapes(patchedOnePerRead), escapes(stock), 'one message per read');
      assert.deepEqual(escapes(patched), escapes(stock), 'the script\'s reads');
      assert.deepEqual(patched.sent, stock.sent);
      assert.deepEqual(patched.settled, stock.settled);
    });
  }

  test(`${config}: what stock does, spelled out (the issue's cases)`, () => {
    for (const [offset, role] of [[0, 'client'], [6, 'server']]) {
      const [response, progress, other, handler] = results[config].slice(offset, offset + 4).map((r) => r.patched);
      // An unknown id: onerror once, then onmessage throws what onerror threw.
      const idText = UNKNOWN_ID + JSON.stringify(unknownId);
      assert.deepEqual(escapes(response), { e: [`onerror:${idText}`], threw: [threwFor(idText)], unhandled: [], async: [] }, role);
      // A token never issued: onerror, onerror again with the SDK's handler text, then an unhandled rejection.
      const [first, second, ...rest] = progress.e;
      assert.ok(first.startsWith(`onerror:${UNKNOWN_TOKEN}`), first);
      assert.equal(second, `onerror:${HANDLER}Error: ${threwFor(first.slice('onerror:'.length))}`);
      assert.deepEqual(rest, ['onclose'], JSON.stringify(progress.e));
      assert.deepEqual(progress.threw, []);
      assert.deepEqual(progress.unhandled, [threwFor(second.slice('onerror:'.length))]);
      // Not a message: onerror, then thrown.
      assert.deepEqual(other.e.slice(1), ['onclose']);
      assert.deepEqual(other.threw, [threwFor(other.e[0].slice('onerror:'.length))]);
      // A handler that throws: onerror with the handler text, then an unhandled rejection.
      assert.deepEqual(handler.e.slice(1), [`onerror:${HANDLER}Error: handler threw (custom/note)`, 'onclose']);
      assert.deepEqual(handler.unhandled, [threwFor(`${HANDLER}Error: handler threw (custom/note)`)]);
      assert.deepEqual(handler.threw, []);
    }
  });
}
