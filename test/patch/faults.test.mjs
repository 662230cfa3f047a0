// Faults, with the real SDK patched (1.x and 2.x, ESM and CJS builds):
//   - the server process dies in the middle of a call (real stdio);
//   - the transport closes in the middle of a batch (messages delivered in
//     one tick, a close between them);
//   - a handler closes the client while the dispatcher is delivering, with
//     messages queued behind it (re-entrant), and the same over real stdio;
//   - 1,000 concurrent calls with progress over one stdio connection.
// In every case: no crash, no unhandled rejection, pending calls settle with
// the SDK's own connection-closed error, onerror is called a bounded number
// of times (no loop of errors), and the dispatcher's queue ends empty with
// every napi reference it created released.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { install, dispatcherOf, dispatchStats } from 'mcp-ordered-dispatch';

const require = createRequire(import.meta.url);
const { loadSdk, FLAVORS, callTool } = require('../support/sdk.cjs');
const { ScriptedTransport } = require('../support/scripted-transport.cjs');
const { progress, toolResult } = require('../support/messages.cjs');
const { runRepro, SERVER_PATH } = require('../support/repro.cjs');

const FAULT_SERVER = fileURLToPath(new URL('./fixtures/fault-server.mjs', import.meta.url));
const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token';
const UNKNOWN_ID = 'Received a response for an unknown message ID';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


// Anything that escapes to the process is a failure of the test that caused it.
const escaped = [];
const onEscape = (error) => escaped.push(error?.stack ?? String(error));
let installation;
before(() => {
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  installation = install();
});
after(() => {
  installation?.uninstall();
  process.off('unhandledRejection', onEscape);
  process.off('uncaughtException', onEscape);
});

/** The SDK's connection-closed error: 1.x McpError -32000, 2.x SdkError CONNECTION_CLOSED. */
function assertConnectionClosed(sdk, reason) {
  assert.match(String(reason?.message), /Connection closed/);
  assert.equal(reason.code, sdk.generation === 1 ? sdk.types.ErrorCode.ConnectionClosed : 'CONNECTION_CLOSED');
}

function assertDrained(client) {
  const dispatcher = dispatcherOf(client);
  assert.ok(dispatcher, 'the client routed through a dispatcher');
  const stats = dispatcher.stats();
  assert.equal(dispatcher.pending, 0, 'nothing left queued');
  assert.equal(stats.refsCreated, stats.refsReleased, JSON.stringify(stats));
  return stats;
}

