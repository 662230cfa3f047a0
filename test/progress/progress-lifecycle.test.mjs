// The progress-token lifecycle (1.x and 2.x): progress after its request
// finished is silent, a token never issued still errors with the SDK's text,
// and every retire point is covered. Messages are delivered by calling
// transport.onmessage, as a transport does after a read.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { install, configure, dispatchStats } from 'mcp-ordered-dispatch';
import { runReproChild } from '../support/run-repro.mjs';

const require = createRequire(import.meta.url);
const { loadSdk, callTool } = require('../support/sdk.cjs');
const { ScriptedTransport } = require('../support/scripted-transport.cjs');
const { progress, toolResult: result } = require('../support/messages.cjs');
const { SERVER_PATH } = require('../support/repro.cjs');

const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token: ';
/** The token named by the SDK's own "unknown token" error text, or undefined if it is not that error. */
function unknownToken(message) {
  if (!message.startsWith(UNKNOWN_TOKEN)) return undefined;
  return JSON.parse(message.slice(UNKNOWN_TOKEN.length)).params.progressToken;
}
const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let installation;
const late = [];
before(() => {
  installation = install({ onLateProgress: (n) => late.push(n) });
});
after(() => installation.uninstall());

async function connected(sdk, options) {
  const transport = new ScriptedTransport(options);
  const client = new sdk.Client({ name: 'lifecycle', version: '1.0.0' });
  const errors = [];
  client.onerror = (e) => errors.push(e.message);
  await client.connect(transport);
  return { client, transport, errors };
}

/** Start a call with onprogress; resolve its request message and the values seen. */
async function startCall(sdk, client, transport, options = {}) {
  const seen = [];
  const call = callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress), ...options });
  call.catch(() => {});
  const request = await transport.nextRequest('tools/call');
  return { call, request, token: request.params._meta.progressToken, seen };
}

