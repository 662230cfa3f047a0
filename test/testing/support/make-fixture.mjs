// Records test/testing/fixtures/raw-progress.ndjson, the committed cassette
// the runner fixtures (test/testing/runners/) replay: an SDK client through
// `mcp-ordered-dispatch record` to the raw server (lib/testing/raw-server.cjs,
// mode separate: each progress in its own write, a server-to-client ping
// between them). Run from the package root, after a change to the format:
//
//   node test/testing/support/make-fixture.mjs
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const out = 'test/testing/fixtures/raw-progress.ndjson';
const client = new Client({ name: 'fixture', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: 'node',
    args: ['bin/mcp-ordered-dispatch.cjs', 'record', '--out', out, '--', 'node', 'lib/testing/raw-server.cjs', '--mode=separate'],
  }),
);
await client.listTools();
for (let i = 0; i < 2; i++) {
  await client.callTool({ name: 'progress', arguments: { count: 3 } }, undefined, { onprogress: () => {} });
}
await client.close();
console.log(`wrote ${out}`);
