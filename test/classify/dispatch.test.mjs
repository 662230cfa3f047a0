// In-process, deterministic checks against the real SDK (1.x and 2.x, ESM and
// CJS builds): messages are delivered by calling transport.onmessage exactly
// as a transport does after one read, so there is no timing involved.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { install, patchProtocol, dispatcherOf, isPatched } from 'mcp-ordered-dispatch';

const require = createRequire(import.meta.url);
const { loadSdk, FLAVORS, callTool, onLogMessage, onRootsListChanged } = require('../support/sdk.cjs');
const { ScriptedTransport } = require('../support/scripted-transport.cjs');
const { progress, toolResult, logMessage } = require('../support/messages.cjs');

const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token';

async function connectedClient(sdk) {
  const transport = new ScriptedTransport();
  const client = new sdk.Client({ name: 'test-client', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error.message);
  await client.connect(transport);
  return { client, transport, errors };
}

/** One call; three progress notifications and the response delivered in one tick. */
async function progressThenResponseInOneTick(sdk) {
  const { client, transport, errors } = await connectedClient(sdk);
  const seen = [];
  const call = callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
  const request = await transport.nextRequest('tools/call');
  const token = request.params._meta.progressToken;
  transport.onmessage(progress(token, 1));
  transport.onmessage(progress(token, 2));
  transport.onmessage(progress(token, 3));
  transport.onmessage(toolResult(request.id));
  const atResolve = await call.then(() => [...seen]);
  await new Promise((resolve) => setImmediate(resolve));
  await client.close();
  return { atResolve, errors };
}

const tickResults = new Map();
let installation;

before(async () => {
  // Stock first: every flavor, before anything is patched.
  for (const flavor of FLAVORS) {
    const sdk = await loadSdk(flavor.generation, flavor.build);
    tickResults.set(`${flavor.generation}-${flavor.build}`, await progressThenResponseInOneTick(sdk));
  }
  installation = install();
});

after(() => installation?.uninstall());

test('install() patches every SDK build resolvable from the project (npm aliases and a fork included)', () => {
  // Found by the name in their package.json: the version matrix's aliases (sdk-1-oldest, ...) too;
  // and by the SDK's own layout: a fork published under another name (@mcp-use/modelcontextprotocol-sdk).
  const names = installation.patched.map((p) => `${p.name}@${p.version}:${p.build}:${p.generation}`).sort();
  assert.deepEqual(names, [
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4:cjs:1',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4:esm:1',
    '@modelcontextprotocol/client@2.0.0:cjs:2',
    '@modelcontextprotocol/client@2.0.0:esm:2',
    '@modelcontextprotocol/client@2.4.0:cjs:2',
    '@modelcontextprotocol/client@2.4.0:esm:2',
    '@modelcontextprotocol/sdk@1.0.0:esm:1',
    '@modelcontextprotocol/sdk@1.2.0:cjs:1',
    '@modelcontextprotocol/sdk@1.2.0:esm:1',
    '@modelcontextprotocol/sdk@1.23.0:cjs:1',
    '@modelcontextprotocol/sdk@1.23.0:esm:1',
    '@modelcontextprotocol/sdk@1.32.2:cjs:1',
    '@modelcontextprotocol/sdk@1.32.2:esm:1',
    '@modelcontextprotocol/server@2.0.0:cjs:2',
    '@modelcontextprotocol/server@2.0.0:esm:2',
    '@modelcontextprotocol/server@2.4.0:cjs:2',
    '@modelcontextprotocol/server@2.4.0:esm:2',
  ]);
  // and their stdio transports, framed natively
  assert.deepEqual(installation.framing.map((t) => `${t.name}@${t.version}:${t.build}:${t.transport}`).sort(), [
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4:cjs:StdioClientTransport',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4:cjs:StdioServerTransport',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4:esm:StdioClientTransport',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4:esm:StdioServerTransport',
    '@modelcontextprotocol/client@2.0.0:cjs:StdioClientTransport',
    '@modelcontextprotocol/client@2.0.0:esm:StdioClientTransport',
    '@modelcontextprotocol/client@2.4.0:cjs:StdioClientTransport',
    '@modelcontextprotocol/client@2.4.0:esm:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.0.0:esm:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.0.0:esm:StdioServerTransport',
    '@modelcontextprotocol/sdk@1.2.0:cjs:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.2.0:cjs:StdioServerTransport',
    '@modelcontextprotocol/sdk@1.2.0:esm:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.2.0:esm:StdioServerTransport',
    '@modelcontextprotocol/sdk@1.23.0:cjs:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.23.0:cjs:StdioServerTransport',
    '@modelcontextprotocol/sdk@1.23.0:esm:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.23.0:esm:StdioServerTransport',
    '@modelcontextprotocol/sdk@1.32.2:cjs:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.32.2:cjs:StdioServerTransport',
    '@modelcontextprotocol/sdk@1.32.2:esm:StdioClientTransport',
    '@modelcontextprotocol/sdk@1.32.2:esm:StdioServerTransport',
    '@modelcontextprotocol/server@2.0.0:cjs:StdioServerTransport',
    '@modelcontextprotocol/server@2.0.0:esm:StdioServerTransport',
    '@modelcontextprotocol/server@2.4.0:cjs:StdioServerTransport',
    '@modelcontextprotocol/server@2.4.0:esm:StdioServerTransport',
  ]);
  // idempotent: a second install finds the same copies already patched
  const again = install();
  assert.equal(again.patched.length, installation.patched.length);
});

for (const flavor of FLAVORS) {
  const label = `SDK ${flavor.generation}.x ${flavor.build.toUpperCase()}`;
  describe(label, () => {
    let sdk;
    before(async () => {
      sdk = await loadSdk(flavor.generation, flavor.build);
    });

    test('stock: progress delivered in the same tick as the response is lost', () => {
      const { atResolve, errors } = tickResults.get(`${flavor.generation}-${flavor.build}`);
      assert.deepEqual(atResolve, []);
      assert.equal(errors.filter((e) => e.startsWith(UNKNOWN_TOKEN)).length, 3);
    });

    test('patched: all progress is delivered, in order, before the call resolves', async () => {
      assert.ok(isPatched(sdk.Protocol));
      const { atResolve, errors } = await progressThenResponseInOneTick(sdk);
      assert.deepEqual(atResolve, [1, 2, 3]);
      assert.deepEqual(errors, []);
    });

    test('handler faults reach onerror with the SDK text, and later messages are still delivered', async () => {
      const { client, transport, errors } = await connectedClient(sdk);
      const logged = [];
      onLogMessage(sdk, client, (n) => {
        const data = n.params.data;
        if (data === 'throw') throw new Error('sync boom');
        if (data === 'reject') return Promise.reject(new Error('async boom'));
        logged.push(data);
      });
      const seen = [];
      const call = callTool(sdk, client, { name: 'progress', arguments: {} }, {
        onprogress: (p) => {
          if (p.progress === 1) throw new Error('progress boom');
          seen.push(p.progress);
        },
      });
      const request = await transport.nextRequest('tools/call');
      const token = request.params._meta.progressToken;
      transport.onmessage(logMessage('throw'));
      transport.onmessage(logMessage('reject'));
      transport.onmessage(progress(token, 1));
      transport.onmessage(logMessage('after'));
      transport.onmessage(progress(token, 2));
      transport.onmessage(toolResult(request.id));
      await call;
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(logged, ['after']);
      assert.deepEqual(seen, [2]);
      assert.deepEqual(errors.sort(), [
        'Uncaught error in notification handler: Error: async boom',
        'Uncaught error in notification handler: Error: progress boom',
        'Uncaught error in notification handler: Error: sync boom',
      ]);
      await client.close();
    });

    test('a message that is not JSON-RPC reaches onerror as the SDK words it; the next one is delivered', async () => {
      const { client, transport, errors } = await connectedClient(sdk);
      const logged = [];
      onLogMessage(sdk, client, (n) => logged.push(n.params.data));
      transport.onmessage({ jsonrpc: '2.0', id: 1.5, result: {} });
      transport.onmessage({ hello: 'world' });
      transport.onmessage(logMessage('next'));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(errors, [
        'Unknown message type: {"jsonrpc":"2.0","id":1.5,"result":{}}',
        'Unknown message type: {"hello":"world"}',
      ]);
      assert.deepEqual(logged, ['next']);
      await client.close();
    });

    test('re-entrant delivery (InMemoryTransport, Client with McpServer) runs callbacks in wire order, to completion', async () => {
      const [clientSide, serverSide] = sdk.InMemoryTransport.createLinkedPair();
      const mcp = new sdk.McpServer({ name: 'test-server', version: '1.0.0' }, { capabilities: { logging: {} } });
      const client = new sdk.Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
      const events = [];
      const errors = [];
      client.onerror = (e) => errors.push(e.message);
      onLogMessage(sdk, client, (n) => {
        events.push(`start ${n.params.data}`);
        // While this callback runs, the server answers synchronously (its
        // handler below sends two messages): they must wait for this callback.
        if (n.params.data === 'A') client.notification({ method: 'notifications/roots/list_changed' });
        events.push(`end ${n.params.data}`);
      });
      onRootsListChanged(sdk, mcp.server, () => {
        mcp.server.notification({ method: 'notifications/message', params: { level: 'info', data: 'B' } });
        mcp.server.notification({ method: 'notifications/message', params: { level: 'info', data: 'C' } });
      });
      await mcp.connect(serverSide);
      await client.connect(clientSide);
      await mcp.server.notification({ method: 'notifications/message', params: { level: 'info', data: 'A' } });
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(events, ['start A', 'end A', 'start B', 'end B', 'start C', 'end C']);
      const stats = dispatcherOf(client).stats();
      assert.ok(stats.maxQueued >= 2, `expected re-entrant messages to be queued, stats: ${JSON.stringify(stats)}`);
      assert.equal(stats.refsCreated, stats.refsReleased);
      assert.deepEqual(errors, []);
      await client.close();
      await mcp.close();
    });

    test('a Server is patched too: its notifications and progress are dispatched in wire order', async () => {
      const [clientSide, serverSide] = sdk.InMemoryTransport.createLinkedPair();
      const server = new sdk.Server({ name: 'test-server', version: '1.0.0' }, { capabilities: {} });
      const events = [];
      onRootsListChanged(sdk, server, () => events.push('roots changed'));
      await server.connect(serverSide);
      assert.ok(dispatcherOf(server), 'the server routes through a Dispatcher');
      const client = new sdk.Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
      await client.connect(clientSide);
      // Delivered straight to the server's transport: the handler has run when onmessage returns.
      serverSide.onmessage({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
      events.push('returned');
      serverSide.onmessage({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
      assert.deepEqual(events, ['roots changed', 'returned', 'roots changed']);

      // Progress for a server->client request, delivered with its response in one tick:
      // the ping is taken off the wire before the client sees it, and answered here.
      const pingArrived = new Promise((resolve) => {
        const original = clientSide.onmessage;
        clientSide.onmessage = (message) => {
          clientSide.onmessage = original;
          resolve(message);
        };
      });
      const seen = [];
      const ping = server.request({ method: 'ping' }, ...(sdk.generation === 1 ? [sdk.types.EmptyResultSchema] : []), {
        onprogress: (p) => seen.push(p.progress),
      });
      const pingMessage = await pingArrived;
      const token = pingMessage.params._meta.progressToken;
      serverSide.onmessage(progress(token, 1, 1));
      serverSide.onmessage({ jsonrpc: '2.0', id: pingMessage.id, result: {} });
      await ping;
      assert.deepEqual(seen, [1]);
      await client.close();
      await server.close();
    });
  });
}

test('uninstall() brings stock behaviour back: the loss reappears', async () => {
  const sdk = await loadSdk(1, 'esm');
  const handle = install();
  handle.uninstall();
  try {
    assert.equal(isPatched(sdk.Protocol), false);
    const { atResolve, errors } = await progressThenResponseInOneTick(sdk);
    assert.deepEqual(atResolve, []);
    assert.equal(errors.filter((e) => e.startsWith(UNKNOWN_TOKEN)).length, 3);
  } finally {
    installation = install();
  }
  const { atResolve } = await progressThenResponseInOneTick(sdk);
  assert.deepEqual(atResolve, [1, 2, 3]);
});

test('patchProtocol is idempotent and its unpatch restores the original methods', async () => {
  const sdk = await loadSdk(2, 'cjs');
  installation.uninstall();
  const stock = { connect: sdk.Protocol.prototype.connect, on: sdk.Protocol.prototype._onnotification };
  const unpatch = patchProtocol(sdk.Protocol);
  assert.equal(patchProtocol(sdk.Protocol), unpatch);
  assert.notEqual(sdk.Protocol.prototype._onnotification, stock.on);
  unpatch();
  assert.equal(sdk.Protocol.prototype.connect, stock.connect);
  assert.equal(sdk.Protocol.prototype._onnotification, stock.on);
  installation = install();
});

test("a subclass's own connect() (2.x's Client) is wrapped once a transport hook asks for it, with its name and length, and unpatch restores it", async () => {
  const sdk = await loadSdk(2, 'esm');
  const { beforeConnect } = require('../../lib/patch/protocol.cjs');
  const own = Object.getOwnPropertyDescriptor(sdk.Client.prototype, 'connect');
  assert.equal(typeof own?.value, 'function', "2.x's Client has a connect() of its own");
  installation.uninstall();
  const unpatch = patchProtocol(sdk.Protocol);
  try {
    const hooked = [];
    beforeConnect(sdk.Protocol, (transport) => hooked.push(transport));
    const { client, transport } = await connectedClient(sdk);
    const wrapped = sdk.Client.prototype.connect;
    assert.notEqual(wrapped, own.value);
    assert.deepEqual([wrapped.name, wrapped.length], [own.value.name, own.value.length]);
    assert.equal(hooked[0], transport);
    await client.close();
  } finally {
    unpatch();
    installation = install();
  }
  assert.equal(sdk.Client.prototype.connect, own.value);
});

test('a class that is not a supported SDK Protocol is refused and left untouched', () => {
  class Protocol {
    connect() {}
    _onnotification() {}
  }
  const before = Protocol.prototype._onnotification;
  assert.throws(
    () => patchProtocol(Protocol, { source: { name: '@modelcontextprotocol/sdk', version: '0.4.0', build: 'cjs' } }),
    (error) => error.name === 'UnsupportedSdkError' && /@modelcontextprotocol\/sdk@0\.4\.0 \(CJS build\) is not supported/.test(error.message),
  );
  assert.equal(Protocol.prototype._onnotification, before);
  assert.equal(isPatched(Protocol), false);
});
