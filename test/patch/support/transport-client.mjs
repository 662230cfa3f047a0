#!/usr/bin/env node
// One client run for test/patch/transports.test.mjs: a real SDK Client over one of
// the SDK's own transports, stock or patched (install() before connecting:
// this process is either), makes `calls` sequential callTool('progress')
// calls, each asking for `count` progress notifications, and prints ONE line
// of JSON: what was expected, received and lost, and every onerror.
//
//   node test/patch/support/transport-client.mjs --sdk=1|2 --transport=sse|streamable-http|websocket|in-memory \
//        [--url=http://127.0.0.1:PORT] --patched=0|1 [--calls=N] [--count=N]
//
// in-memory: the server is an SDK Server in this process
// (InMemoryTransport.createLinkedPair), with the same tool as
// test/patch/support/transport-server.mjs.

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const sdk = Number(args.sdk);
const transportName = args.transport;
const patched = args.patched === '1';
const calls = Number(args.calls ?? 10);
const count = Number(args.count ?? 5);

let installed;
if (patched) {
  const { install } = await import('mcp-ordered-dispatch');
  installed = install();
}

async function inMemoryServer(serverSide) {
  if (sdk === 1) {
    const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
    const { CallToolRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const server = new Server({ name: 'in-memory-server', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => progressTool(request.params, extra.sendNotification));
    await server.connect(serverSide);
    return server;
  }
  const { Server } = await import('@modelcontextprotocol/server');
  const server = new Server({ name: 'in-memory-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', (request, ctx) => progressTool({ ...request.params, _meta: ctx.mcpReq._meta ?? request.params?._meta }, ctx.mcpReq.notify));
  await server.connect(serverSide);
  return server;
}

// The same tool as the HTTP server's: `count` progress notifications back to back, then the result.
async function progressTool(params, notify) {
  const token = params?._meta?.progressToken;
  const n = params?.arguments?.count ?? 5;
  if (token !== undefined) {
    for (let progress = 1; progress <= n; progress++) {
      notify({ method: 'notifications/progress', params: { progressToken: token, progress, total: n } }).catch(() => {});
    }
  }
  return { content: [{ type: 'text', text: 'done' }] };
}

async function makeTransport() {
  const base = args.url;
  if (sdk === 1) {
    switch (transportName) {
      case 'sse':
        return new (await import('@modelcontextprotocol/sdk/client/sse.js')).SSEClientTransport(new URL('/sse', base));
      case 'streamable-http':
        return new (await import('@modelcontextprotocol/sdk/client/streamableHttp.js')).StreamableHTTPClientTransport(new URL('/mcp', base));
      case 'websocket':
        return new (await import('@modelcontextprotocol/sdk/client/websocket.js')).WebSocketClientTransport(new URL('/ws', base.replace(/^http/, 'ws')));
      case 'in-memory': {
        const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await inMemoryServer(serverSide);
        return clientSide;
      }
    }
  } else {
    const client = await import('@modelcontextprotocol/client');
    switch (transportName) {
      case 'sse':
        return new client.SSEClientTransport(new URL('/sse', base));
      case 'streamable-http':
        return new client.StreamableHTTPClientTransport(new URL('/mcp', base));
      case 'in-memory': {
        const [clientSide, serverSide] = client.InMemoryTransport.createLinkedPair();
        await inMemoryServer(serverSide);
        return clientSide;
      }
    }
  }
  throw new Error(`no ${transportName} transport for SDK ${sdk}.x`);
}

const { Client } = sdk === 1 ? await import('@modelcontextprotocol/sdk/client/index.js') : await import('@modelcontextprotocol/client');
const client = new Client({ name: 'transport-client', version: '1.0.0' }, { capabilities: {} });
const onerrors = [];
client.onerror = (error) => onerrors.push(String(error?.message ?? error));
await client.connect(await makeTransport());

let received = 0;
let lost = 0;
let outOfOrder = 0;
const failures = [];
for (let call = 0; call < calls; call++) {
  const seen = [];
  const params = { name: 'progress', arguments: { count } };
  const options = { timeout: 20_000, onprogress: (p) => seen.push(p.progress) };
  try {
    const result = await (sdk === 1 ? client.callTool(params, undefined, options) : client.callTool(params, options));
    if (result?.content?.[0]?.text !== 'done') failures.push(`unexpected result ${JSON.stringify(result)}`);
  } catch (error) {
    failures.push(String(error?.message ?? error));
  }
  // Anything still in flight for this call arrives now, or is lost.
  await new Promise((resolve) => setTimeout(resolve, 5));
  received += seen.length;
  for (let step = 1; step <= count; step++) if (!seen.includes(step)) lost++;
  if (seen.some((v, i) => v !== i + 1)) outOfOrder++;
}
// What the SDK reports while closing (2.x Streamable HTTP aborts its GET stream: "This operation
// was aborted", stock and patched alike) is counted apart.
const duringCalls = onerrors.length;
await client.close().catch(() => {});

process.stdout.write(
  JSON.stringify({
    sdk,
    transport: transportName,
    patched,
    patchedClasses: installed ? installed.patched.length : 0,
    calls,
    progressExpected: calls * count,
    received,
    lost,
    outOfOrder,
    onerrorCount: duringCalls,
    unknownToken: onerrors.filter((m) => m.startsWith('Received a progress notification for an unknown token')).length,
    onerrors: onerrors.slice(0, 3),
    onerrorsAtClose: onerrors.slice(duringCalls),
    failures: failures.slice(0, 3),
  }) + '\n',
);
process.exit(0);
