// Record and replay: `mcp-ordered-dispatch record` in front of the
// reference server @modelcontextprotocol/server-everything, replayed to the
// real SDK (1.32.2) under every coalescing mode, stock and with register; the
// in-process recorder and replay over InMemoryTransport and Streamable HTTP.
// Real child processes and the real SDK throughout; every child, server and
// client is stopped in t.after.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  COALESCING_MODES,
  NO_RECORDED_MATCH,
  forEachCoalescing,
  readCassette,
  recordTransport,
  redactCassette,
  replayServerCommand,
  replayTransport,
  tapWire,
} from 'mcp-ordered-dispatch/testing';
import { BIN, ECHO, EVERYTHING, EVERYTHING_VERSION, LONG_CALLS, LONG_RUNNING, ROOT, STEPS, runSession, stdio } from './support/session.mjs';

const require = createRequire(import.meta.url);
const { loadCassette, timeline } = require('../../lib/testing/cassette.cjs');
const { ReplaySession } = require('../../lib/testing/replay-session.cjs');
const { planWrites, rngFor } = require('../../lib/testing/coalesce.cjs');
const SDK_VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'), 'utf8')).version;
const SESSION_SCRIPT = fileURLToPath(new URL('./support/session.mjs', import.meta.url));
const TIMEOUT = 180_000;

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-record-replay-'));
after(() => fs.rmSync(TMP, { recursive: true, force: true }));

/** The lines one side of a cassette (a file, or one read) sent, in order. */
const linesFrom = (cassette, from) => timeline(loadCassette(cassette)).filter((l) => l.from === from);
/** The bytes one side sent, concatenated in order (chunks, or messages as JSON lines). */
const bytesFrom = (cassette, from) => Buffer.concat(linesFrom(cassette, from).map((l) => l.bytes));
/** The messages one side sent, in order (lines that are not JSON left out). */
const messagesFrom = (cassette, from) => linesFrom(cassette, from).filter((l) => l.message !== undefined).map((l) => l.message);

/** A cassette's recorded answers as a replay holds them: the script of a ReplaySession, closed before it sends anything. */
function scriptOf(cassette) {
  const session = new ReplaySession(cassette, {}, { write() {}, turn() {} });
  session.close();
  return session.script;
}

/** Progress is racy against a live server (its last progress and its result often share a read): left out where live runs are compared. */
const withoutProgress = ({ long, lost, ...rest }) => ({ ...rest, long: long.map((l) => l.result) });
const allProgress = Array.from({ length: STEPS }, (_, i) => i + 1);

/** A transport closed in t.after, whatever the test did. */
function stdioFor(t, params) {
  const transport = stdio(params);
  t.after(() => transport.close());
  return transport;
}

/**
 * Spawn a command, feed it `input` (Buffers, one write each; with `lockstep`,
 * each only once stdout has given back as many bytes as were written),
 * collect stdout bytes, stderr, exit. Killed in t.after.
 */
function run(t, command, args, { input = [], lockstep = false, onStdout, cwd = ROOT } = {}) {
  const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const stdout = [];
  let stderr = '';
  let received = 0;
  let echoed = () => {};
  child.stdout.on('data', (chunk) => {
    stdout.push(chunk);
    received += chunk.length;
    echoed();
    onStdout?.(Buffer.concat(stdout), child);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const done = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(stdout), stderr }));
  });
  (async () => {
    let sent = 0;
    for (const chunk of input) {
      child.stdin.write(chunk);
      sent += chunk.length;
      if (lockstep) {
        await new Promise((resolve) => {
          echoed = () => received >= sent && resolve();
          echoed();
        });
      }
    }
    if (input.length > 0) child.stdin.end();
  })();
  return { child, done };
}

