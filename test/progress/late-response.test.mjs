// maxTotalTimeout and the response that comes after: a progress
// notification that crosses maxTotalTimeout rejects the call; the response
// in the same read is dropped quietly (docs/how-it-works.md, "Progress after its request
// finished"), but one in a later read reaches onerror with the stock SDK's
// text, "Received a response for an unknown message ID", exactly as the
// stock SDK does with the same two reads. Each case runs on the patched SDK
// and on a stock copy of it (test/patch/support/upstream-fixed.cjs,
// makeStockCopyProject) in this process, 1.x and 2.x, Client.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { install, dispatchStats } from 'mcp-ordered-dispatch';
import { loadFrom } from '../patch/support/sdk-copies.mjs';

const require = createRequire(import.meta.url);
const { loadSdk, callTool } = require('../support/sdk.cjs');
const { ScriptedTransport } = require('../support/scripted-transport.cjs');
const { progress } = require('../support/messages.cjs');
const { makeStockCopyProject } = require('../patch/support/upstream-fixed.cjs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const drain = () => new Promise((resolve) => setImmediate(resolve));
const UNKNOWN_ID = 'Received a response for an unknown message ID: ';

let installation;
let stockDir;
before(() => {
  installation = install();
  stockDir = makeStockCopyProject().dir;
});
after(() => {
  installation?.uninstall();
  if (stockDir) fs.rmSync(stockDir, { recursive: true, force: true });
});

/**
 * The script: callTool with onprogress, resetTimeoutOnProgress and
 * maxTotalTimeout 100 ms; 300 ms pass; then `reads` (each a list of
 * messages, given the call's request), with `between` run between reads.
 */
async function play(sdk, reads, between) {
  const transport = new ScriptedTransport();
  const client = new sdk.Client({ name: 'late-response', version: '1.0.0' });
  const errors = [];
  client.onerror = (e) => errors.push(e.message);
  await client.connect(transport);
  const seen = [];
  const call = callTool(sdk, client, { name: 'slow', arguments: {} }, {
    onprogress: (p) => seen.push(p.progress),
    resetTimeoutOnProgress: true,
    maxTotalTimeout: 100,
    // The SDK leaves the request timer running when maxTotalTimeout rejects: keep it short.
    timeout: 1_500,
  });
  const settled = call.then(() => 'resolved', (e) => `rejected: ${e.message}`);
  const request = await transport.nextRequest('tools/call');
  await sleep(300);
  for (const [i, read] of reads.entries()) {
    if (i > 0) await between();
    for (const message of read(request)) transport.onmessage(message);
  }
  await drain();
  const outcome = { errors, seen, settled: await settled };
  await client.close();
  return { outcome, client };
}

const progressFor = (request) => progress(request.params._meta.progressToken, 1);
const errorFor = (request) => ({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'too late' } });
const resultFor = (request) => ({ jsonrpc: '2.0', id: request.id, result: { content: [] } });

for (const generation of [1, 2]) {
  describe(`SDK ${generation}.x`, () => {
    let patched;
    let stock;
    before(async () => {
      patched = await loadSdk(generation, 'esm');
      stock = await loadFrom(`${stockDir}/node_modules`, generation, 'esm');
    });

    for (const [name, between] of [
      ['the event loop drained', drain],
      ['100 ms', () => sleep(100)],
      ['one microtask', () => Promise.resolve()],
    ]) {
      test(`the response in a later read (${name} between) reaches onerror, as with stock`, async () => {
        const reads = [(r) => [progressFor(r)], (r) => [errorFor(r)]];
        const withStock = (await play(stock, reads, between)).outcome;
        const { outcome, client } = await play(patched, reads, between);
        assert.deepEqual(outcome, withStock);
        assert.match(outcome.settled, /^rejected: .*Maximum total timeout exceeded/);
        assert.deepEqual(outcome.seen, []);
        assert.equal(outcome.errors.length, 1, JSON.stringify(outcome.errors));
        assert.ok(outcome.errors[0].startsWith(UNKNOWN_ID), outcome.errors[0]);
        assert.equal(JSON.parse(outcome.errors[0].slice(UNKNOWN_ID.length)).error.message, 'too late');
        assert.equal(dispatchStats(client).lateResponses, 0);
      });
    }

    test('the response in the same read is dropped quietly (where stock, one per read, reports it)', async () => {
      const { outcome, client } = await play(patched, [(r) => [progressFor(r), resultFor(r)]]);
      assert.match(outcome.settled, /Maximum total timeout exceeded/);
      assert.deepEqual(outcome.errors, []);
      assert.equal(dispatchStats(client).lateResponses, 1);
      // Stock with the same two messages one per read: the second is an unknown id.
      const withStock = (await play(stock, [(r) => [progressFor(r)], (r) => [resultFor(r)]], drain)).outcome;
      assert.equal(withStock.errors.length, 1);
      assert.ok(withStock.errors[0].startsWith(UNKNOWN_ID));
    });

    test('two calls cross maxTotalTimeout in one read: both responses in it are dropped, a third read\'s duplicate is reported', async () => {
      const transport = new ScriptedTransport();
      const client = new patched.Client({ name: 'late-response', version: '1.0.0' });
      const errors = [];
      client.onerror = (e) => errors.push(e.message);
      await client.connect(transport);
      const options = { onprogress: () => {}, resetTimeoutOnProgress: true, maxTotalTimeout: 50, timeout: 1_500 };
      const calls = [callTool(patched, client, { name: 'a', arguments: {} }, options), callTool(patched, client, { name: 'b', arguments: {} }, options)];
      for (const c of calls) c.catch(() => {});
      const requests = [await transport.nextRequest('tools/call'), await transport.nextRequest('tools/call')];
      await sleep(150);
      for (const r of requests) transport.onmessage(progressFor(r));
      for (const r of requests) transport.onmessage(errorFor(r));
      await drain();
      assert.deepEqual(errors, []);
      transport.onmessage(errorFor(requests[0]));
      assert.equal(errors.length, 1);
      assert.ok(errors[0].startsWith(UNKNOWN_ID));
      assert.equal(dispatchStats(client).lateResponses, 2);
      await client.close();
    });
  });
}