async function scriptedClient(sdk) {
  const transport = new ScriptedTransport();
  const client = new sdk.Client({ name: 'faults', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error.message);
  await client.connect(transport);
  return { client, transport, errors };
}

/** onerror stays quiet once the fault has played out: no loop of errors. */
async function assertNoErrorLoop(errors) {
  const count = errors.length;
  await sleep(150);
  assert.equal(errors.length, count, `onerror kept being called: ${JSON.stringify(errors.slice(count))}`);
}

for (const flavor of FLAVORS) {
  describe(`SDK ${flavor.generation}.x ${flavor.build.toUpperCase()}`, () => {
    let sdk;
    before(async () => {
      sdk = await loadSdk(flavor.generation, flavor.build);
    });
    after(() => assert.deepEqual(escaped, [], 'nothing escaped to the process'));

    test('the server process dies in the middle of a call: pending calls reject with connection closed, once', async () => {
      const client = new sdk.Client({ name: 'faults', version: '1.0.0' });
      const errors = [];
      let closes = 0;
      client.onerror = (error) => errors.push(error.message);
      client.onclose = () => closes++;
      // SIGKILLs itself right after writing its first progress notification.
      await client.connect(
        new sdk.StdioClientTransport({ command: process.execPath, args: [FAULT_SERVER, '--die-after-progress=1', '--mode=separate'], stderr: 'pipe' }),
      );
      const seen = [];
      const calls = Array.from({ length: 5 }, () =>
        callTool(sdk, client, { name: 'progress', arguments: { count: 3 } }, { timeout: 10_000, onprogress: (p) => seen.push(p.progress) }),
      );
      const outcomes = await Promise.allSettled(calls);
      for (const outcome of outcomes) {
        assert.equal(outcome.status, 'rejected');
        assertConnectionClosed(sdk, outcome.reason);
      }
      assert.deepEqual(seen, [1], 'the progress written before the crash was delivered');
      assert.equal(closes, 1);
      await assertNoErrorLoop(errors);
      // At most the transport's own write error (EPIPE) if the client was writing as the server died.
      assert.ok(errors.length <= 1 && errors.every((m) => /EPIPE|ECONNRESET/.test(m)), JSON.stringify(errors));
      assertDrained(client);
      await client.close();

      // The process goes on: a new connection works and loses nothing.
      const again = await runRepro({ ...sdk, generation: sdk.generation }, { pairs: 1, concurrency: 3, mode: 'all-in-one' });
      assert.equal(again.lost, 0, JSON.stringify(again));
      assert.equal(again.onerrorCount, 0, JSON.stringify(again.onerrors));
    });

    test('the transport closes in the middle of a batch: messages before the close are delivered, the call rejects', async () => {
      const { client, transport, errors } = await scriptedClient(sdk);
      const seen = [];
      const call = callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
      const request = await transport.nextRequest('tools/call');
      const token = request.params._meta.progressToken;
      // One tick: two notifications, the close, then the rest of the read.
      transport.onmessage(progress(token, 1));
      transport.onmessage(progress(token, 2));
      transport.close();
      transport.onmessage(progress(token, 3));
      transport.onmessage(toolResult(request.id));
      await assert.rejects(call, (reason) => {
        assertConnectionClosed(sdk, reason);
        return true;
      });
      assert.deepEqual(seen, [1, 2], 'in wire order: what came before the close was handled before it');
      // What arrived after the close meets a closed connection: the SDK's own
      // "unknown" errors, one per message (the stock SDK reports all four).
      assert.equal(errors.length, 2, JSON.stringify(errors));
      assert.ok(errors[0].startsWith(UNKNOWN_TOKEN));
      assert.ok(errors[1].startsWith(UNKNOWN_ID));
      await assertNoErrorLoop(errors);
      assertDrained(client);
    });

    test('a handler closes the client while dispatching, with messages queued behind it', async () => {
      const { client, transport, errors } = await scriptedClient(sdk);
      const seen = [];
      let request;
      let closing;
      const call = callTool(sdk, client, { name: 'progress', arguments: {} }, {
        onprogress: (p) => {
          seen.push(p.progress);
          if (p.progress !== 1) return;
          // Delivered re-entrantly (as InMemoryTransport does): they wait in
          // the dispatcher's queue behind this callback...
          const token = request.params._meta.progressToken;
          transport.onmessage(progress(token, 2));
          transport.onmessage(progress(token, 3));
          transport.onmessage(toolResult(request.id));
          assert.equal(dispatcherOf(client).pending, 3);
          // ...and the handler closes the connection before returning.
          closing = client.close();
        },
      });
      request = await transport.nextRequest('tools/call');
      transport.onmessage(progress(request.params._meta.progressToken, 1));
      await closing;
      // Wire order: the close came before the queued response.
      await assert.rejects(call, (reason) => {
        assertConnectionClosed(sdk, reason);
        return true;
      });
      assert.deepEqual(seen, [1]);
      // The queued messages meet a closed connection: the SDK's own errors, one each.
      assert.equal(errors.length, 3, JSON.stringify(errors));
      assert.ok(errors[0].startsWith(UNKNOWN_TOKEN) && errors[1].startsWith(UNKNOWN_TOKEN), JSON.stringify(errors));
      assert.ok(errors[2].startsWith(UNKNOWN_ID), JSON.stringify(errors));
      await assertNoErrorLoop(errors);
      const stats = assertDrained(client);
      assert.equal(stats.refsCreated, 3, 'the three re-entrant messages were queued (napi references)');

      // The same Client connects again and works.
      const fresh = new ScriptedTransport();
      await client.connect(fresh);
      const values = [];
      const second = callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => values.push(p.progress) });
      const next = await fresh.nextRequest('tools/call');
      const token = next.params._meta.progressToken;
      fresh.onmessage(progress(token, 1));
      fresh.onmessage(progress(token, 2));
      fresh.onmessage(progress(token, 3));
      fresh.onmessage(toolResult(next.id));
      await second;
      assert.deepEqual(values, [1, 2, 3]);
      await client.close();
    });

    test('over stdio: an onprogress that closes the client, with the rest of the read behind it', async () => {
      const client = new sdk.Client({ name: 'faults', version: '1.0.0' });
      const errors = [];
      client.onerror = (error) => errors.push(error.message);
      await client.connect(
        new sdk.StdioClientTransport({ command: process.execPath, args: [SERVER_PATH, '--mode=all-in-one', '--progress=3'], stderr: 'pipe' }),
      );
      let closing;
      const seen = [];
      const calls = Array.from({ length: 4 }, () =>
        callTool(sdk, client, { name: 'progress', arguments: {} }, {
          timeout: 10_000,
          onprogress: (p) => {
            seen.push(p.progress);
            closing ??= client.close();
          },
        }),
      );
      const outcomes = await Promise.allSettled(calls);
      await closing;
      // Each call settles: answered by what was already read, or rejected by the close.
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') assertConnectionClosed(sdk, outcome.reason);
      }
      assert.ok(seen.length >= 1);
      await assertNoErrorLoop(errors);
      assert.ok(errors.every((m) => m.startsWith(UNKNOWN_TOKEN) || m.startsWith(UNKNOWN_ID)), JSON.stringify(errors));
      assertDrained(client);
    });
  });
}

for (const generation of [1, 2]) {
  test(`SDK ${generation}.x: 1,000 concurrent calls with progress over one stdio connection — all resolve, none lost`, async () => {
    const sdk = await loadSdk(generation, generation === 1 ? 'esm' : 'cjs');
    let stats;
    const OriginalClient = sdk.Client;
    // Keep a handle on the client to read its dispatcher's figures.
    class Client extends OriginalClient {
      async close() {
        stats = dispatchStats(this);
        return super.close();
      }
    }
    const result = await runRepro({ Client, StdioClientTransport: sdk.StdioClientTransport, generation }, {
      pairs: 1,
      concurrency: 1000,
      mode: 'all-in-one',
      progress: 3,
    });
    assert.equal(result.calls, 1000);
    assert.equal(result.callsFailed, 0, JSON.stringify(result.failures));
    assert.equal(result.lost, 0, JSON.stringify(result));
    assert.equal(result.progressReceived, 3000);
    assert.equal(result.callsOutOfOrder, 0);
    assert.equal(result.onerrorCount, 0, JSON.stringify(result.onerrors));
    assert.equal(stats.notifications, 3000);
    assert.equal(stats.tokens.active, 0);
  });
}
