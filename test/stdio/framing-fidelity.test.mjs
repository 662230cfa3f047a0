// Drop-in fidelity of native stdio framing, stock against patched, over real
// child processes: each SDK release's own StdioClientTransport spawns
// test/stdio/fixtures/bad-bytes-server.mjs in script mode, which writes the same
// bytes in the same chunks to both (each write is acknowledged over a TCP
// connection on 127.0.0.1 once the transport has read it, so the transport's
// reads are exactly the script's writes, and the two runs see the same
// chunks). For every bad-input class and the 10,000-line generated stream,
// the patched transport must deliver the same onmessage sequence (deep-equal
// objects, interleaved with onerror at the same places), the same number of
// onerror calls (the SDK's own Error text for an overflow), and close the
// same way (the transport closing itself on an overflow, as stock does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generator, rng } from './support/jsonrpc-gen.mjs';

const require = createRequire(import.meta.url);
const { patchStdioTransport } = require('../../lib/patch/transports.cjs');
// Whether a read buffer is one of this package's (either reader): it offers the hand-off.
const { offersHandoff } = require('../../lib/stdio/handoff.cjs');
const { NativeReadBuffer } = require('../../lib/stdio/read-buffer.cjs');
const { ThreadReadBuffer } = require('../../lib/stdio/thread-read-buffer.cjs');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER = path.join(HERE, 'fixtures', 'bad-bytes-server.mjs');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-fidelity-'));
process.on('exit', () => fs.rmSync(TMP, { recursive: true, force: true }));

// Each SDK release's StdioClientTransport; `limit`: whether its ReadBuffer has maxBufferSize.
const SDKS = [
  { name: '@modelcontextprotocol/sdk 1.32.2', generation: 1, limit: true, load: () => import('@modelcontextprotocol/sdk/client/stdio.js') },
  { name: '@modelcontextprotocol/sdk 1.23.0 (sdk-1-middle)', generation: 1, limit: false, load: () => import('sdk-1-middle/client/stdio.js') },
  { name: '@modelcontextprotocol/sdk 1.0.0 (sdk-1-oldest)', generation: 1, limit: false, load: () => import('sdk-1-oldest/client/stdio.js') },
  { name: '@modelcontextprotocol/sdk 1.2.0 CJS build (sdk-1-oldest-cjs)', generation: 1, limit: false, load: async () => require('sdk-1-oldest-cjs/client/stdio.js') },
  { name: '@modelcontextprotocol/client 2.4.0', generation: 2, limit: true, load: () => import('@modelcontextprotocol/client/stdio') },
  { name: '@modelcontextprotocol/client 2.0.0 (client-2-oldest)', generation: 2, limit: true, load: () => import('client-2-oldest/stdio') },
];

// Writes up to PIPE_BUF (4096 bytes) reach the reader whole, in one read.
const MAX_WRITE = 4096;
const LIMIT = 4096;
const TIMEOUT = 20_000;

const b = (x) => (Buffer.isBuffer(x) ? x : Buffer.from(x, 'utf8'));
const cat = (...parts) => Buffer.concat(parts.map(b));
const note = (n, extra = {}) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `note ${n} é😀`, ...extra } }) + '\n';
const bigLine = (size) => {
  const head = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"';
  return head + 'x'.repeat(size - head.length - 4) + '"}}\n';
};
/** Cut `bytes` into writes of `size` bytes. */
const pieces = (bytes, size) => {
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};

