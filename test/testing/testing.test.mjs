// mcp-ordered-dispatch/testing: the raw coalescing server (module, command
// line, and the old test/fixtures path) and the wire tap, on the stock SDK
// (where it must show the misorder and the loss) and patched (where it must
// pass), for Clients of 1.x and 2.x (ESM and CJS builds) and a 2.x Server.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import * as testingEsm from 'mcp-ordered-dispatch/testing';
import { install } from 'mcp-ordered-dispatch';

const require = createRequire(import.meta.url);
const testingCjs = require('mcp-ordered-dispatch/testing');
const { rawServerCommand, startRawServer, tapWire, RAW_SERVER_PATH, RAW_SERVER_MODES, FABRICATED_TOKEN } = testingEsm;
const { loadSdk, FLAVORS, callTool } = require('../support/sdk.cjs');
const { SERVER_PATH } = require('../support/repro.cjs');
const { lineSplitter } = require('../../lib/testing/lines.cjs');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const callProgress = (id, token, count = 2) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'progress', arguments: { count }, _meta: { progressToken: token } },
});

/** Feed lines to a raw server command and collect its stdout lines. */
function talk(args, messages) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, lines: out.trim().split('\n').map((l) => JSON.parse(l)) }));
    child.stdin.end(messages.map((m) => JSON.stringify(m) + '\n').join(''));
  });
}

describe('the raw server', () => {
  test('rawServerCommand: node + the packaged script + options; bad options throw', () => {
    assert.deepEqual(rawServerCommand({ mode: 'all-in-one', progress: 5, gap: 'ping' }), {
      command: process.execPath,
      args: [RAW_SERVER_PATH, '--mode=all-in-one', '--progress=5', '--gap=ping'],
    });
    assert.deepEqual(rawServerCommand().args, [RAW_SERVER_PATH, '--mode=separate']);
    assert.ok(fs.existsSync(RAW_SERVER_PATH));
    assert.equal(path.dirname(RAW_SERVER_PATH), path.join(ROOT, 'lib', 'testing'));
    assert.throws(() => rawServerCommand({ mode: 'everything' }), /unknown mode/);
    assert.throws(() => rawServerCommand({ progress: -1 }), /non-negative integer/);
    assert.throws(() => rawServerCommand({ gap: 'later' }), /gap must be/);
    assert.deepEqual([...RAW_SERVER_MODES], ['separate', 'last-with-response', 'all-in-one', 'terminal-after-result', 'never-issued']);
  });

  test('the ESM and CommonJS entries are one module', () => {
    for (const key of Object.keys(testingCjs)) assert.equal(testingEsm[key], testingCjs[key], key);
    assert.equal(testingEsm.default, testingCjs);
  });

  test('startRawServer on streams: all-in-one writes every progress and the response in ONE write', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const writes = [];
    stdout.on('data', (chunk) => writes.push(chunk.toString('utf8')));
    const done = startRawServer({ stdin, stdout, mode: 'all-in-one' });
    stdin.write(JSON.stringify(initialize) + '\n');
    stdin.end(JSON.stringify(callProgress(2, 'tok', 3)) + '\n');
    await done;
    assert.equal(writes.length, 2, JSON.stringify(writes));
    const last = writes[1].trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(last.map((m) => m.params?.progress ?? `result ${m.id}`), [1, 2, 3, 'result 2']);
    assert.ok(last.slice(0, 3).every((m) => m.params.progressToken === 'tok'));
  });

  test('as a command: `mcp-ordered-dispatch raw-server`, and the old test/fixtures/raw-server.mjs path', async () => {
    assert.equal(SERVER_PATH, path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs'));
    const fixture = await import('../fixtures/raw-server.mjs');
    assert.equal(fixture.startRawServer, startRawServer);
    assert.equal(fixture.FABRICATED_TOKEN, FABRICATED_TOKEN);
    for (const args of [
      [BIN, 'raw-server', '--mode=never-issued', '--progress=1'],
      [SERVER_PATH, '--mode=never-issued', '--progress=1'],
      rawServerCommand({ mode: 'never-issued', progress: 1 }).args,
    ]) {
      const { code, lines } = await talk(args, [initialize, callProgress(2, 7, 1)]);
      assert.equal(code, 0);
      assert.equal(lines[0].result.serverInfo.name, 'raw-progress-server');
      const tokens = lines.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progressToken);
      assert.deepEqual(tokens, [7, FABRICATED_TOKEN]);
      assert.equal(lines.at(-1).result.content[0].text, 'done');
    }
  });
});

