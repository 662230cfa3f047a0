// Fixture project for test/register/runners.test.mjs: a user's own CommonJS test, run
// by Jest with `setupFiles: ['mcp-ordered-dispatch/register']` (jest.config.cjs).
// It checks for the lost-progress bug for real, so it passes only when the
// SDK is patched.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { rawServerCommand, tapWire } = require('mcp-ordered-dispatch/testing');

test('progress sent in the same write as the response is not lost', async () => {
  const client = new Client({ name: 'jest-fixture', version: '1.0.0' });
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
