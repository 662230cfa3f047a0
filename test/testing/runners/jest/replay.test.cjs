// Fixture for test/testing/record-replay.test.mjs: a user's Jest (CommonJS)
// test that replays a committed cassette under every coalescing mode with
// forEachCoalescing, the callback order seen through tapWire. Jest runs it
// with setupFiles register (jest.config.cjs).
const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { forEachCoalescing, tapWire } = require('mcp-ordered-dispatch/testing');

const CASSETTE = path.join(__dirname, '..', '..', 'fixtures', 'raw-progress.ndjson');

test('every coalescing mode of the recorded session gives what separate gives', async () => {
  const results = await forEachCoalescing(CASSETTE, async (serverParams) => {
    const client = new Client({ name: 'jest-fixture', version: '1.0.0' });
    const tap = tapWire(client);
    await client.connect(new StdioClientTransport(serverParams));
    try {
      const seen = [];
      for (let i = 0; i < 2; i++) {
        await client.callTool({ name: 'progress', arguments: { count: 3 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
      }
      await tap.settle();
      return { seen, lost: tap.lostProgress.length, violations: tap.violations() };
    } finally {
      await client.close();
    }
  });
  expect(results.separate.seen).toEqual([1, 2, 3, 1, 2, 3]);
}, 120_000);
