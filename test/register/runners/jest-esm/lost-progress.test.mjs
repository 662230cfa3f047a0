// Fixture project for test/register/runners.test.mjs: a user's own ES module test, run
// by Jest in its ESM mode (--experimental-vm-modules) with
// `setupFiles: ['mcp-ordered-dispatch/register']` (jest.config.cjs). It
// checks for the lost-progress bug for real, so it passes only when the SDK
// (its ES module build, which this test imports) is patched.
import { expect, test } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { rawServerCommand, tapWire } from 'mcp-ordered-dispatch/testing';

test('progress sent in the same write as the response is not lost', async () => {
  const client = new Client({ name: 'jest-esm-fixture', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error.message);
  const tap = tapWire(client);
  await client.connect(new StdioClientTransport(rawServerCommand({ mode: 'all-in-one', progress: 3 })));
  try {
    const seen = [];
    const result = await client.callTool({ name: 'progress', arguments: {} }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    // Says which callback ran out of wire order, and which progress was lost.
    tap.assertWireOrder();
    expect(result.content[0].text).toBe('done');
    expect(seen).toEqual([1, 2, 3]);
    expect(errors).toEqual([]);
  } finally {
    await client.close();
  }
});