// The cassette of one real session through the `record` bin, made once.
const CASSETTE = path.join(TMP, 'everything.ndjson');
let recording;
function recordOnce(t) {
  recording ??= (async () => {
    const direct = await runSession(stdioFor(t, EVERYTHING));
    const proxied = await runSession(stdioFor(t, { command: process.execPath, args: [BIN, 'record', '--out', CASSETTE, '--', EVERYTHING.command, ...EVERYTHING.args] }));
    return { direct, proxied };
  })();
  return recording;
}

test(`record: an SDK ${SDK_VERSION} client through the record bin to server-everything ${EVERYTHING_VERSION} gets what it gets without it, and the cassette replays byte-exactly in recorded mode`, { timeout: TIMEOUT }, async (t) => {
  const { direct, proxied } = await recordOnce(t);
  assert.ok(direct.tools.includes(LONG_RUNNING), `server-everything ${EVERYTHING_VERSION} has no ${LONG_RUNNING} tool: ${direct.tools}`);
  assert.equal(direct.echo.content[0].text, `Echo: ${ECHO}`);
  assert.deepEqual(withoutProgress(proxied), withoutProgress(direct));

  const cassette = readCassette(CASSETTE);
  assert.equal(cassette.header.cassette, 'mcp-ordered-dispatch');
  assert.equal(cassette.header.version, 1);
  assert.equal(cassette.header.level, 'bytes');
  assert.deepEqual([cassette.header.command, ...cassette.header.args], [EVERYTHING.command, ...EVERYTHING.args]);
  assert.ok(!Number.isNaN(Date.parse(cassette.header.recorded)));
  assert.deepEqual(cassette.events.at(-1).exit, { code: 0, signal: null }, 'the proxy recorded the server exit');
  const chunks = cassette.events.filter((e) => e.from);
  assert.ok(chunks.every((e) => typeof e.t === 'number' && Buffer.isBuffer(e.bytes)));
  const calls = messagesFrom(cassette, 'client').filter((m) => m.method === 'tools/call');
  assert.equal(calls.length, 2 + LONG_CALLS);
  const progress = messagesFrom(cassette, 'server').filter((m) => m.method === 'notifications/progress');
  assert.equal(progress.length, STEPS * LONG_CALLS, 'the server sent every progress notification, whatever the client lost');

  // Byte-exact: the recorded client bytes into the replay, in recorded mode;
  // out come exactly the recorded server bytes.
  const { done } = run(t, process.execPath, replayServerCommand(CASSETTE, { coalesce: 'recorded' }).args, { input: [bytesFrom(cassette, 'client')] });
  const replayed = await done;
  assert.equal(replayed.code, 0, replayed.stderr);
  const expected = bytesFrom(cassette, 'server');
  assert.equal(replayed.stdout.length, expected.length);
  assert.ok(replayed.stdout.equals(expected), 'the replay in recorded mode sent exactly the recorded server bytes');
});

test('record: the proxy passes invalid UTF-8 and cut characters through unchanged both ways, forwards stderr, and exits with the server code', { timeout: TIMEOUT }, async (t) => {
  const out = path.join(TMP, 'bytes.ndjson');
  const echo = "process.stdin.on('data', (d) => process.stdout.write(d)); process.stdin.on('end', () => { process.stderr.write('server says bye\\n'); process.exitCode = 3; });";
  const input = [Buffer.from([0xff, 0xfe, 0x7b]), Buffer.from('"é'), Buffer.from('✓').subarray(0, 2), Buffer.from('✓').subarray(2), Buffer.from('"}\n\x00\n')];
  const { done } = run(t, process.execPath, [BIN, 'record', '--out', out, '--', process.execPath, '-e', echo], { input, lockstep: true });
  const r = await done;
  const sent = Buffer.concat(input);
  assert.equal(r.code, 3, r.stderr);
  assert.ok(r.stdout.equals(sent), `the host got back other bytes: ${r.stdout.toString('hex')}`);
  assert.match(r.stderr, /server says bye/);
  const cassette = readCassette(out);
  assert.ok(bytesFrom(cassette, 'client').equals(sent));
  assert.ok(bytesFrom(cassette, 'server').equals(sent));
  assert.ok(cassette.events.some((e) => e.base64 !== undefined), 'a chunk that is not UTF-8 is kept as base64');
  assert.ok(cassette.events.some((e) => e.utf8 !== undefined), 'a chunk that is UTF-8 is kept as text');
  assert.deepEqual(cassette.events.at(-1).exit, { code: 3, signal: null });
  const chunks = (from) => cassette.events.filter((e) => e.from === from).map((e) => e.bytes.toString('hex'));
  assert.deepEqual(chunks('client'), input.map((b) => b.toString('hex')), 'one event per chunk read, with its exact bytes');
  assert.deepEqual(chunks('server'), input.map((b) => b.toString('hex')));
});

