'use strict';
// Child process of `mcp-ordered-dispatch doctor`: runs the coalescing
// reproduction against ONE SDK build (package × ESM/CJS), stock or patched,
// and prints one line of JSON. Run stock and patched in separate processes,
// so that the two never share a module instance.
//
//   node lib/doctor/probe.cjs '<json: { copy, patched, pairs, progress }>'
//
// Client packages (@modelcontextprotocol/sdk, @modelcontextprotocol/client):
// a real Client + StdioClientTransport against the raw server
// (lib/testing/raw-server.cjs), which writes the progress notifications and
// the response of each call in one write (`all-in-one`), or the last
// progress with the response (`last-with-response`).
// Server package (@modelcontextprotocol/server): a real Server +
// StdioServerTransport whose peer (a raw client, in this process) answers a
// server-to-client request with its progress notifications and the response
// in one write.

const path = require('node:path');
const fs = require('node:fs');
const { PassThrough } = require('node:stream');
const { pathToFileURL } = require('node:url');
const { resolveExport } = require('../discover/discover.cjs');
const { rawServerCommand, UNKNOWN_PROGRESS_TOKEN } = require('../testing/index.cjs');
const { lineSplitter } = require('../testing/lines.cjs');
const { PROGRESS_METHOD } = require('../adapters/common.cjs');

const MODES = ['all-in-one', 'last-with-response'];

// Where each package keeps the classes the reproduction needs (package subpaths).
const ENTRY_POINTS = {
  '@modelcontextprotocol/sdk': { side: 'client', main: './client/index.js', stdio: './client/stdio.js', generation: 1 },
  '@modelcontextprotocol/client': { side: 'client', main: '.', stdio: './stdio', generation: 2 },
  '@modelcontextprotocol/server': { side: 'server', main: '.', stdio: './stdio', generation: 2 },
};

async function loadFile(file, build) {
  return build === 'esm' ? import(pathToFileURL(file).href) : require(file);
}

async function loadEntry(copy, subpath) {
  const pkg = JSON.parse(fs.readFileSync(path.join(copy.root, 'package.json'), 'utf8'));
  const target = resolveExport(pkg, subpath, copy.build === 'esm' ? 'import' : 'require');
  if (!target) throw new Error(`${copy.name}@${copy.version} exports no ${subpath} for its ${copy.build.toUpperCase()} build`);
  return loadFile(path.join(copy.root, target), copy.build);
}

function makeTally() {
  return { calls: 0, progressExpected: 0, progressReceived: 0, lost: 0, onerrors: 0, unknownToken: 0, failures: [], firstErrors: [] };
}

function noteError(tally, error) {
  const message = error?.message ?? String(error);
  tally.onerrors++;
  if (message.startsWith(UNKNOWN_PROGRESS_TOKEN)) tally.unknownToken++;
  if (tally.firstErrors.length < 3) tally.firstErrors.push(message.slice(0, 200));
}

/**
 * Await one call (a failure is noted, not thrown), let deferred handlers run,
 * and count the progress steps 1..progress that reached `seen`.
 */
async function settleCall(call, seen, tally, progress) {
  try {
    await call;
  } catch (error) {
    if (tally.failures.length < 3) tally.failures.push(String(error?.message ?? error));
  }
  await new Promise((resolve) => setImmediate(resolve));
  tally.progressReceived += seen.length;
  for (let step = 1; step <= progress; step++) if (!seen.includes(step)) tally.lost++;
}

/** The side's class (Client or Server) and its stdio transport class, from the copy's entries. */
async function loadSide(copy, entry, side, transport) {
  const Side = (await loadEntry(copy, entry.main))[side];
  const Transport = (await loadEntry(copy, entry.stdio))[transport];
  if (typeof Side !== 'function' || typeof Transport !== 'function') {
    throw new Error(`${copy.name}@${copy.version} has no ${side} or ${transport}`);
  }
  return [Side, Transport];
}

/** A Client or Server whose onerror calls are tallied. */
function tallied(Side, tally) {
  const instance = new Side({ name: 'mcp-ordered-dispatch-doctor', version: '0.0.0' }, { capabilities: {} });
  instance.onerror = (error) => noteError(tally, error);
  return instance;
}

async function clientRun(copy, entry, tally, { pairs, progress }) {
  const [Client, StdioClientTransport] = await loadSide(copy, entry, 'Client', 'StdioClientTransport');
  for (const mode of MODES) {
    for (let pair = 0; pair < pairs; pair++) {
      const client = tallied(Client, tally);
      const transport = new StdioClientTransport({ ...rawServerCommand({ mode, progress }), stderr: 'ignore' });
      try {
        await client.connect(transport);
        const seen = [];
        const params = { name: 'progress', arguments: { count: progress } };
        const options = { timeout: 20_000, onprogress: (p) => seen.push(p.progress) };
        tally.calls++;
        tally.progressExpected += progress;
        await settleCall(entry.generation === 1 ? client.callTool(params, undefined, options) : client.callTool(params, options), seen, tally, progress);
      } finally {
        await client.close().catch(() => {});
      }
    }
  }
}

