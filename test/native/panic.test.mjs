// A Rust panic inside the binding while a real patched Client is connected:
// the panic (the binding's `_testPanic()` hook, called from a callback the
// Dispatcher is delivering, i.e. with dispatch() on the stack) surfaces as a
// JavaScript exception, reaches onerror with the SDK's wording, and leaves
// the process, the connection and the dispatcher's queue working.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { install, dispatcherOf } from 'mcp-ordered-dispatch';

const require = createRequire(import.meta.url);
const { _testPanic } = require('../../lib/native/addon.cjs');
const { loadSdk, callTool } = require('../support/sdk.cjs');
const { ScriptedTransport } = require('../support/scripted-transport.cjs');
const { progress, toolResult } = require('../support/messages.cjs');
const { SERVER_PATH } = require('../support/repro.cjs');

const PANIC = /internal error in _testPanic\(\) \(Rust panic: deliberate test panic\)/;

let installation;
before(() => {
  installation = install();
});
after(() => installation?.uninstall());

for (const generation of [1, 2]) {
  describe(`SDK ${generation}.x`, () => {
    let sdk;
    before(async () => {
      sdk = await loadSdk(generation, 'esm');
    });

    test('over stdio: a panic in an onprogress callback reaches onerror once; the connection keeps working', async () => {
      const client = new sdk.Client({ name: 'panic', version: '1.0.0' });
      const errors = [];
      client.onerror = (error) => errors.push(error.message);
      await client.connect(
        new sdk.StdioClientTransport({ command: process.execPath, args: [SERVER_PATH, '--mode=all-in-one', '--progress=3'], stderr: 'pipe' }),
      );
      const seen = [[], [], []];
      const calls = seen.map((values, i) =>
        callTool(sdk, client, { name: 'progress', arguments: {} }, {
          onprogress: (p) => {
            if (i === 0 && p.progress === 1) _testPanic();
            values.push(p.progress);
          },
        }),
      );
      await Promise.all(calls);
      assert.deepEqual(seen, [[2, 3], [1, 2, 3], [1, 2, 3]]);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.match(errors[0], /^Uncaught error in notification handler: /);
      assert.match(errors[0], PANIC);

      // Same connection, after the panic: everything delivered, no errors.
      const after = [[], [], []];
      await Promise.all(after.map((values) => callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => values.push(p.progress) })));
      assert.deepEqual(after, [[1, 2, 3], [1, 2, 3], [1, 2, 3]]);
      assert.equal(errors.length, 1);
      const stats = dispatcherOf(client).stats();
      assert.equal(stats.refsCreated, stats.refsReleased);
      await client.close();
    });

    test('re-entrant: a callback queues messages, then panics; the queue drains in order and its references are released', async () => {
      const transport = new ScriptedTransport();
      const client = new sdk.Client({ name: 'panic', version: '1.0.0' });
      const errors = [];
      client.onerror = (error) => errors.push(error.message);
      await client.connect(transport);
      const seen = [];
      let request;
      let caught;
      const call = callTool(sdk, client, { name: 'progress', arguments: {} }, {
        onprogress: (p) => {
          seen.push(p.progress);
          if (p.progress !== 1) return;
          const token = request.params._meta.progressToken;
          transport.onmessage(progress(token, 2));
          transport.onmessage(progress(token, 3));
          transport.onmessage(toolResult(request.id));
          assert.equal(dispatcherOf(client).pending, 3);
          try {
            _testPanic(); // caught here...
          } catch (error) {
            caught = error;
          }
          _testPanic(); // ...and not caught here
        },
      });
      request = await transport.nextRequest('tools/call');
      transport.onmessage(progress(request.params._meta.progressToken, 1));
      await call;
      assert.ok(caught instanceof Error);
      assert.match(caught.message, PANIC);
      assert.deepEqual(seen, [1, 2, 3]);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.match(errors[0], PANIC);
      const d = dispatcherOf(client);
      assert.equal(d.pending, 0);
      const stats = d.stats();
      assert.equal(stats.refsCreated, 3);
      assert.equal(stats.refsReleased, 3);
      await client.close();
    });
  });
}
