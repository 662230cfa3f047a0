// The patch is at the Protocol level, so it covers every transport. Measured
// with the SDK's own client transports against a real SDK server on
// 127.0.0.1 (test/patch/support/transport-server.mjs, started here on a random
// port, stopped after), whose tool sends 5 progress notifications back to
// back and returns: 10 calls per run, stock and patched (install()) each in
// its own child process (test/patch/support/transport-client.mjs).
//
// Stock, legacy SSE loses every notification (each SSE event of a chunk is
// handed over synchronously, so the response runs first), WebSocket loses
// those that arrive in the same read as the response, Streamable HTTP and
// InMemoryTransport lose none. Patched, none loses anything.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { runCommand } from '../support/spawn-node.mjs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = path.join(ROOT, 'test', 'patch', 'support', 'transport-server.mjs');
const CLIENT = path.join(ROOT, 'test', 'patch', 'support', 'transport-client.mjs');
const CALLS = 10;
const COUNT = 5;
// Node 20 has a WebSocket global (which 1.x's WebSocketClientTransport uses) only behind a flag.
const WS_FLAGS = typeof globalThis.WebSocket === 'undefined' ? ['--experimental-websocket'] : [];

const servers = {};

function startServer(sdk) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER, `--sdk=${sdk}`], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the ${sdk}.x server did not start: ${err}`));
    }, 30_000);
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${JSON.parse(line).port}` });
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${sdk}.x server exited with ${code}: ${err}`));
    });
  });
}

before(async () => {
  [servers[1], servers[2]] = await Promise.all([startServer(1), startServer(2)]);
});

after(() => {
  for (const { child } of Object.values(servers)) {
    child.stdin.end();
    child.kill('SIGTERM');
  }
});

async function client(sdk, transport, url, patched) {
  const args = [...(transport === 'websocket' ? WS_FLAGS : []), CLIENT, `--sdk=${sdk}`, `--transport=${transport}`, `--patched=${patched ? 1 : 0}`, `--calls=${CALLS}`, `--count=${COUNT}`];
  if (url) args.push(`--url=${url}`);
  const r = await runCommand(process.execPath, args, { cwd: ROOT });
  if (r.code !== 0) throw new Error(`${sdk}.x ${transport} client exited with ${r.signal ?? r.code}:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// [client SDK, transport, server SDK (null: in-process), stock loss: 'all' | 'some' | 'none']
const CASES = [
  [1, 'sse', 1, 'all'],
  [1, 'streamable-http', 1, 'none'],
  [1, 'websocket', 1, 'some'],
  [1, 'in-memory', null, 'none'],
  // 2.x has no SSE server transport: its SSEClientTransport talks to the 1.x server.
  [2, 'sse', 1, 'all'],
  [2, 'streamable-http', 2, 'none'],
  [2, 'in-memory', null, 'none'],
];

const rows = [];

for (const [sdk, transport, serverSdk, stockLoss] of CASES) {
  const server = serverSdk === null ? 'in-process' : `${serverSdk}.x server`;
  test(`${sdk}.x ${transport} (${server}): stock loses ${stockLoss === 'all' ? 'every' : stockLoss === 'some' ? 'some' : 'no'} back-to-back progress, patched loses none`, async () => {
    const url = serverSdk === null ? undefined : servers[serverSdk].url;
    const [stock, patched] = await Promise.all([client(sdk, transport, url, false), client(sdk, transport, url, true)]);
    rows.push({ sdk, transport, server, stock, patched });
    const expected = CALLS * COUNT;
    for (const run of [stock, patched]) {
      assert.equal(run.progressExpected, expected);
      assert.deepEqual(run.failures, [], JSON.stringify(run));
    }
    assert.equal(stock.patchedClasses, 0);
    if (stockLoss === 'all') {
      assert.equal(stock.lost, expected, JSON.stringify(stock));
      assert.equal(stock.unknownToken, expected, JSON.stringify(stock));
    } else if (stockLoss === 'some') {
      assert.ok(stock.lost > 0, JSON.stringify(stock));
      assert.equal(stock.unknownToken, stock.lost, JSON.stringify(stock));
    } else {
      assert.equal(stock.lost, 0, JSON.stringify(stock));
      assert.equal(stock.onerrorCount, 0, JSON.stringify(stock));
    }
    assert.ok(patched.patchedClasses > 0, 'install() patched the SDK');
    assert.equal(patched.lost, 0, JSON.stringify(patched));
    assert.equal(patched.received, expected, JSON.stringify(patched));
    assert.equal(patched.outOfOrder, 0, JSON.stringify(patched));
    assert.equal(patched.onerrorCount, 0, JSON.stringify(patched));
    // Whatever the SDK reports while closing, patched reports the same.
    assert.deepEqual(patched.onerrorsAtClose, stock.onerrorsAtClose);
  });
}

after(() => {
  const lines = ['| SDK | transport | server | progress sent | lost, stock | lost, patched |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const pct = (n) => `${n} (${Math.round((100 * n) / r.stock.progressExpected)}%)`;
    lines.push(`| ${r.sdk}.x | ${r.transport} | ${r.server} | ${r.stock.progressExpected} | ${pct(r.stock.lost)} | ${pct(r.patched.lost)} |`);
  }
  console.log(`\n${lines.join('\n')}\n`);
});