/** One Client against the raw server, tapped from before connect; the call's progress and onerrors. */
async function tappedCall(sdk, mode, { tapAfterConnect = false } = {}) {
  const client = new sdk.Client({ name: 'tap-test', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error.message);
  let tap = tapAfterConnect ? undefined : tapWire(client);
  await client.connect(new sdk.StdioClientTransport(rawServerCommand({ mode, progress: 3 })));
  tap ??= tapWire(client);
  const seen = [];
  try {
    await callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
    await tap.settle();
  } finally {
    await client.close();
  }
  return { tap, seen, errors, client };
}

describe('tapWire on a Client', () => {
  for (const { generation, build } of FLAVORS) {
    test(`SDK ${generation}.x ${build.toUpperCase()}: stock shows the misorder and the loss; patched passes`, async () => {
      const sdk = await loadSdk(generation, build);
      const stock = await tappedCall(sdk, 'all-in-one');
      assert.deepEqual(stock.seen, []);
      // Wire: initialize result (#1), progress #2..#4, the call's result (#5).
      assert.deepEqual(stock.tap.inbound.map((e) => e.kind), ['response', 'notification', 'notification', 'notification', 'response']);
      assert.deepEqual(stock.tap.callbacks.map((c) => c.seq), [1, 5, 2, 3, 4]);
      assert.deepEqual(stock.tap.lostProgress.map((c) => c.seq), [2, 3, 4]);
      const problems = stock.tap.violations();
      assert.equal(problems.filter((p) => p.startsWith('out of wire order')).length, 3, problems.join('\n'));
      assert.equal(problems.filter((p) => p.startsWith('progress lost')).length, 3, problems.join('\n'));
      assert.throws(() => stock.tap.assertWireOrder(), (error) => {
        assert.equal(error.name, 'AssertionError');
        assert.match(error.message, /MCP callbacks did not run in wire order/);
        assert.match(error.message, /#2 notifications\/progress \(token 1, progress 1\) ran after the one for #5 response to request 1/);
        return true;
      });

      const installation = install();
      try {
        const patched = await tappedCall(sdk, 'all-in-one');
        assert.deepEqual(patched.seen, [1, 2, 3]);
        assert.deepEqual(patched.errors, []);
        assert.deepEqual(patched.tap.callbacks.map((c) => c.seq), [1, 2, 3, 4, 5]);
        assert.deepEqual(patched.tap.callbacks.map((c) => c.progress ?? '-'), ['-', 'delivered', 'delivered', 'delivered', '-']);
        assert.deepEqual(patched.tap.violations(), []);
        patched.tap.assertWireOrder();
      } finally {
        installation.uninstall();
      }
    });
  }

  test('a token never issued is listed as lost progress but is no violation (patched)', async () => {
    const sdk = await loadSdk(2, 'esm');
    const installation = install();
    try {
      const { tap, seen, errors } = await tappedCall(sdk, 'never-issued');
      assert.deepEqual(seen, [1, 2, 3]);
      assert.equal(errors.length, 1);
      assert.deepEqual(tap.lostProgress.map((c) => c.progressToken), [FABRICATED_TOKEN]);
      // The raw server's pings (the gaps between its writes) are requests the client answered.
      assert.ok(tap.callbacks.some((c) => c.kind === 'request' && c.method === 'ping'));
      assert.deepEqual(tap.violations(), []);
    } finally {
      installation.uninstall();
    }
  });

  test('tapped after connect, it records from then on; untap restores the instance and transport', async () => {
    const sdk = await loadSdk(1, 'cjs');
    const { tap, client } = await tappedCall(sdk, 'all-in-one', { tapAfterConnect: true });
    // The initialize result came before the tap; the call's messages after.
    assert.deepEqual(tap.inbound.map((e) => e.seq), [1, 2, 3, 4]);
    assert.equal(tap.inbound.at(-1).kind, 'response');
    assert.ok(tap.outbound.some((m) => m.method === 'tools/call'));
    assert.ok(tap.violations().length > 0, 'stock: out of order');
    tap.untap();
    tap.untap();
    for (const name of ['connect', '_onresponse', '_onrequest', '_onnotification', 'fallbackNotificationHandler']) {
      const own = Object.getOwnPropertyDescriptor(client, name);
      assert.ok(own === undefined || 'value' in own, name);
    }
    assert.equal(Object.getOwnPropertyDescriptor(client, '_onresponse'), undefined);
    assert.throws(() => tapWire({}), /expected an MCP SDK Client, Server or McpServer/);
  });
});

/** A 2.x Server whose peer answers its ping with 3 progress notifications and the response in one write. */
async function tappedServerPing(sdk) {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const sent = [];
  const linesOf = lineSplitter();
  const waiters = [];
  fromServer.on('data', (chunk) => {
    for (const text of linesOf(chunk)) sent.push(JSON.parse(text));
    for (const w of waiters.splice(0)) w();
  });
  const next = async (match) => {
    for (;;) {
      const found = sent.find(match);
      if (found) return found;
      await new Promise((resolve) => waiters.push(resolve));
    }
  };
  const server = new sdk.Server({ name: 'tap-server', version: '1.0.0' }, { capabilities: {} });
  const errors = [];
  server.onerror = (error) => errors.push(error.message);
  const tap = tapWire(server);
  await server.connect(new StdioServerTransport(toServer, fromServer));
  toServer.write(JSON.stringify(initialize) + '\n');
  await next((m) => m.id === 1);
  toServer.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const seen = [];
  const call = server.request({ method: 'ping' }, { onprogress: (p) => seen.push(p.progress) });
  const ping = await next((m) => m.method === 'ping');
  const token = ping.params._meta.progressToken;
  const progress = (n) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: n, total: 3 } });
  toServer.write([progress(1), progress(2), progress(3), { jsonrpc: '2.0', id: ping.id, result: {} }].map((m) => JSON.stringify(m) + '\n').join(''));
  await call;
  await tap.settle();
  await server.close();
  return { tap, seen, errors };
}

