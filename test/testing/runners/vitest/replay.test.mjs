// Fixture for test/testing/record-replay.test.mjs: a user's Vitest test that
// replays a committed cassette under every coalescing mode with
// forEachCoalescing, the callback order seen through tapWire. It passes only
// when the SDK is patched (vitest.config.mjs: setupFiles register); without
// (vitest.stock.config.mjs) it fails, naming the mode.
import { test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { forEachCoalescing, tapWire } from 'mcp-ordered-dispatch/testing';

const CASSETTE = fileURLToPath(new URL('../../fixtures/raw-progress.ndjson', import.meta.url));

test('every coalescing mode of the recorded session gives what separate gives', async () => {
  await forEachCoalescing(CASSETTE, async (serverParams) => {
    const client = new Client({ name: 'vitest-fixture', version: '1.0.0' });
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
}, 120_000);