test('record: signals go to the server, and the proxy ends as the server does', { timeout: TIMEOUT, skip: process.platform === 'win32' && 'Windows has no signal a process can handle or die of: kill() ends it' }, async (t) => {
  const out = path.join(TMP, 'signal.ndjson');
  const server = "process.on('SIGTERM', () => { process.stdout.write('got SIGTERM\\n', () => process.exit(7)); }); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);";
  let sent = false;
  const { done } = run(t, process.execPath, [BIN, 'record', '--out', out, '--', process.execPath, '-e', server], {
    onStdout: (bytes, child) => {
      if (!sent && bytes.toString().includes('ready\n')) {
        sent = true;
        child.kill('SIGTERM');
      }
    },
  });
  const r = await done;
  assert.equal(r.code, 7, `exit ${r.signal ?? r.code}: ${r.stderr}`);
  assert.equal(r.stdout.toString(), 'ready\ngot SIGTERM\n');
  assert.deepEqual(readCassette(out).events.at(-1).exit, { code: 7, signal: null });

  // A server killed by a signal: the proxy dies of the same signal.
  const killed = run(t, process.execPath, [BIN, 'record', '--out', out, '--', process.execPath, '-e', "process.kill(process.pid, 'SIGKILL')"]);
  const k = await killed.done;
  assert.equal(k.signal, 'SIGKILL', `exit ${k.signal ?? k.code}: ${k.stderr}`);
  assert.deepEqual(readCassette(out).events.at(-1).exit, { code: null, signal: 'SIGKILL' });
});

test('replay to a stock SDK client: separate delivers every progress notification, all-in-one loses them, and forEachCoalescing names the mode', { timeout: TIMEOUT }, async (t) => {
  await recordOnce(t);
  const separate = await runSession(stdioFor(t, replayServerCommand(CASSETTE, { coalesce: 'separate' })));
  for (const call of separate.long) assert.deepEqual(call.progress, allProgress);
  assert.equal(separate.lost, 0);

  const allInOne = await runSession(stdioFor(t, replayServerCommand(CASSETTE, { coalesce: 'all-in-one' })));
  assert.deepEqual(withoutProgress(allInOne), withoutProgress(separate), 'the results themselves still arrive');
  const delivered = allInOne.long.reduce((n, call) => n + call.progress.length, 0);
  t.diagnostic(`stock SDK ${SDK_VERSION}, all-in-one: ${allInOne.lost} of ${STEPS * LONG_CALLS} progress notifications lost, ${delivered} delivered`);
  assert.equal(allInOne.lost, STEPS * LONG_CALLS);
  assert.equal(delivered, 0);

  const error = await forEachCoalescing(CASSETTE, (params) => runSession(stdioFor(t, params)), { modes: ['separate', 'all-in-one'] }).then(
    () => assert.fail('forEachCoalescing passed on a stock client in all-in-one mode'),
    (e) => e,
  );
  assert.equal(error.mode, 'all-in-one');
  assert.match(error.message, /in coalescing mode "all-in-one" the result differs from mode "separate"/);
  assert.ok(error.message.includes(CASSETTE), error.message);
  assert.match(error.message, /progress/, 'the message shows the difference');
  assert.match(error.message, /lost/);
});