for (const generation of [1, 2]) {
  describe(`SDK ${generation}.x`, () => {
    let sdk;
    before(async () => {
      sdk = await loadSdk(generation, 'esm');
    });

    test('progress before the response is delivered; after it, silent; a never-issued id errors', async () => {
      const { client, transport, errors } = await connected(sdk);
      const { call, request, token, seen } = await startCall(sdk, client, transport);
      late.length = 0;
      transport.onmessage(progress(token, 1));
      transport.onmessage(result(request.id));
      transport.onmessage(progress(token, 2)); // after the response, same read
      await call;
      await tick();
      assert.deepEqual(seen, [1]);
      assert.deepEqual(errors, []);
      assert.equal(late.length, 1, 'handed to onLateProgress');
      assert.equal(late[0].params.progress, 2);

      // Never issued: a number, a string Number() turns into NaN, and the id of a request sent without onprogress.
      const plain = callTool(sdk, client, { name: 'progress', arguments: {} });
      const plainRequest = await transport.nextRequest('tools/call');
      for (const bad of [progress(999, 1), progress('fabricated-token', 1), progress(plainRequest.id, 1)]) {
        transport.onmessage(bad);
      }
      transport.onmessage(result(plainRequest.id));
      await plain;
      await tick();
      assert.equal(errors.length, 3);
      assert.deepEqual(errors.map(unknownToken), [999, 'fabricated-token', plainRequest.id]);
      const stats = dispatchStats(client);
      assert.equal(stats.late, 1);
      assert.equal(stats.unknownToken, 3);
      await client.close();
    });

    test('late progress after an abort is silent', async () => {
      const { client, transport, errors } = await connected(sdk);
      const controller = new AbortController();
      const { call, token } = await startCall(sdk, client, transport, { signal: controller.signal });
      controller.abort('user gave up');
      await assert.rejects(call);
      transport.onmessage(progress(token, 1));
      await tick();
      assert.deepEqual(errors, []);
      assert.equal(dispatchStats(client).late, 1);
      await client.close();
    });

    test('late progress after the request timeout is silent', async () => {
      const { client, transport, errors } = await connected(sdk);
      const { call, token } = await startCall(sdk, client, transport, { timeout: 20 });
      await assert.rejects(call, /timed out/i);
      transport.onmessage(progress(token, 1));
      await tick();
      assert.deepEqual(errors, []);
      assert.equal(dispatchStats(client).late, 1);
      await client.close();
    });

    test('progress crossing maxTotalTimeout rejects the call; the response in the same read is dropped quietly', async () => {
      const { client, transport, errors } = await connected(sdk);
      const { call, request, token, seen } = await startCall(sdk, client, transport, {
        timeout: 5_000,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 30,
      });
      await sleep(50);
      transport.onmessage(progress(token, 1));
      transport.onmessage(result(request.id));
      await assert.rejects(call, /Maximum total timeout exceeded/);
      transport.onmessage(progress(token, 2));
      await tick();
      assert.deepEqual(seen, []);
      assert.deepEqual(errors, [], 'no "unknown message ID", no "unknown token"');
      const stats = dispatchStats(client);
      assert.equal(stats.lateResponses, 1);
      assert.equal(stats.late, 1);
      await client.close();
    });

    test('eviction at the bound: the oldest tombstone goes, and its late progress errors again', async () => {
      const { client, transport, errors } = await connected(sdk);
      configure(client, { maxTombstones: 2 });
      const tokens = [];
      for (let i = 0; i < 3; i++) {
        const { call, request, token } = await startCall(sdk, client, transport);
        transport.onmessage(result(request.id));
        await call;
        tokens.push(token);
      }
      transport.onmessage(progress(tokens[2], 9));
      transport.onmessage(progress(tokens[1], 9));
      transport.onmessage(progress(tokens[0], 9));
      await tick();
      assert.equal(errors.length, 1);
      assert.equal(unknownToken(errors[0]), tokens[0]);
      const stats = dispatchStats(client);
      assert.equal(stats.tokens.evicted, 1);
      assert.equal(stats.tokens.tombstones, 2);
      await client.close();
    });

    test('closing the connection clears the tombstones', async () => {
      const { client, transport } = await connected(sdk);
      const { call, request } = await startCall(sdk, client, transport);
      transport.onmessage(result(request.id));
      await call;
      assert.equal(dispatchStats(client).tokens.tombstones, 1);
      await client.close();
      assert.equal(dispatchStats(client).tokens.tombstones, 0);
    });

    if (generation === 2) {
      test('a failed send retires the token (2.x)', async () => {
        const { client, transport, errors } = await connected(sdk, { failSend: (m) => m.method === 'tools/call' });
        const { call, token } = await startCall(sdk, client, transport);
        await assert.rejects(call, /send failed/);
        transport.onmessage(progress(token, 1));
        await tick();
        assert.deepEqual(errors, []);
        assert.equal(dispatchStats(client).late, 1);
        await client.close();
      });
    }

    if (generation === 1) {
      test('a task response keeps the token issued until terminal task cleanup (1.x)', async () => {
        const { client, transport, errors } = await connected(sdk);
        const seen = [];
        const call = client.request(
          { method: 'tools/call', params: { name: 'progress', arguments: {} } },
          sdk.types.CreateTaskResultSchema,
          { onprogress: (p) => seen.push(p.progress) },
        );
        const request = await transport.nextRequest('tools/call');
        const token = request.params._meta.progressToken;
        const now = new Date().toISOString();
        transport.onmessage({
          jsonrpc: '2.0',
          id: request.id,
          result: { task: { taskId: 'task-1', status: 'working', ttl: null, createdAt: now, lastUpdatedAt: now } },
        });
        await call;
        transport.onmessage(progress(token, 1)); // the task is still working: delivered
        await tick();
        assert.deepEqual(seen, [1]);
        client._cleanupTaskProgressHandler('task-1'); // the SDK's terminal-status cleanup
        transport.onmessage(progress(token, 2));
        await tick();
        assert.deepEqual(seen, [1]);
        assert.deepEqual(errors, []);
        assert.equal(dispatchStats(client).late, 1);
        await client.close();
      });
    }

    test('a raw stdio server writing a terminal progress after its result: no onerror, the connection stays up', async () => {
      const client = new sdk.Client({ name: 'lifecycle', version: '1.0.0' });
      const errors = [];
      client.onerror = (e) => errors.push(e.message);
      await client.connect(new sdk.StdioClientTransport({ command: process.execPath, args: [SERVER_PATH, '--mode=terminal-after-result'] }));
      for (let i = 0; i < 3; i++) {
        const seen = [];
        const r = await callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
        assert.equal(r.content[0].text, 'done');
        assert.deepEqual(seen, [1, 2, 3]);
        await sleep(30); // the terminal notice arrives
      }
      assert.deepEqual(errors, []);
      assert.equal(dispatchStats(client).late, 3);
      await client.close();
    });
  });
}

test('the same raw server makes the stock SDK report "unknown token" (so the check above can fail)', async () => {
  const [stock, patched] = await Promise.all([
    runReproChild({ sdk: 1, build: 'cjs', patched: false, pairs: 3, mode: 'terminal-after-result' }),
    runReproChild({ sdk: 2, build: 'cjs', patched: true, pairs: 3, mode: 'terminal-after-result' }),
  ]);
  assert.equal(stock.unknownTokenErrors, 3);
  assert.equal(patched.onerrorCount, 0);
  assert.equal(patched.lost, 0);
});