// Each case: a list of writes (each one chunk for the reader), valid
// messages before and after the bad bytes.
const CASES = {
  'invalid UTF-8 in a string (Latin-1 é, lone continuation, surrogate, overlong)': [
    note(1),
    cat('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"caf', Buffer.from([0xe9]), ' ', Buffer.from([0xff, 0xfe, 0x80, 0xed, 0xa0, 0x80, 0xc0, 0xaf, 0xf4, 0x90, 0x80, 0x80]), '"}}\n'),
    cat('{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"r', Buffer.from([0xe9]), 'sum', Buffer.from([0xe9]), '"}]}}\n'),
    note(2),
  ],
  'invalid UTF-8 in a key': [note(1), cat('{"jsonrpc":"2.0","method":"notifications/message","params":{"k', Buffer.from([0xe9]), 'y":1,"', Buffer.from([0xc3, 0x28]), '":2}}\n'), cat('{"jsonrpc":"2.0","id":1,"result":{"caf', Buffer.from([0xe9]), '":true}}\n'), note(2)],
  'invalid UTF-8 outside strings (not JSON once decoded)': [note(1), cat('{"jsonrpc":"2.0","method":"m"', Buffer.from([0xff]), '}\n'), note(2)],
  'multi-byte characters cut at chunk boundaries, and truncated at a line end': (() => {
    const line = b(note(7, { text: 'é€😀 日本 👍🏽' }));
    const cuts = [];
    for (let i = 1; i < line.length; i++) if ((line[i] & 0xc0) === 0x80 && cuts.length < 6) cuts.push(i);
    const writes = [];
    let at = 0;
    for (const c of cuts) {
      writes.push(line.subarray(at, c));
      at = c;
    }
    writes.push(line.subarray(at));
    const truncated = cat('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"cut ', Buffer.from([0xf0, 0x9f]));
    const atEnd = cat('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"end ', Buffer.from([0xe2, 0x82]));
    return [note(1), ...writes, truncated, cat(Buffer.from([0x98]), '"}}\n'), atEnd, '"}}\n', note(2)];
  })(),
  'oversized line on its own': [note(1), ...pieces(b(bigLine(LIMIT + 3000)), 1024), note(2), note(3)],
  'oversized line with valid messages around it in the same chunks': (() => {
    const big = b(bigLine(LIMIT + 2500));
    return [
      note(1),
      cat(note(2), note(3), big.subarray(0, 1000)),
      big.subarray(1000, 2000),
      big.subarray(2000, 3000),
      big.subarray(3000, 4000),
      cat(big.subarray(4000), note(5), note(6), b(note(7)).subarray(0, 20)),
      cat(b(note(7)).subarray(20), note(8)),
      note(9),
    ];
  })(),
  // No line over the limit, but the partial line held plus the next chunk is.
  'a partial line plus the next chunk over the limit (no line over it)': (() => {
    const line = b(bigLine(2000));
    return [note(0), cat(note(1), line.subarray(0, 1500)), cat(line.subarray(1500), ...Array.from({ length: 28 }, (_, i) => note(i + 2))), note(40)];
  })(),
  'malformed JSON': [note(1), '{"jsonrpc":"2.0","method":\n', '{oops}\n', '{"jsonrpc":"2.0","method":"m",}\n', "{'a':1}\n", note(2)],
  'valid JSON that is not JSON-RPC': [note(1), '{"jsonrpc":"2.0","id":1.5,"method":"tools/call"}\n', '[{"jsonrpc":"2.0","method":"x"}]\n', '"text"\n', '42\n', 'null\n', '{"jsonrpc":"1.0","method":"m"}\n', '{"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":true}}}\n', note(2)],
  'blank lines': [note(1), '\n', '   \n', '\r\n', '\t \r\n', cat(note(2), '\n\n'), note(3)],
  'CRLF line ends': [note(1).replace('\n', '\r\n'), cat(note(2).replace('\n', '\r'), '\n'), note(3).replace('\n', '\r\r\n'), '\r', '\n', note(4)],
  'NUL bytes': [note(1), '\0\n', '{"jsonrpc":"2.0","method":"m"}\0\n', '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a\0b"}}\n', '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a\\u0000b"}}\n', note(2)],
  'a BOM at the start of the stream': [cat(Buffer.from([0xef, 0xbb, 0xbf]), note(1)), note(2)],
  'a BOM at the start of the stream, in its own chunk': [Buffer.from([0xef, 0xbb]), cat(Buffer.from([0xbf]), note(1)), note(2)],
  'keys the SDK schema drops (error and related-task objects)': [
    note(1),
    '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"boom","data":{"d":1},"extra":true}}\n',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","more":1}}}}\n',
    '{"jsonrpc":"2.0","id":4,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t","more":1}}}}\n',
    note(2),
  ],
};

// What a run leaves open until it ends (its child, its server and socket):
// each test stops them in t.after, so that a test that fails or times out
// leaves nothing that keeps the file's process alive.
const open = new Set();
function stopAll() {
  for (const stop of open) stop();
  open.clear();
}

/**
 * One run: a server on 127.0.0.1 acknowledges the child's writes as the
 * transport reads them. What the transport's callbacks saw.
 */