test('with register (a child node with --import mcp-ordered-dispatch/register), every coalescing mode gives the result separate gives; without it, the child fails naming the mode', { timeout: TIMEOUT }, async (t) => {
  await recordOnce(t);
  const patched = await run(t, process.execPath, ['--import', 'mcp-ordered-dispatch/register', SESSION_SCRIPT, CASSETTE]).done;
  assert.equal(patched.code, 0, patched.stderr);
  const summary = JSON.parse(patched.stdout.toString());
  assert.equal(summary.ok, true, summary.message);
  assert.deepEqual(summary.modes, ['separate', 'all-in-one', 'last-with-response', 'recorded', 'random:1', 'random:2', 'random:3']);
  for (const mode of summary.modes) {
    assert.equal(summary.results[mode].lost, 0, mode);
    for (const call of summary.results[mode].long) assert.deepEqual(call.progress, allProgress, mode);
  }

  const stock = await run(t, process.execPath, [SESSION_SCRIPT, CASSETTE, 'separate,last-with-response']).done;
  assert.equal(stock.code, 0, stock.stderr);
  const failed = JSON.parse(stock.stdout.toString());
  assert.equal(failed.ok, false);
  assert.equal(failed.mode, 'last-with-response', failed.message);
  assert.match(failed.message, /"last-with-response"/);
});

test('replay rewrites request ids and progress tokens to the live ones, and a request with no recorded match fails clearly', { timeout: TIMEOUT }, async (t) => {
  await recordOnce(t);
  const recordedIds = messagesFrom(CASSETTE, 'client').filter((m) => m.method === 'tools/call').map((m) => m.id);
  let tap;
  const { result, client } = await runSession(stdioFor(t, replayServerCommand(CASSETTE, { coalesce: 'separate' })), {
    extraPing: true,
    keepClient: true,
    onClient: (c) => (tap = tapWire(c)),
  });
  t.after(() => client.close());
  for (const call of result.long) assert.deepEqual(call.progress, allProgress, 'progress came with the live tokens');
  assert.equal(result.lost, 0);
  const liveIds = tap.outbound.filter((m) => m.method === 'tools/call').map((m) => m.id);
  assert.equal(liveIds.length, recordedIds.length);
  for (let i = 0; i < liveIds.length; i++) assert.notEqual(liveIds[i], recordedIds[i], 'the extra ping shifted the live ids');
  const responses = tap.inbound.filter((e) => e.kind === 'response').map((e) => e.id);
  for (const id of liveIds) assert.ok(responses.includes(id), `a response with the live id ${id}`);
  const tokens = new Set(tap.inbound.filter((e) => e.progressToken !== undefined).map((e) => e.progressToken));
  assert.deepEqual([...tokens].sort(), liveIds.slice(2).sort(), 'the progress tokens are the live ones');
  assert.deepEqual(tap.lostProgress, []);

  // One echo too many, and a method the cassette never saw: errors that say so, no hang.
  const extra = await client.callTool({ name: 'echo', arguments: { message: 'again' } }).then(
    () => assert.fail('an unrecorded request was answered'),
    (e) => e,
  );
  assert.ok(extra instanceof McpError, String(extra));
  assert.equal(extra.code, NO_RECORDED_MATCH);
  assert.ok(extra.message.includes(CASSETTE), extra.message);
  assert.match(extra.message, /no recorded match for request tools\/call .*"again".*recorded 4 tools\/call request\(s\), and this is number 5/);
  await assert.rejects(client.listPrompts(), (e) => e.code === NO_RECORDED_MATCH && /prompts\/list/.test(e.message) && /recorded 0/.test(e.message));
  // An unrecorded ping is still answered.
  assert.deepEqual(await client.ping(), {});
});

