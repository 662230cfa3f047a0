// Fixture project for test/register/runners.test.mjs: a user's own test, run by
// Vitest with `setupFiles: ['mcp-ordered-dispatch/register']`
// (vitest.config.mjs). It checks for the lost-progress bug for real, so it
// passes only when the SDK is patched.
import { test, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { rawServerCommand, tapWire } from 'mcp-ordered-dispatch/testing';

test('progress sent in the same write as the response is not lost', async () => {
  const client = new Client({ name: 'vitest-fixture', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error.message);
  const tap = tapWire(client);
  await client.connect(new StdioClientTransport(rawServerCommand({ mode: 'all-in-one', progress: 3 })));
  try {
    const seen = [];
    const result = await client.callTool({ name: 'progress', arguments: {} }, {
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
