// Fixture project for test/register/runners.test.mjs: a user's own test, run by
// `node --test --import mcp-ordered-dispatch/register`. It checks for the
// lost-progress bug for real, so it passes only when the SDK is patched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { rawServerCommand, tapWire } from 'mcp-ordered-dispatch/testing';

test('progress sent in the same write as the response is not lost', async () => {
  const client = new Client({ name: 'node-test-fixture', version: '1.0.0' });
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
    assert.equal(result.content[0].text, 'done');
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
  }
});