/** A small SDK server (low-level Server) with one tool that sends `count` progress notifications, then "done". */
function progressServer() {
  const server = new Server({ name: 'progress-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'steps', inputSchema: { type: 'object', properties: { count: { type: 'integer' } } } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const count = request.params.arguments?.count ?? STEPS;
    const progressToken = request.params._meta?.progressToken;
    for (let i = 1; i <= count; i++) {
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: count } });
    }
    return { content: [{ type: 'text', text: `done ${count} ✓` }] };
  });
  return server;
}

async function stepsSession(transport) {
  const client = new Client({ name: 'in-process', version: '1.0.0' });
  let lost = 0;
  client.onerror = (e) => (lost += /unknown token/.test(e.message) ? 1 : 0);
  try {
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    const calls = [];
    for (let i = 0; i < LONG_CALLS; i++) {
      const progress = [];
      const result = await client.callTool({ name: 'steps', arguments: { count: STEPS } }, undefined, { onprogress: (p) => progress.push(p.progress) });
      calls.push({ result, progress });
    }
    return { tools, calls, lost };
  } finally {
    await client.close();
  }
}

function checkStepsReplay(t, file, live) {
  return (async () => {
    const separate = await stepsSession(replayTransport(file, { coalesce: 'separate' }));
    assert.deepEqual(separate, live, 'replayed in separate mode, the stock client gets what it got live');
    for (const call of separate.calls) assert.deepEqual(call.progress, allProgress);
    const allInOne = await stepsSession(replayTransport(readCassette(file), { coalesce: 'all-in-one' }));
    assert.equal(allInOne.lost, STEPS * LONG_CALLS, 'in process too, the stock client loses all-in-one progress');
    const error = await forEachCoalescing(file, (params) => stepsSession(params.transport())).then(
      () => assert.fail('forEachCoalescing passed on a stock client'),
      (e) => e,
    );
    assert.equal(error.mode, 'all-in-one', error.message);
    assert.ok(error.modes.includes('last-with-response'), error.message);
    assert.ok(!error.modes.includes('separate'));
  })();
}

test('in process: recordTransport records an InMemoryTransport session, and replayTransport replays it under every mode', { timeout: TIMEOUT }, async (t) => {
  const file = path.join(TMP, 'in-memory.ndjson');
  const server = progressServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  t.after(() => server.close());
  await server.connect(serverSide);
  const serverFile = path.join(TMP, 'in-memory-server.ndjson');
  recordTransport(serverSide, serverFile, { side: 'server' });
  const live = await stepsSession(recordTransport(clientSide, file));
  assert.deepEqual(live.tools, ['steps']);
  const cassette = readCassette(file);
  // Recorded at either end, the same messages from the same sides.
  const serverEnd = readCassette(serverFile);
  assert.equal(serverEnd.header.side, 'server');
  for (const from of ['client', 'server']) assert.deepEqual(messagesFrom(serverEnd, from), messagesFrom(cassette, from), from);
  assert.equal(cassette.header.level, 'messages');
  assert.equal(cassette.header.transport, 'InMemoryTransport');
  assert.ok(cassette.events.every((e) => e.message !== undefined && (e.from === 'client' || e.from === 'server')));
  assert.equal(messagesFrom(cassette, 'server').filter((m) => m.method === 'notifications/progress').length, STEPS * LONG_CALLS);
  await checkStepsReplay(t, file, live);
});

