// The progress fast path is provably equivalent: for plain progress
// notifications the progress logic receives exactly what the SDK's own
// validation returns (same values, same keys in the same order), and anything
// unusual — or a user-replaced handler — takes the SDK's path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { install, dispatchStats } from 'mcp-ordered-dispatch';

const require = createRequire(import.meta.url);
const { loadSdk, callTool } = require('../support/sdk.cjs');
const { ScriptedTransport } = require('../support/scripted-transport.cjs');

install();

/** Deterministic pseudo-random generator (mulberry32). */
function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Progress params for `token`: mostly plain, sometimes with something the fast path must refuse. */
function params(random, token) {
  const p = {};
  const order = ['progressToken', 'progress', 'total', 'message'].sort(() => random() - 0.5);
  for (const key of order) {
    if (key === 'progressToken') p.progressToken = token;
    if (key === 'progress') p.progress = random() < 0.5 ? Math.floor(random() * 100) : random() * 100;
    if (key === 'total' && random() < 0.5) p.total = random() < 0.9 ? 100 : '100';
    if (key === 'message' && random() < 0.5) p.message = random() < 0.9 ? `step ${Math.floor(random() * 9)}` : 7;
  }
  const r = random();
  if (r < 0.05) p._meta = { trace: 'x' };
  else if (r < 0.1) p.extra = true;
  else if (r < 0.12) p.progress = Infinity;
  else if (r < 0.14) delete p.progress;
  return p;
}

for (const generation of [1, 2]) {
  test(`SDK ${generation}.x: the fast path hands _onprogress exactly what the SDK's validation returns`, async () => {
    const sdk = await loadSdk(generation, 'esm');
    const transport = new ScriptedTransport();
    const client = new sdk.Client({ name: 'fast', version: '1.0.0' });
    const errors = [];
    client.onerror = (e) => errors.push(e.message);
    await client.connect(transport);
    const sdkParse =
      generation === 1
        ? (m) => sdk.types.ProgressNotificationSchema.safeParse(m)
        : (m) => {
            const r = client._negotiatedWireCodec().validateNotification('notifications/progress', m);
            return r.ok ? { success: true, data: r.value } : { success: false };
          };
    const received = [];
    const stockOnProgress = client._onprogress;
    client._onprogress = function (n) {
      received.push(JSON.stringify(n));
      return stockOnProgress.call(this, n);
    };
    const call = callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: () => {} });
    const request = await transport.nextRequest('tools/call');
    const token = request.params._meta.progressToken;
    const random = rng(42 + generation);
    let expectedValid = 0;
    const expected = [];
    for (let i = 0; i < 3000; i++) {
      const message = { jsonrpc: '2.0', method: 'notifications/progress', params: params(random, token) };
      const parsed = sdkParse(structuredClone(message));
      if (parsed.success) {
        expectedValid++;
        expected.push(JSON.stringify(parsed.data));
      }
      transport.onmessage(message);
    }
    transport.onmessage({ jsonrpc: '2.0', id: request.id, result: { content: [] } });
    await call;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(received.length, expectedValid);
    assert.deepEqual(received, expected);
    const stats = dispatchStats(client);
    assert.ok(stats.fastProgress > 2000, `most took the fast path: ${stats.fastProgress}`);
    assert.ok(stats.fastProgress < expectedValid, 'the unusual ones did not');
    assert.equal(errors.length, 3000 - expectedValid, 'each invalid one reported by the SDK');
    await client.close();
  });

  test(`SDK ${generation}.x: a user-replaced progress handler never takes the fast path`, async () => {
    const sdk = await loadSdk(generation, 'esm');
    const transport = new ScriptedTransport();
    const client = new sdk.Client({ name: 'fast', version: '1.0.0' });
    await client.connect(transport);
    const seen = [];
    if (generation === 1) client.setNotificationHandler(sdk.types.ProgressNotificationSchema, (n) => seen.push(n.params.progress));
    else client.setNotificationHandler('notifications/progress', (n) => seen.push(n.params.progress));
    transport.onmessage({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 5, progress: 1 } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, [1]);
    assert.equal(dispatchStats(client).fastProgress, 0);
    await client.close();
  });
}
