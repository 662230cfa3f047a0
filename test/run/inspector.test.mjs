// The user's debugger reaches the host, not `run`: NODE_OPTIONS with
// --inspect, --inspect-port, --inspect-brk or --inspect-wait, on Node 20
// (where run starts the host as its child) and Node 24 (where run becomes
// the host by execve), for a host started through setup's function (the
// native launcher: it starts a Node of ours, when it needs one, with the
// flags that keep its inspector shut) and by a typed `run` (npm's shim
// starts run's Node with the user's NODE_OPTIONS alone: Node opens the
// inspector there, and for --inspect-brk and --inspect-wait waits for a
// debugger, before any of run's code; run then closes it at once, so the
// host gets the port, and says so in one line). Each start is bounded: a
// process waiting for a debugger is released over the inspector's own
// protocol (Runtime.runIfWaitingForDebugger) by the test, which checks whose
// it was first; the host prints the inspector URL it has.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { installedNode } from '../../scripts/node-lines.mjs';

const require = createRequire(import.meta.url);
const { nativeLauncher } = require('../../lib/native/launcher.cjs');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-inspector-'));
const HOST = path.join(dir, 'host.cjs');
fs.writeFileSync(HOST, "process.stdout.write(JSON.stringify({ url: require('node:inspector').url() ?? null }) + '\\n');\n");
const cache = path.join(dir, 'cache');
fs.mkdirSync(cache, { mode: 0o700 });
const LISTENING = /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//g;
const OURS = /^mcp-ordered-dispatch run: .*$/gm;

after(() => fs.rmSync(dir, { recursive: true, force: true }));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The inspector targets on `port` (none yet: []). */
async function targets(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(5000) });
    return await response.json();
  } catch {
    return [];
  }
}

/** Release the process waiting for a debugger on `port` (whose target's url must match `whose`), and detach. */
async function release(port, whose, waiting) {
  for (let i = 0; i < 600; i++) {
    const [target] = await targets(port);
    if (target !== undefined && whose.test(target.url)) {
      const socket = new WebSocket(target.webSocketDebuggerUrl);
      await new Promise((resolve, reject) => {
        let sent = false;
        socket.once('open', () => {
          socket.send(JSON.stringify({ id: 1, method: 'Runtime.runIfWaitingForDebugger' }));
          sent = true;
        });
        socket.on('message', (data) => {
          if (JSON.parse(data).id === 1) {
            socket.close();
            resolve();
          }
        });
        socket.once('error', reject);
        // Released, then gone before its answer (run closes its inspector at once): released all the same.
        socket.once('close', () => (sent ? resolve() : reject(new Error(`the inspector on ${port} closed before the test could release ${target.url}`))));
      });
      return target.url;
    }
    if (!waiting()) return undefined;
    await sleep(50);
  }
  throw new Error(`no process waited for a debugger on ${port} with a url like ${whose}`);
}

/**
 * `command args` with NODE_OPTIONS `flag=127.0.0.1:PORT` (--inspect-port: the port alone). `waits`:
 * the urls of those that wait for a debugger, in order. Returns { code, stdout, stderr, port, released }.
 */