test('in process over Streamable HTTP (127.0.0.1, port 0): recordTransport on the client transport, replayed with replayTransport', { timeout: TIMEOUT }, async (t) => {
  const file = path.join(TMP, 'http.ndjson');
  const server = progressServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const http = createServer((req, res) => {
    transport.handleRequest(req, res).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await server.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  const url = new URL(`http://127.0.0.1:${http.address().port}/mcp`);
  const live = await stepsSession(recordTransport(new StreamableHTTPClientTransport(url), file));
  assert.deepEqual(live.tools, ['steps']);
  for (const call of live.calls) assert.deepEqual(call.progress, allProgress);
  const cassette = readCassette(file);
  assert.equal(cassette.header.transport, 'StreamableHTTPClientTransport');
  assert.equal(messagesFrom(cassette, 'server').filter((m) => m.method === 'notifications/progress').length, STEPS * LONG_CALLS);
  await checkStepsReplay(t, file, live);
});

test('coalescing modes: separate, all-in-one, last-with-response and recorded cut where they say; random:<seed> cuts inside messages and characters, the same for the same seed', { timeout: TIMEOUT }, async (t) => {
  await recordOnce(t);
  assert.deepEqual([...COALESCING_MODES], ['recorded', 'separate', 'all-in-one', 'last-with-response', 'random']);
  assert.throws(() => replayServerCommand(CASSETTE, { coalesce: 'random' }), /unknown coalescing mode "random"/);
  assert.throws(() => replayTransport(CASSETTE, { coalesce: 'bunched' }), /recorded, separate, all-in-one, last-with-response, random:<seed>/);
  const script = scriptOf(CASSETTE);
  const [long] = script.requests.get('tools/call').filter((a) => a.request.params.name === LONG_RUNNING);
  const kinds = long.lines.map((l) => l.kind);
  assert.deepEqual(kinds, [...Array(STEPS).fill('notification'), 'response']);
  const sizes = (mode, rng) => planWrites(long.lines, mode, rng).map((w) => w.bytes.length);
  const lengths = long.lines.map((l) => l.bytes.length);
  assert.deepEqual(sizes('separate'), lengths);
  assert.deepEqual(sizes('all-in-one'), [lengths.reduce((a, b) => a + b)]);
  assert.deepEqual(sizes('last-with-response'), [...lengths.slice(0, STEPS - 1), lengths[STEPS - 1] + lengths[STEPS]]);
  const recordedChunks = long.lines.flatMap((l) => l.segments.filter((s) => s.chunkStart)).length;
  assert.equal(sizes('recorded').length, recordedChunks);

  const [echo] = script.requests.get('tools/call');
  const cutsOf = (seed) => {
    const writes = planWrites(echo.lines, `random:${seed}`, rngFor(seed));
    const all = Buffer.concat(writes.map((w) => w.bytes));
    assert.ok(all.equals(Buffer.concat(echo.lines.map((l) => l.bytes))), 'random cuts keep every byte');
    let at = 0;
    return writes.slice(0, -1).map((w) => (at += w.bytes.length));
  };
  const bytes = Buffer.concat(echo.lines.map((l) => l.bytes));
  for (const seed of [1, 2, 'x']) {
    const cuts = cutsOf(seed);
    assert.deepEqual(cutsOf(seed), cuts, `random:${seed} cuts the same way twice`);
    assert.ok(cuts.some((c) => c > 0 && c < bytes.length - 1), 'a cut inside the message');
    assert.ok(cuts.some((c) => (bytes[c] & 0xc0) === 0x80), `random:${seed} cuts inside a multi-byte character: ${cuts}`);
  }
  assert.notDeepEqual(cutsOf(1), cutsOf(2));
});

test('redactCassette: a secret in the session is replaced in both directions, and the redacted cassette still replays', { timeout: TIMEOUT }, async (t) => {
  await recordOnce(t);
  const out = path.join(TMP, 'redacted.ndjson');
  const { changed } = redactCassette(CASSETTE, out, (message) => JSON.parse(JSON.stringify(message).replaceAll('secret-4242', '[redacted]')));
  assert.equal(changed, 2, 'the echo request and its response');
  const redacted = readCassette(out);
  assert.equal(redacted.header.redacted, true);
  for (const from of ['client', 'server']) {
    const bytes = bytesFrom(redacted, from);
    assert.ok(!bytes.includes('secret-4242'), `no secret left in what the ${from} sent`);
    assert.ok(bytes.includes('[redacted]'));
  }
  assert.equal(redacted.events.filter((e) => e.from).length, readCassette(CASSETTE).events.filter((e) => e.from).length, 'as many chunks as recorded');
  const replayed = await runSession(stdioFor(t, replayServerCommand(out, { coalesce: 'separate' })));
  assert.equal(replayed.echo.content[0].text, 'Echo: héllo ✓ 𝄞 [redacted]');
  for (const call of replayed.long) assert.deepEqual(call.progress, allProgress);
});

// A user's own test under Vitest and Jest: forEachCoalescing and tapWire on the
// committed cassette test/testing/fixtures/raw-progress.ndjson (made by
// test/testing/support/make-fixture.mjs).
const RUNNERS = path.join(ROOT, 'test', 'testing', 'runners');
function runner(t, args, cwd) {
  const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', CI: '1', RECORD_REPLAY_CACHE: path.join(TMP, 'vitest-cache') };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (output += c));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, output, show: `exit ${signal ?? code}\n${output}` }));
  });
}

