#!/usr/bin/env node
// A real MCP SDK server over HTTP on 127.0.0.1 (a random port), for
// test/patch/transports.test.mjs. Its one tool, `progress`, sends `count` progress
// notifications back to back (none awaited) and then returns "done": the
// notifications and the response leave the server together.
//
//   node test/patch/support/transport-server.mjs --sdk=1|2
//
// Prints ONE line of JSON, { port }, when it listens; stops on SIGTERM or
// when its stdin closes (the test's process going away). Stock: the server
// side is not what is measured.
//
// --sdk=1 (@modelcontextprotocol/sdk 1.32.2), one Server per connection:
//   GET /sse, POST /messages   legacy SSE (SSEServerTransport)
//   /mcp                       Streamable HTTP (StreamableHTTPServerTransport, with sessions)
//   /ws                        WebSocket (the `ws` package; 1.x has a WebSocket client
//                              transport but no server one: a minimal Transport over the socket)
// --sdk=2 (@modelcontextprotocol/server 2.4.0):
//   /mcp                       Streamable HTTP (WebStandardStreamableHTTPServerTransport)
//   (2.x has no SSE server transport: 2.x's SSEClientTransport is tested against the 1.x server.)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const sdk = Number(args.sdk ?? 1);

async function progressTool(params, notify) {
  const token = params?._meta?.progressToken;
  const count = params?.arguments?.count ?? 5;
  if (token !== undefined) {
    for (let progress = 1; progress <= count; progress++) {
      notify({ method: 'notifications/progress', params: { progressToken: token, progress, total: count } }).catch(() => {});
    }
  }
  return { content: [{ type: 'text', text: 'done' }] };
}

async function v1Server() {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { SSEServerTransport } = await import('@modelcontextprotocol/sdk/server/sse.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { WebSocketServer } = await import('ws');

  const newServer = () => {
    const server = new Server({ name: 'transport-server-1', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'progress', inputSchema: { type: 'object', properties: { count: { type: 'number' } } } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => progressTool(request.params, extra.sendNotification));
    return server;
  };

  const sse = new Map();
  const streamable = new Map();
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    try {
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res);
        sse.set(transport.sessionId, transport);
        res.on('close', () => sse.delete(transport.sessionId));
        await newServer().connect(transport);
      } else if (req.method === 'POST' && url.pathname === '/messages') {
        const transport = sse.get(url.searchParams.get('sessionId'));
        if (!transport) return void res.writeHead(404).end('no such session');
        await transport.handlePostMessage(req, res);
      } else if (url.pathname === '/mcp') {
        const id = req.headers['mcp-session-id'];
        let transport = id === undefined ? undefined : streamable.get(id);
        if (transport === undefined) {
          if (id !== undefined) return void res.writeHead(404).end('no such session');
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sessionId) => streamable.set(sessionId, transport),
          });
          transport.onclose = () => streamable.delete(transport.sessionId);
          await newServer().connect(transport);
        }
        await transport.handleRequest(req, res);
      } else {
        res.writeHead(404).end();
      }
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error?.message ?? error));
    }
  });

  // WebSocket: one Server per socket, over a minimal Transport.
  const wss = new WebSocketServer({ server: httpServer, path: '/ws', handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false) });
  wss.on('connection', (socket) => {
    const transport = {
      async start() {},
      async send(message) {
        socket.send(JSON.stringify(message));
      },
      async close() {
        socket.close();
      },
    };
    socket.on('message', (data) => {
      let message;
      try {
        message = JSON.parse(String(data));
      } catch (error) {
        transport.onerror?.(error);
        return;
      }
      transport.onmessage?.(message);
    });
    socket.on('close', () => transport.onclose?.());
    newServer().connect(transport);
  });
  return httpServer;
}

async function v2Server() {
  const { Server, WebStandardStreamableHTTPServerTransport } = await import('@modelcontextprotocol/server');
  const newServer = () => {
    const server = new Server({ name: 'transport-server-2', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({
      tools: [{ name: 'progress', inputSchema: { type: 'object', properties: { count: { type: 'number' } } } }],
    }));
    server.setRequestHandler('tools/call', (request, ctx) => progressTool({ ...request.params, _meta: ctx.mcpReq._meta ?? request.params?._meta }, ctx.mcpReq.notify));
    return server;
  };
  const sessions = new Map();
  return http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname !== '/mcp') return void res.writeHead(404).end();
      const id = req.headers['mcp-session-id'];
      let transport = id === undefined ? undefined : sessions.get(id);
      if (transport === undefined) {
        if (id !== undefined) return void res.writeHead(404).end('no such session');
        transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
        });
        await newServer().connect(transport);
      }
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(new URL(req.url, `http://${req.headers.host}`), {
        method: req.method,
        headers,
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: hasBody ? 'half' : undefined,
      });
      const response = await transport.handleRequest(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) return void res.end();
      const body = Readable.fromWeb(response.body);
      res.on('close', () => body.destroy());
      body.pipe(res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error?.message ?? error));
    }
  });
}

const server = sdk === 1 ? await v1Server() : await v2Server();
const sockets = new Set();
server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
const stop = () => {
  server.close();
  for (const socket of sockets) socket.destroy();
  setTimeout(() => process.exit(0), 200).unref();
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