test('tapWire on a 2.x Server: stock shows the loss, patched passes', async () => {
  const sdk = await loadSdk(2, 'esm');
  const stock = await tappedServerPing(sdk);
  assert.deepEqual(stock.seen, []);
  assert.equal(stock.tap.lostProgress.length, 3);
  assert.throws(() => stock.tap.assertWireOrder(), /progress lost/);
  const installation = install();
  try {
    const patched = await tappedServerPing(sdk);
    assert.deepEqual(patched.seen, [1, 2, 3]);
    assert.deepEqual(patched.errors, []);
    // initialize (request), notifications/initialized, 3 progress, the ping's response.
    assert.deepEqual(patched.tap.callbacks.map((c) => c.seq), [1, 2, 3, 4, 5, 6]);
    patched.tap.assertWireOrder();
  } finally {
    installation.uninstall();
  }
});

test('tapWire sees any notification handler run out of wire order (a log message before a response, one read)', async () => {
  const { ScriptedTransport } = require('../support/scripted-transport.cjs');
  const { onLogMessage } = require('../support/sdk.cjs');
  for (const { generation, build } of FLAVORS) {
    const sdk = await loadSdk(generation, build);
    const runOnce = async () => {
      const transport = new ScriptedTransport({ capabilities: { tools: {}, logging: {} } });
      const client = new sdk.Client({ name: 'tap-log', version: '1.0.0' });
      const order = [];
      onLogMessage(sdk, client, (n) => order.push(`log ${n.params.data}`));
      const tap = tapWire(client);
      await client.connect(transport);
      const call = callTool(sdk, client, { name: 'x', arguments: {} }).then(() => order.push('result'));
      const request = await transport.nextRequest('tools/call');
      transport.onmessage({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'first' } });
      transport.onmessage({ jsonrpc: '2.0', id: request.id, result: { content: [] } });
      await call;
      await tap.settle();
      await client.close();
      return { tap, order };
    };
    const label = `${generation}.x ${build}`;
    const stock = await runOnce();
    assert.deepEqual(stock.tap.callbacks.map((c) => c.seq), [1, 3, 2], label);
    assert.match(stock.tap.violations().join('\n'), /the callback for #2 notifications\/message ran after the one for #3 response/, label);
    const installation = install();
    try {
      const patched = await runOnce();
      assert.deepEqual(patched.order, ['log first', 'result'], label);
      assert.deepEqual(patched.tap.callbacks.map((c) => c.seq), [1, 2, 3], label);
      patched.tap.assertWireOrder(label);
    } finally {
      installation.uninstall();
    }
  }
});