test('Vitest and Jest: forEachCoalescing with tapWire passes with setupFiles register, and fails without it naming the mode', { timeout: TIMEOUT }, async (t) => {
  const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const vitest = await runner(t, [VITEST, 'run'], path.join(RUNNERS, 'vitest'));
  assert.equal(vitest.code, 0, vitest.show);
  assert.match(vitest.output, /Tests\s+1 passed \(1\)/, vitest.show);

  const stock = await runner(t, [VITEST, 'run', '--config', 'vitest.stock.config.mjs'], path.join(RUNNERS, 'vitest'));
  assert.equal(stock.code, 1, stock.show);
  assert.match(stock.output, /in coalescing mode "all-in-one" the result differs from mode "separate"/, stock.show);
  assert.match(stock.output, /progress lost: #2 notifications\/progress/, stock.show);

  const jest = await runner(t, [JEST, '--ci', '--watchman=false', '--cacheDirectory', path.join(TMP, 'jest-cache')], path.join(RUNNERS, 'jest'));
  assert.equal(jest.code, 0, jest.show);
  assert.match(jest.output, /Tests:\s+1 passed, 1 total/, jest.show);
});

test("docs/record-replay.md: its JavaScript examples compile with tsc --strict (checkJs) against the package's own types", { timeout: TIMEOUT }, async () => {
  const { compileExamples, compiledExamples } = await import('../support/readme-examples.mjs');
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'record-replay.md'), 'utf8');
  assert.ok(compiledExamples(docs, 'record-replay').length >= 3);
  const { code, output, files } = await compileExamples(docs, 'record-replay');
  assert.equal(code, 0, `tsc --strict on docs/record-replay.md (${files.join(', ')}):\n${output}`);
});

test('a 2.x client (@modelcontextprotocol/client) replays the committed cassette the same way: stock, separate keeps every progress and all-in-one loses them, over stdio and in process', { timeout: TIMEOUT }, async (t) => {
  const { Client: Client2 } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport: Stdio2 } = await import('@modelcontextprotocol/client/stdio');
  const file = path.join(ROOT, 'test', 'testing', 'fixtures', 'raw-progress.ndjson');
  const calls = messagesFrom(file, 'client').filter((m) => m.method === 'tools/call').length;
  const run2 = async (transport) => {
    t.after(() => transport.close());
    const client = new Client2({ name: 'two', version: '1.0.0' });
    let lost = 0;
    client.onerror = (e) => (lost += /unknown token/.test(e.message) ? 1 : 0);
    await client.connect(transport);
    try {
      const seen = [];
      for (let i = 0; i < calls; i++) await client.callTool({ name: 'progress', arguments: { count: 3 } }, { onprogress: (p) => seen.push(p.progress) });
      return { seen, lost };
    } finally {
      await client.close();
    }
  };
  for (const [kind, make] of [['stdio', (coalesce) => new Stdio2(replayServerCommand(file, { coalesce }))], ['in process', (coalesce) => replayTransport(file, { coalesce })]]) {
    assert.deepEqual(await run2(make('separate')), { seen: [1, 2, 3, 1, 2, 3], lost: 0 }, kind);
    assert.deepEqual(await run2(make('all-in-one')), { seen: [], lost: 3 * calls }, kind);
  }
});