async function start(command, args, flag, waits) {
  const port = await freePort();
  const env = { ...process.env, NODE_OPTIONS: flag === '--inspect-port' ? `--inspect-port=${port}` : `${flag}=127.0.0.1:${port}`, MCP_ORDERED_DISPATCH_CACHE_DIR: cache };
  for (const name of ['NODE_TEST_CONTEXT', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
  // Its own process group (POSIX), killed whole at the end: a process still waiting for a debugger
  // after a failed assertion (run's Node, the host) would otherwise hold the pipes and the file open.
  const group = process.platform !== 'win32';
  const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
  let ended = false;
  const closed = new Promise((resolve) => child.once('close', (code, signal) => {
    ended = true;
    resolve(code ?? signal);
  }));
  const kill = () => {
    try {
      if (group) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {} // already gone
  };
  const timer = setTimeout(kill, 30_000);
  try {
    const released = [];
    for (const whose of waits) released.push(await release(port, whose, () => !ended));
    const code = await closed;
    return { code, stdout, stderr, port, released };
  } finally {
    clearTimeout(timer);
    kill();
    child.stdout.destroy();
    child.stderr.destroy();
  }
}

const HOST_URL = /host\.cjs$/;
const RUN_URL = /mcp-ordered-dispatch\.cjs$/;
const FLAGS = ['--inspect', '--inspect-port', '--inspect-brk', '--inspect-wait'];
const waitsFor = (flag) => flag === '--inspect-brk' || flag === '--inspect-wait';

/** The host got the port: it printed its inspector's URL on that port (none for --inspect-port, which opens nothing). */
function assertHostHasPort(r, flag, what) {
  assert.equal(r.code, 0, `${what}: ${r.stderr}`);
  const { url } = JSON.parse(r.stdout.trim().split('\n').pop());
  if (flag === '--inspect-port') assert.equal(url, null, what);
  else assert.match(url, new RegExp(`^ws://127\\.0\\.0\\.1:${r.port}/`), `${what}: ${r.stderr}`);
}

// The Node 24 binary is installed from its Linux package; on Windows both tests skip (so none is looked up).
// This Node is the machine's own line (20 on Linux x64; test:arm64 runs the suite on arm64 Node 22): its row is named by its major.
for (const [line, node] of [[process.versions.node.split('.')[0], process.execPath], ['24', process.platform === 'win32' ? undefined : installedNode('24.22.3')]]) {
  test(`Node ${line}: through setup's function, each inspector flag reaches the host alone: its port, its lines on stderr, nothing of ours waits`, { skip: process.platform === 'win32' && 'the launcher\'s Windows start is not run here (docs/run.md)' }, async () => {
    assert.ok(node, `Node ${line} is installed (node scripts/node-lines.mjs)`);
    for (const flag of FLAGS) {
      // Twice: the first start plans through a Node of ours, the second starts from the plan.
      for (const which of ['planned', 'from its plan']) {
        const what = `Node ${line}, ${flag}, setup's function, ${which}`;
        const r = await start(nativeLauncher(), [`--node=${node}`, `--cli=${BIN}`, `--plans=${cache}`, '--', node, HOST], flag, waitsFor(flag) ? [HOST_URL] : []);
        assertHostHasPort(r, flag, what);
        assert.deepEqual(r.stderr.match(OURS), null, `${what}: nothing of run's on stderr: ${r.stderr}`);
        assert.equal([...r.stderr.matchAll(LISTENING)].length, flag === '--inspect-port' ? 0 : 1, `${what}: the host's lines alone: ${r.stderr}`);
      }
    }
  });

  test(`Node ${line}: a typed run under each inspector flag: the host gets the port; run says the way out in one line`, { skip: node === undefined && process.platform === 'win32' && "the Node 24 here is the Linux package's (test:windows runs this file on Windows Node 24 itself)" }, async () => {
    assert.ok(node, `Node ${line} is installed (node scripts/node-lines.mjs)`);
    for (const flag of FLAGS) {
      const what = `Node ${line}, ${flag}, typed run`;
      // run's own Node waits first (Node's doing, before any of run's code), then the host.
      const r = await start(node, [BIN, 'run', '--', node, HOST], flag, waitsFor(flag) ? [RUN_URL, HOST_URL] : []);
      assertHostHasPort(r, flag, what);
      const ours = r.stderr.match(OURS) ?? [];
      if (flag === '--inspect-port') {
        assert.deepEqual(ours, [], `${what}: ${r.stderr}`);
        continue;
      }
      assert.equal(ours.length, 1, `${what}: ${r.stderr}`);
      assert.match(ours[0], new RegExp(`NODE_OPTIONS holds ${flag}, .*setup HOST.*run -- node ${flag} app\\.js`), what);
      assert.equal([...r.stderr.matchAll(LISTENING)].length, 2, `${what}: Node's lines for run's Node and for the host: ${r.stderr}`);
    }
  });
}