async function run(Transport, writes, { maxBufferSize }) {
  writes = writes.map(b).filter((w) => w.length > 0);
  for (const w of writes) assert.ok(w.length <= MAX_WRITE, 'a write the pipe delivers whole');
  const boundaries = [];
  let total = 0;
  for (const w of writes) boundaries.push((total += w.length));
  const script = path.join(TMP, `script-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(script, JSON.stringify({ writes: writes.map((w) => w.toString('base64')) }));

  let socket;
  let ready;
  const connected = new Promise((resolve) => (ready = resolve));
  const server = net.createServer((s) => {
    s.on('error', () => {}); // the child may exit before reading our last byte
    socket = s;
    ready();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const transport = new Transport({
    command: process.execPath,
    args: [SERVER, `--script=${script}`, `--ack=${server.address().port}`],
    ...(maxBufferSize !== undefined ? { maxBufferSize } : {}),
    stderr: 'inherit',
  });
  const seen = { events: [], errors: 0, selfCloses: 0, closes: 0, native: false };
  let closed;
  const onclose = new Promise((resolve) => (closed = resolve));
  transport.onmessage = (m) => seen.events.push(m);
  transport.onerror = (e) => {
    seen.errors++;
    // The same error as stock: class and text (the SDK's own parse of the
    // line gives the patched transport's errors).
    seen.events.push(`onerror: ${e.name}: ${e.message}`);
  };
  transport.onclose = () => {
    seen.closes++;
    closed();
  };
  // The data handler calls this.close() when the transport closes itself.
  const close = transport.close.bind(transport);
  let ours = false;
  transport.close = () => {
    if (!ours) seen.selfCloses++;
    return close();
  };
  let child;
  const stop = () => {
    socket?.destroy();
    server.close();
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  open.add(stop);
  try {
    await transport.start();
    // close() forgets the process: keep it, to know when it is gone and to stop it.
    child = transport._process;
    const gone = new Promise((resolve) => child.once('close', resolve));
    seen.native = offersHandoff(transport._readBuffer);
    seen.reader = transport._readBuffer?.constructor?.name;
    let received = 0;
    let next = 0;
    let done;
    const allRead = new Promise((resolve) => (done = resolve));
    // Registered after the transport's own listener: the chunk has been handled.
    transport._process.stdout.on('data', (chunk) => {
      received += chunk.length;
      while (next < writes.length && received >= boundaries[next]) {
        next++;
        socket.write('k');
      }
      if (next === writes.length) done();
    });
    await connected;
    socket.write('g');
    // The SDK's close() stops a child that has not exited 2 s after its
    // stdin ended (a transport that closed itself on an overflow): then the
    // rest of the script is never written. Say so, rather than wait forever.
    if (writes.length > 0) {
      const finished = await Promise.race([allRead.then(() => true), gone.then(() => next === writes.length)]);
      assert.ok(finished, `the child exited after ${next} of ${writes.length} writes were read`);
    }
    const selfCloses = seen.selfCloses;
    ours = true;
    if (seen.closes === 0) await close();
    await onclose;
    seen.selfCloses = selfCloses;
  } finally {
    open.delete(stop);
    socket?.destroy();
    server.close();
  }
  return seen;
}

/**
 * Run every script stock, then every script with the class patched; a few at
 * a time (two children each). The patched reader is the default one (the
 * off-thread reader since 14bfe0e); test/stdio/stdio-thread.test.mjs runs
 * this file again with the others (test/stdio/support/reader-preload.cjs).
 */
async function compareAll(sdk, scripts, { strict = false, maxBufferSize } = {}) {
  const { StdioClientTransport } = await sdk.load();
  const limit = sdk.limit ? (maxBufferSize ?? LIMIT) : undefined;
  const runAll = async () => {
    const out = [];
    for (let i = 0; i < scripts.length; i += 4) out.push(...(await Promise.all(scripts.slice(i, i + 4).map((w) => run(StdioClientTransport, w, { maxBufferSize: limit })))));
    return out;
  };
  const stock = await runAll();
  const unpatch = patchStdioTransport(StdioClientTransport, { strict });
  let patched;
  try {
    patched = await runAll();
  } finally {
    unpatch();
  }
  for (const s of stock) assert.equal(s.native, false);
  for (const p of patched) assert.equal(p.native, true, `the patched transport frames natively (${p.reader})`);
  return scripts.map((_, i) => ({ stock: stock[i], patched: patched[i] }));
}

function assertSame({ stock, patched }, label) {
  assert.deepStrictEqual(patched.events, stock.events, `${label}: onmessage/onerror sequence`);
  assert.equal(patched.errors, stock.errors, `${label}: onerror count`);
  assert.equal(patched.selfCloses, stock.selfCloses, `${label}: the transport closing itself`);
  // onclose: once (1.0-1.23 kill the child on close() and may report it
  // twice, through the AbortError and the exit, stock and patched alike).
  assert.ok(stock.closes >= 1 && patched.closes >= 1, `${label}: onclose`);
  if (stock.closes === 1) assert.equal(patched.closes, 1, `${label}: onclose once`);
}

const messagesOf = (seen) => seen.events.filter((e) => typeof e === 'object');

for (const sdk of SDKS) {
  test(`${sdk.name}: stock and patched StdioClientTransport agree on every bad-input class`, { timeout: 300_000 }, async (t) => {
    t.after(stopAll);
    const names = Object.keys(CASES);
    const pairs = await compareAll(sdk, Object.values(CASES));
    const results = Object.fromEntries(names.map((name, i) => [name, pairs[i]]));
    for (const name of names) assertSame(results[name], name);

    // What stock does, so that the comparison is not vacuous.
    const r = (name) => results[name].stock;
    const utf8 = messagesOf(r('invalid UTF-8 in a string (Latin-1 é, lone continuation, surrogate, overlong)'));
    assert.equal(utf8.length, 4, 'invalid UTF-8 is delivered, not dropped');
    assert.equal(utf8[1].params.data, Buffer.from(CASES[names[0]][1]).toString('utf8').split('"data":"')[1].split('"')[0]);
    assert.match(utf8[1].params.data, /^caf\ufffd \ufffd/);
    assert.equal(utf8[2].result.content[0].text, 'r\ufffdsum\ufffd');
    assert.deepEqual(Object.keys(messagesOf(r('invalid UTF-8 in a key'))[1].params), ['k\ufffdy', '\ufffd(']);
    const cut = messagesOf(r('multi-byte characters cut at chunk boundaries, and truncated at a line end'));
    assert.equal(cut[1].params.text, 'é€😀 日本 👍🏽');
    assert.equal(cut[2].params.data, 'cut \ufffd');
    assert.equal(cut[3].params.data, 'end \ufffd');
    const overflow = `onerror: Error: ReadBuffer exceeded maximum size of ${LIMIT} bytes`;
    const big = r('oversized line on its own');
    if (sdk.limit) {
      assert.ok(big.events.includes(overflow) && big.selfCloses === 1, JSON.stringify(big.events));
      const around = r('oversized line with valid messages around it in the same chunks');
      assert.ok(around.events.includes(overflow) && around.selfCloses === 1);
      // Stock drops the valid messages of the overflowing chunk (4, the tail
      // of the big line, 5, 6, the head of 7): so does patched.
      const data = messagesOf(around).map((m) => m.params.data);
      assert.ok(data.includes('note 3 é😀') && !data.includes('note 5 é😀') && data.includes('note 9 é😀'), JSON.stringify(data));
      assert.ok(r('a partial line plus the next chunk over the limit (no line over it)').events.includes(overflow));
    } else {
      assert.equal(big.errors, 0, 'no limit in this release');
      assert.equal(messagesOf(big).length, 4);
    }
    assert.equal(r('malformed JSON').errors, sdk.generation === 1 ? 4 : 0, 'stock 2.x drops lines that are not JSON');
    assert.equal(r('blank lines').errors, sdk.generation === 1 ? 6 : 0);
    assert.ok(r('valid JSON that is not JSON-RPC').errors >= 6);
    assert.equal(messagesOf(r('CRLF line ends')).length, 4);
    assert.equal(messagesOf(r('a BOM at the start of the stream')).length, 1, 'JSON.parse refuses the BOM');
    if (sdk.name.includes('1.32.2') || sdk.generation === 2) {
      const stripped = messagesOf(r('keys the SDK schema drops (error and related-task objects)'));
      assert.deepEqual(stripped[1].error, { code: -32000, message: 'boom', data: { d: 1 } });
      assert.deepEqual(stripped[2].params._meta['io.modelcontextprotocol/related-task'], { taskId: 't' });
    }
  });
}

// --- a 10,000-line generated stream ----------------------------------------

/**
 * `lines` lines (10,000), valid and invalid, as bytes cut into writes of 1
 * to 4096 bytes; with `oversize`, a line of oversize + 5000 bytes after line
 * `at` (5,000).
 */
function generatedStream(seed, { oversize, lines: count = 10_000, at: bigAt = 5000 }) {
  const g = generator(seed);
  const r = rng(seed ^ 0x1f);
  const lines = [];
  const tally = { utf8: 0, blank: 0, crlf: 0, nul: 0, bom: 0, big: 0 };
  for (let i = 0; i < count; i++) {
    let line = b(g.line());
    const roll = r.next();
    if (roll < 0.04) {
      // Invalid UTF-8 somewhere (usually inside a string, sometimes a key).
      const bad = r.pick([[0xe9], [0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f], [0x80, 0x80]]);
      const at = line.indexOf('"', 1 + r.int(Math.max(1, line.length - 1)));
      if (at > 0) {
        line = cat(line.subarray(0, at), Buffer.from(bad), line.subarray(at));
        tally.utf8++;
      }
    } else if (roll < 0.06) {
      line = b(r.pick(['', ' ', '\t', '\r']));
      tally.blank++;
    } else if (roll < 0.09) {
      line = cat(line, '\r');
      tally.crlf++;
    } else if (roll < 0.1) {
      line = r.chance(0.5) ? cat(line, '\0') : b('\0');
      tally.nul++;
    } else if (roll < 0.105) {
      line = cat(Buffer.from([0xef, 0xbb, 0xbf]), line);
      tally.bom++;
    }
    lines.push(line);
    if (oversize && i === bigAt) {
      lines.push(b(bigLine(oversize + 5000)).subarray(0, -1));
      tally.big++;
    }
  }
  const stream = cat(...lines.flatMap((l) => [l, '\n']));
  const writes = [];
  for (let at = 0; at < stream.length; ) {
    const size = 1 + (r.chance(0.2) ? r.int(16) : r.int(MAX_WRITE));
    writes.push(stream.subarray(at, at + size));
    at += size;
  }
  return { writes, tally, bytes: stream.length };
}

for (const sdk of SDKS) {
  test(`${sdk.name}: stock and patched agree on a 10,000-line generated stream mixing valid and invalid lines`, { timeout: 300_000 }, async (t) => {
    t.after(stopAll);
    const { writes, tally } = generatedStream(0xf1de_0000 + sdk.generation, { oversize: false });
    for (const [k, n] of Object.entries(tally)) if (k !== 'big') assert.ok(n > 5, `too few ${k}: ${JSON.stringify(tally)}`);
    const [result] = await compareAll(sdk, [writes], { maxBufferSize: 10 * 1024 * 1024 });
    assertSame(result, '10,000 lines');
    const messages = messagesOf(result.stock).length;
    assert.ok(messages > 3000 && result.stock.errors > 3000, `${messages} messages, ${result.stock.errors} errors`);
    assert.equal(result.stock.selfCloses, 0);
  });

  if (!sdk.limit) continue;

  // The transport closes itself on the overflow, and the SDK stops the child
  // 2 s later: what follows the big line is bounded (100 lines), so that the
  // child writes it all well within that on a loaded machine.
  test(`${sdk.name}: … and with an oversized line after 5,000 lines, 100 before the end (the transport closes itself, reading on until the child exits)`, { timeout: 300_000 }, async (t) => {
    t.after(stopAll);
    const { writes, tally } = generatedStream(0xf1de_1000 + sdk.generation, { oversize: 64 * 1024, lines: 5_100, at: 5_000 });
    assert.equal(tally.big, 1);
    const [result] = await compareAll(sdk, [writes], { maxBufferSize: 64 * 1024 });
    assertSame(result, '10,000 lines with an overflow');
    assert.equal(result.stock.selfCloses, 1);
    assert.ok(result.stock.events.includes('onerror: Error: ReadBuffer exceeded maximum size of 65536 bytes'));
    assert.ok(messagesOf(result.stock).length > 1500, `${messagesOf(result.stock).length} messages`); // of the 5,000 lines before the big one
  });
}

// --- strict ------------------------------------------------------------------

for (const sdk of SDKS.filter((s) => s.name.includes('1.32.2') || s.name.includes('2.4.0'))) {
  test(`${sdk.name}: strict: true reports invalid UTF-8 (and under 2.x lines that are not JSON) instead of following stock`, { timeout: 120_000 }, async (t) => {
    t.after(stopAll);
    const writes = [note(1), cat('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf', Buffer.from([0xe9]), '"}}\n'), '{oops\n', '\n', note(2)];
    const [{ stock, patched }] = await compareAll(sdk, [writes], { strict: true });
    assert.equal(messagesOf(stock).length, 3, 'stock delivers the Latin-1 line');
    assert.deepEqual(messagesOf(patched), [messagesOf(stock)[0], messagesOf(stock)[2]]);
    assert.equal(patched.errors, 3);
    assert.equal(stock.errors, sdk.generation === 1 ? 2 : 0);
    // The reasons: what the transport's onerror gets.
    const rb = new NativeReadBuffer({ sdk: sdk.generation, strict: true });
    rb.append(cat(...writes.map(b)));
    const reasons = [];
    for (;;) {
      try {
        if (rb.readMessage() === null) break;
      } catch (error) {
        reasons.push(error.reason);
      }
    }
    assert.deepEqual(reasons, ['invalid-utf8', 'malformed-json', 'blank-line']);
  });
}