test('usage: record and replay say what is missing (exit 2), --help lists them, and a file that is not a cassette is refused', { timeout: TIMEOUT }, async (t) => {
  const noOut = await run(t, process.execPath, [BIN, 'record', '--', process.execPath, '-e', '']).done;
  assert.equal(noOut.code, 2);
  assert.match(noOut.stderr, /record needs --out FILE/);
  const noCommand = await run(t, process.execPath, [BIN, 'record', '--out', path.join(TMP, 'never.ndjson')]).done;
  assert.equal(noCommand.code, 2);
  assert.match(noCommand.stderr, /record needs the server command after --/);
  const missing = await run(t, process.execPath, [BIN, 'record', '--out', path.join(TMP, 'missing.ndjson'), '--', path.join(TMP, 'no-such-server')]).done;
  assert.equal(missing.code, 127, missing.stderr);
  assert.match(missing.stderr, /cannot start/);
  const noCassette = await run(t, process.execPath, [BIN, 'replay']).done;
  assert.equal(noCassette.code, 2);
  assert.match(noCassette.stderr, /replay needs a cassette/);
  const help = await run(t, process.execPath, [BIN, '--help']).done;
  assert.match(help.stdout.toString(), /mcp-ordered-dispatch record --out FILE \[--\] COMMAND/);
  assert.match(help.stdout.toString(), /mcp-ordered-dispatch replay CASSETTE \[--coalesce=MODE\]/);

  const notCassette = path.join(TMP, 'not-a-cassette.ndjson');
  fs.writeFileSync(notCassette, '{"jsonrpc":"2.0"}\n');
  assert.throws(() => readCassette(notCassette), { name: 'CassetteError', message: /not a cassette header/ });
  const bad = await run(t, process.execPath, replayServerCommand(notCassette).args).done;
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not a cassette header/);
});

test("replay sends the recorded server-to-client requests and consumes the client's answers; recorded mode with timing keeps the recorded pauses", { timeout: TIMEOUT }, async () => {
  const file = path.join(ROOT, 'test', 'testing', 'fixtures', 'raw-progress.ndjson');
  const recordedPings = messagesFrom(file, 'server').filter((m) => m.method === 'ping').map((m) => m.id);
  assert.ok(recordedPings.length >= 2, 'the fixture holds the raw server pings');
  const within = [...scriptOf(file).requests.get('tools/call')].reduce((sum, answer) => {
    const writes = planWrites(answer.lines, 'recorded');
    return sum + (writes.at(-1).t - writes[0].t);
  }, 0);
  for (const [coalesce, timing] of [['separate', undefined], ['all-in-one', undefined], ['recorded', 4]]) {
    const client = new Client({ name: 'server-requests', version: '1.0.0' });
    const tap = tapWire(client);
    const started = performance.now();
    try {
      await client.connect(replayTransport(file, { coalesce, timing }));
      for (let i = 0; i < 2; i++) await client.callTool({ name: 'progress', arguments: { count: 3 } }, undefined, { onprogress: () => {} });
      await tap.settle();
    } finally {
      await client.close();
    }
    const elapsed = performance.now() - started;
    const pings = tap.inbound.filter((e) => e.kind === 'request' && e.method === 'ping').map((e) => e.id);
    assert.deepEqual(pings, recordedPings, `${coalesce}: the recorded server's pings reach the client`);
    const answered = tap.outbound.filter((m) => m.result !== undefined && recordedPings.includes(m.id)).map((m) => m.id);
    assert.deepEqual(answered, recordedPings, `${coalesce}: the client answered each (and the replay asked nothing of those answers)`);
    if (timing) assert.ok(elapsed >= within * timing * 0.9, `recorded with timing ${timing}: ${elapsed.toFixed(1)} ms; the recorded pauses add up to ${within.toFixed(1)} ms`);
  }
});