/** A raw MCP client on the other end of a Server's stdio streams. */
function rawPeer(toServer, fromServer) {
  const linesOf = lineSplitter();
  const waiting = [];
  const queue = [];
  fromServer.on('data', (chunk) => {
    for (const text of linesOf(chunk)) {
      if (text.trim() === '') continue;
      const message = JSON.parse(text);
      const i = waiting.findIndex((w) => w.match(message));
      if (i >= 0) waiting.splice(i, 1)[0].resolve(message);
      else queue.push(message);
    }
  });
  return {
    write(...messages) {
      toServer.write(messages.map((m) => JSON.stringify(m) + '\n').join(''));
    },
    next(match) {
      const i = queue.findIndex(match);
      if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the server sent nothing expected within 10 s')), 10_000);
        waiting.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
  };
}

async function serverRun(copy, entry, tally, { pairs, progress }) {
  const [Server, StdioServerTransport] = await loadSide(copy, entry, 'Server', 'StdioServerTransport');
  for (const mode of MODES) {
    for (let pair = 0; pair < pairs; pair++) {
      const toServer = new PassThrough();
      const fromServer = new PassThrough();
      const server = tallied(Server, tally);
      const peer = rawPeer(toServer, fromServer);
      try {
        await server.connect(new StdioServerTransport(toServer, fromServer));
        peer.write({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw-peer', version: '0.0.0' } },
        });
        await peer.next((m) => m.id === 'init');
        peer.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
        const seen = [];
        tally.calls++;
        tally.progressExpected += progress;
        const options = { timeout: 20_000, onprogress: (p) => seen.push(p.progress) };
        const call = server.request({ method: 'ping' }, ...(entry.generation === 1 ? [undefined, options] : [options]));
        call.catch(() => {});
        const request = await peer.next((m) => m.method === 'ping' && m.id !== undefined);
        const token = request.params?._meta?.progressToken;
        const notes = [];
        for (let step = 1; step <= progress; step++) {
          notes.push({ jsonrpc: '2.0', method: PROGRESS_METHOD, params: { progressToken: token, progress: step, total: progress } });
        }
        const response = { jsonrpc: '2.0', id: request.id, result: {} };
        if (mode === 'all-in-one') {
          peer.write(...notes, response);
        } else {
          for (const note of notes.slice(0, -1)) {
            peer.write(note);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          peer.write(...notes.slice(-1), response);
        }
        await settleCall(call, seen, tally, progress);
      } finally {
        await server.close().catch(() => {});
      }
    }
  }
}

async function probe({ copy, patched, pairs = 2, progress = 3 }) {
  const { patchProtocol, sdkStatus } = require('../patch/protocol.cjs');
  const source = { name: copy.name, version: copy.version, build: copy.build, file: copy.file };
  const result = { patched: Boolean(patched), supported: false };
  let Protocol;
  try {
    ({ Protocol } = await loadFile(copy.file, copy.build));
  } catch (error) {
    return { ...result, reason: `could not be loaded: ${error?.message ?? error}` };
  }
  const status = sdkStatus(Protocol, source);
  if (status instanceof Error) result.reason = status.message;
  else Object.assign(result, { supported: true, generation: status.generation });
  // Its Protocol already runs notification handlers in wire order: patchProtocol leaves it stock.
  if (status.status === 'fixed-upstream') result.fixedUpstream = true;
  // A fork (lib/discover/discover.cjs's forkOf) runs the reproduction of the SDK package whose layout it has.
  const entry = ENTRY_POINTS[copy.forkOf ?? copy.name];
  if (!entry) return { ...result, error: `no reproduction for ${copy.name}` };
  if (patched) {
    if (!result.supported) return { ...result, skipped: true };
    patchProtocol(Protocol, { source });
  }
  const tally = makeTally();
  const run = entry.side === 'client' ? clientRun : serverRun;
  try {
    await run(copy, entry, tally, { pairs, progress });
  } catch (error) {
    return { ...result, side: entry.side, error: String(error?.message ?? error) };
  }
  return { ...result, side: entry.side, ...tally };
}

if (require.main === module) {
  probe(JSON.parse(process.argv[2]))
    .then((result) => {
      process.stdout.write(JSON.stringify(result) + '\n');
    })
    .catch((error) => {
      process.stdout.write(JSON.stringify({ error: String(error?.message ?? error) }) + '\n');
      process.exitCode = 1;
    });
}
