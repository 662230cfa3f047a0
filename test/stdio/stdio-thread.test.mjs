// lib/stdio/thread-read-buffer.cjs + crates/napi/src/stdio_thread_reader.rs: the off-main-thread
// stdio reader (offThread: true). Real SDK transports and real child
// processes: wire order, nothing lost when the child writes and exits at
// once, the hand-over bounded (the event loop gets turns), the same
// messages and errors as the main-thread reader and stock (the fidelity
// suites are run again against it), the worker stopped and freed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generator, rng } from './support/jsonrpc-gen.mjs';
import { drainMessages } from './support/read-buffer.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const stdio = require('../../lib/patch/transports.cjs');
const { patchStdioTransport } = stdio;
const { NativeReadBuffer } = require('../../lib/stdio/read-buffer.cjs');
const { ThreadReadBuffer } = require('../../lib/stdio/thread-read-buffer.cjs');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..', '..');
const line = (m) => JSON.stringify(m) + '\n';
const NOTE = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
const turnsDelivered = { count: 0 };
const TINY = { maxBatchBytes: 2048, maxBatchMessages: 5, inlineMax: 0 };

const CLIENTS = [
  ['@modelcontextprotocol/sdk 1.32.2', () => import('@modelcontextprotocol/sdk/client/stdio.js')],
  ['@modelcontextprotocol/sdk 1.0.0', () => import('sdk-1-oldest/client/stdio.js')],
  ['@modelcontextprotocol/client 2.4.0', () => import('@modelcontextprotocol/client/stdio')],
];

/** A child that writes `count` notifications numbered 0.., then one whose data is `big` bytes (if any), then exits at once. */
function writerArgs(count, big = 0) {
  const note = (data) => `JSON.stringify({jsonrpc:'2.0',method:'notifications/message',params:{level:'info',data:${data}}})+'\\n'`;
  const script =
    `let s='';for(let i=0;i<${count};i++)s+=${note("'m'+i+' é😀'")};` +
    `if(${big})s+=${note(`'B'.repeat(${big})`)};process.stdout.write(s,()=>process.exit(0));`;
  return ['-e', script];
}

/** Runs a patched transport against a child until onclose; what it saw. */
async function runChild(StdioClientTransport, args, { onTransport } = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' });
  const seen = { data: [], errors: [], closes: 0, atClose: -1 };
  transport.onmessage = (m) => seen.data.push(m.params?.data ?? m);
  transport.onerror = (e) => seen.errors.push(e.message);
  const closed = new Promise((resolve) => {
    transport.onclose = () => {
      seen.closes++;
      if (seen.atClose < 0) seen.atClose = seen.data.length;
      resolve();
    };
  });
  const timeout = setTimeout(() => transport.close(), 30_000);
  try {
    await transport.start();
    seen.buffer = transport._readBuffer;
    onTransport?.(transport);
    await closed;
  } finally {
    clearTimeout(timeout);
  }
  return seen;
}

for (const [name, load] of CLIENTS) {
  test(`${name}: a child that writes 30,000 messages and a 2 MiB one, then exits at once: every one arrives, in order, before onclose`, { timeout: 120_000 }, async () => {
    const { StdioClientTransport } = await load();
    const unpatch = patchStdioTransport(StdioClientTransport, { offThread: true });
    try {
      for (let round = 0; round < 2; round++) {
        const seen = await runChild(StdioClientTransport, writerArgs(30_000, 2 * 1024 * 1024));
        assert.ok(seen.buffer instanceof ThreadReadBuffer, 'the off-thread reader');
        assert.deepEqual(seen.errors, []);
        assert.equal(seen.data.length, 30_001);
        assert.equal(seen.atClose, 30_001, 'all delivered before onclose');
        for (let i = 0; i < 30_000; i++) if (seen.data[i] !== `m${i} é😀`) assert.fail(`message ${i}: ${seen.data[i]}`);
        assert.equal(seen.data[30_000], 'B'.repeat(2 * 1024 * 1024));
        assert.equal(seen.buffer.offThread, false, 'the worker is stopped once the stream ended');
      }
    } finally {
      unpatch();
    }
  });
}

test('the hand-over is bounded: at most maxBatchMessages per turn, and timers run while 20,000 messages stream', { timeout: 60_000 }, async () => {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const unpatch = patchStdioTransport(StdioClientTransport, { offThread: { maxBatchMessages: 50, inlineMax: 0 } });
  try {
    const turns = [];
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    let seen;
    try {
      seen = await runChild(StdioClientTransport, writerArgs(20_000), {
        onTransport(transport) {
          const buffer = transport._readBuffer;
          const pump = buffer._pump;
          buffer._pump = function () {
            const before = turnsDelivered.count;
            const more = pump.call(this);
            if (turnsDelivered.count > before) turns.push(turnsDelivered.count - before);
            return more;
          };
          const onmessage = transport.onmessage;
          transport.onmessage = (m) => {
            turnsDelivered.count++;
            onmessage(m);
          };
        },
      });
    } finally {
      clearInterval(ticker);
    }
    assert.equal(seen.data.length, 20_000);
    // The stream is paused above highWater (256 KiB, ~3,000 of these
    // messages), so the flush at its end delivers at most about that much;
    // the rest came one bounded piece a turn.
    const byTurns = turns.reduce((a, b) => a + b, 0);
    assert.ok(byTurns >= 20_000 - 4000, `${byTurns} of 20,000 delivered piece by piece`);
    assert.ok(turns.length >= byTurns / 50, `${turns.length} turns`);
    assert.ok(Math.max(...turns) <= 50, `at most 50 messages a turn: ${Math.max(...turns)}`);
    assert.ok(ticks >= 2, `timers ran during the stream (${ticks})`);
  } finally {
    unpatch();
  }
});
// --- the same messages and errors as the main-thread reader -----------------

function generatedStream(seed, count) {
  const g = generator(seed);
  const r = rng(seed);
  const parts = [];
  for (let i = 0; i < count; i++) {
    let l = Buffer.from(g.line());
    if (r.chance(0.03)) l = Buffer.concat([l.subarray(0, l.length >> 1), Buffer.from([0xe9]), l.subarray(l.length >> 1)]);
    if (r.chance(0.03)) l = Buffer.concat([l, Buffer.from('\r')]);
    if (r.chance(0.02)) l = Buffer.from(r.pick(['', ' ', '{oops', '[1]', 'null']));
    parts.push(l, Buffer.from('\n'));
  }
  const stream = Buffer.concat(parts);
  const cuts = [0];
  for (let at = 0; at < stream.length; ) cuts.push((at = Math.min(stream.length, at + 1 + r.int(r.chance(0.3) ? 40 : 9000))));
  return { stream, cuts };
}

/** Append every cut, reading after each (after flush() for a thread buffer) or only at the end. */
function readAll(rb, { stream, cuts }, { eachAppend }) {
  const out = [];
  const read = () => {
    if (rb instanceof ThreadReadBuffer) rb.flush();
    drainMessages(rb, out);
  };
  for (let i = 1; i < cuts.length; i++) {
    try {
      rb.append(stream.subarray(cuts[i - 1], cuts[i]));
    } catch (error) {
      out.push(`append threw: ${error.message}`);
    }
    if (eachAppend) read();
  }
  read();
  return out;
}

test('standalone: the same messages and errors as NativeReadBuffer on 4,000 generated lines (1.x, 2.x, strict; pieces of 5 lines; read as they come or all at the end)', () => {
  const input = generatedStream(0x7e4d, 4000);
  for (const options of [{ sdk: 1 }, { sdk: 2 }, { sdk: 1, strict: true }, { sdk: 2, strict: true, blankLines: 'report' }]) {
    const want = readAll(new NativeReadBuffer(options), input, { eachAppend: true });
    assert.ok(want.filter((x) => typeof x === 'object').length > 1300);
    assert.ok(want.filter((x) => typeof x === 'string').length > 50);
    for (const eachAppend of [true, false]) {
      const rb = new ThreadReadBuffer({ ...options, ...TINY });
      assert.deepStrictEqual(readAll(rb, input, { eachAppend }), want, JSON.stringify({ options, eachAppend }));
      rb.stop();
    }
    // Inline framing (small chunks while the worker is idle) gives the same.
    const inline = new ThreadReadBuffer({ ...options, inlineMax: 1 << 20 });
    assert.deepStrictEqual(readAll(inline, input, { eachAppend: true }), want);
    inline.stop();
  }
});

test('standalone: messages over 1 MiB (external strings where the host has them): ASCII, Latin-1 and UTF-16 text, exactly', () => {
  for (const unit of ['plain ascii text ', 'déjà vu ', 'déjà vu — ✓ 😀 ']) {
    const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: unit.repeat(Math.ceil((1.5 * 1024 * 1024) / unit.length)) }] } };
    const bytes = Buffer.from(line(message) + line(NOTE));
    for (const options of [TINY, {}]) {
      const rb = new ThreadReadBuffer(options);
      for (let i = 0; i < bytes.length; i += 65536) rb.append(bytes.subarray(i, i + 65536));
      rb.flush();
      assert.deepStrictEqual(rb.readMessage(), message, unit);
      assert.deepStrictEqual(rb.readMessage(), NOTE);
      assert.equal(rb.readMessage(), null);
      rb.stop();
    }
  }
});

test('standalone: the SDK\'s size rule at exactly the appends where the stock ReadBuffer throws, messages of earlier chunks first', () => {
  const { ReadBuffer } = require('@modelcontextprotocol/sdk/shared/stdio.js');
  const big = line({ ...NOTE, params: { data: 'z'.repeat(300) } });
  const stream = Buffer.from(line(NOTE) + line({ ...NOTE, params: { n: 2 } }) + big + line({ ...NOTE, params: { n: 3 } }) + line(NOTE));
  let overflows = 0;
  for (let i = 0; i <= stream.length; i += 7) {
    for (const j of [i, i + 50, i + 200, i + 290]) {
      const cuts = [0, ...(j > i && j < stream.length ? [i, j] : [i]), stream.length];
      const input = { stream, cuts };
      // Stock's errors are its own (SyntaxError): compare where they are.
      const errorsAs = (out) => out.map((x) => (typeof x === 'string' && !x.startsWith('append threw') ? 'error' : x));
      const want = readAll(new ReadBuffer({ maxBufferSize: 256 }), input, { eachAppend: true });
      const native = readAll(new NativeReadBuffer({ maxBufferSize: 256 }), input, { eachAppend: true });
      assert.deepEqual(errorsAs(native), errorsAs(want), `cuts ${cuts}`);
      const rb = new ThreadReadBuffer({ maxBufferSize: 256, ...TINY });
      assert.deepEqual(readAll(rb, input, { eachAppend: true }), native, `cuts ${cuts}`);
      rb.stop();
      overflows += want.filter((x) => typeof x === 'string' && x.startsWith('append threw')).length;
    }
  }
  assert.ok(overflows > 50, `${overflows}`);
});

// The default run of these suites uses the off-thread reader as install()
// gives it (small chunks framed inline); here they run again with every
// chunk hopping to the worker and coming back in pieces of at most 5 lines,
// and with the main-thread reader (offThread: false). Again only what goes
// through a patched transport's reader (the tests of the native buffer
// alone do not use it), and for one SDK release of each generation and size
// limit (the reader takes those as options; the other releases ran in the
// default run).
for (const [reader, what] of [
  ['pieces', 'with every chunk framed off the main thread (pieces of at most 5 lines)'],
  ['main-thread', 'with the main-thread reader (offThread: false)'],
]) {
  test(`the fidelity suites, run again ${what}`, { timeout: 600_000 }, () => {
    // Each file's tests to run again, and how many buffers of that reader, and chunks or pieces, they at least make (so that the path surely ran).
    for (const [file, only, least] of [
      ['framing-fidelity.test.mjs', '^@modelcontextprotocol/(sdk 1\\.32\\.2|sdk 1\\.23\\.0 |client 2\\.4\\.0)', { buffers: 50, calls: 2000 }],
      ['stdio-framing.test.mjs', 'StdioServerTransport: patched and stock|install\\(\\{ strict', { buffers: 3, calls: 3 }],
    ]) {
      // Run in this child itself (`node --test` would start another process without the preload).
      const r = spawnSync(process.execPath, ['--require', path.join(HERE, 'support', 'reader-preload.cjs'), `--test-name-pattern=${only}`, path.join(HERE, file)], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 540_000,
        env: { ...process.env, READER_PRELOAD: reader },
      });
      assert.equal(r.status, 0, `${file} against the ${reader} reader:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
      const counts = JSON.parse(r.stderr.match(/reader-preload: (.*)/)?.[1] ?? '{}');
      assert.ok(counts.buffers >= least.buffers && counts.calls >= least.calls, `${file}: the ${reader} reader ran (${JSON.stringify(counts)})`);
    }
  });
}

// --- lifecycle -----------------------------------------------------------------

test('one pool for every reader: 40 readers start at most the pool\'s threads; stopped and collected readers are freed; a live one never holds the process open', { timeout: 60_000 }, () => {
  if (process.platform !== 'linux') return; // counts threads in /proc
  const child = `
    const fs = require('node:fs');
    const { StdioThreadReader } = require(${JSON.stringify(path.join(ROOT, 'lib', 'native', 'addon.cjs'))}).load();
    const { ThreadReadBuffer } = require(${JSON.stringify(path.join(ROOT, 'lib', 'stdio', 'thread-read-buffer.cjs'))});
    const threads = () => fs.readdirSync('/proc/self/task').length;
    const base = threads();
    const line = '{"jsonrpc":"2.0","method":"m"}\\n';
    let rbs = Array.from({ length: 40 }, () => new ThreadReadBuffer({ inlineMax: 0 }));
    for (const rb of rbs) rb.append(Buffer.from(line.repeat(2000)));
    const running = threads();
    const pool = StdioThreadReader.pool();
    let read = 0;
    for (const rb of rbs) { rb.flush(); while (rb.readMessage() != null) read++; }
    rbs.slice(0, 20).forEach((rb) => rb.stop());
    const afterStop = rbs.filter((rb) => rb.offThread).length;
    rbs = null;
    let tries = 0;
    (function collect() {
      globalThis.gc();
      if (StdioThreadReader.pool().readers > 0 && ++tries < 50) return setTimeout(collect, 20);
      const collected = StdioThreadReader.pool().readers;
      // One more, alive and never stopped: the process must still exit.
      globalThis.keep = new ThreadReadBuffer({ inlineMax: 0 });
      globalThis.keep.append(Buffer.from(line.repeat(2000)));
      console.log(JSON.stringify({ base, running, pool, read, afterStop, collected, last: threads() }));
    })();
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', child], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  const { base, running, pool, read, afterStop, collected, last } = JSON.parse(r.stdout.trim());
  assert.equal(read, 40 * 2000, 'every message of every reader');
  assert.equal(pool.readers, 40);
  assert.ok(pool.threads >= 1 && pool.threads <= pool.max && pool.max <= 4, JSON.stringify(pool));
  assert.ok(running <= base + pool.max, `40 readers, at most the pool's ${pool.max} threads: ${base} -> ${running}`);
  assert.ok(last <= base + pool.max, `threads at the end: ${base} -> ${last}`);
  assert.equal(afterStop, 20, 'stop() stops the 20 it was called on');
  assert.equal(collected, 0, 'collected readers are freed');
});

test('one hand-over per JavaScript thread: 8 transports on the main thread and 8 in each of two worker threads, all at once, every message in order', { timeout: 120_000 }, async () => {
  const { Worker } = await import('node:worker_threads');
  const COUNT = 3000;
  const TRANSPORTS = 8;
  // The same run in each thread: TRANSPORTS real SDK transports, each
  // against a child writing COUNT numbered messages; resolves to the
  // messages out of place (none) and the count seen.
  const body = `
    const { StdioClientTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'))});
    const { patchStdioTransport } = require(${JSON.stringify(path.join(ROOT, 'lib', 'patch', 'transports.cjs'))});
    const { ThreadReadBuffer } = require(${JSON.stringify(path.join(ROOT, 'lib', 'stdio', 'thread-read-buffer.cjs'))});
    async function run(args) {
      const unpatch = patchStdioTransport(StdioClientTransport, { offThread: { inlineMax: 0 } });
      const one = async () => {
        const t = new StdioClientTransport({ command: process.execPath, args });
        const seen = [];
        let threaded = false;
        t.onmessage = (m) => seen.push(m.params.data);
        const closed = new Promise((resolve) => (t.onclose = resolve));
        await t.start();
        threaded = t._readBuffer instanceof ThreadReadBuffer;
        await closed;
        return { threaded, count: seen.length, misplaced: seen.filter((d, i) => !d.startsWith('m' + i + ' ')).length };
      };
      try {
        return await Promise.all(Array.from({ length: ${TRANSPORTS} }, one));
      } finally {
        unpatch();
      }
    }
  `;
  const args = writerArgs(COUNT);
  const workerCode = `${body}; const { parentPort, workerData } = require('node:worker_threads'); run(workerData).then((r) => parentPort.postMessage(r));`;
  const workers = [];
  try {
    const inWorkers = Array.from({ length: 2 }, () => {
      const w = new Worker(workerCode, { eval: true, workerData: args });
      workers.push(w);
      return new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      });
    });
    const here = new Function('require', 'path', `${body}; return run;`)(require, path)(args);
    const results = [await here, ...(await Promise.all(inWorkers))];
    for (const [k, result] of results.entries()) {
      for (const r of result) assert.deepEqual(r, { threaded: true, count: COUNT, misplaced: 0 }, `thread ${k}`);
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
});

test('memory safety: every method of StdioThreadReader and ThreadReadBuffer with foreign receivers and junk arguments throws or works, never crashes', { timeout: 60_000 }, () => {
  const child = `
    const native = require(${JSON.stringify(path.join(ROOT, 'lib', 'native', 'addon.cjs'))}).load();
    const { ThreadReadBuffer } = require(${JSON.stringify(path.join(ROOT, 'lib', 'stdio', 'thread-read-buffer.cjs'))});
    const { NativeReadBuffer } = require(${JSON.stringify(path.join(ROOT, 'lib', 'stdio', 'read-buffer.cjs'))});
    const R = native.StdioThreadReader;
    let seed = 7;
    const int = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    const pick = (xs) => xs[int(xs.length)];
    const line = '{"jsonrpc":"2.0","method":"m"}\\n';
    // The buffers first: the first registers the hand-over's pump (StdioThreadReader.hub).
    const buffers = [new ThreadReadBuffer({ inlineMax: 0 }), new ThreadReadBuffer({ maxBufferSize: 100 })];
    const readers = [new R({ sdk: 1, maxMessageSize: 1e7, strict: false, maxBatchBytes: 100, maxBatchMessages: 3, inlineMax: 0 }), new R({ sdk: 2, maxMessageSize: 64, blankLines: 'report', strict: true, maxBatchBytes: 1, maxBatchMessages: 1, inlineMax: 100 })];
    const junk = () => pick([undefined, null, 0, -1, NaN, 1e300, 'x', {}, [], Buffer.from(line.repeat(int(50))), new Uint8Array(3), new Int32Array(2),
      new Uint8Array(new SharedArrayBuffer(8)), new DataView(new ArrayBuffer(4)), () => {}, Symbol('s'), 2n, pick(readers), pick(buffers)]);
    const receivers = () => pick([...readers, ...buffers, {}, undefined, new native.StdioFramer(), new NativeReadBuffer(), Object.create(R.prototype)]);
    const targets = [];
    for (const C of [R, ThreadReadBuffer]) {
      for (const key of Object.getOwnPropertyNames(C.prototype)) {
        if (key === 'constructor') continue;
        const d = Object.getOwnPropertyDescriptor(C.prototype, key);
        if (typeof d.value === 'function') targets.push((r, a) => d.value.apply(r, a));
        if (d.get) targets.push((r) => d.get.call(r));
      }
      targets.push((_, a) => new C(...a));
      // The hand-over's statics: a second hub() keeps the first pump.
      if (C === R) for (const key of ['hub', 'nextReady', 'pool']) targets.push((r, a) => R[key].apply(r, a));
      targets.push((r, a) => C.call(r, ...a));
    }
    let calls = 0, threw = 0;
    for (let i = 0; i < 3000; i++) {
      calls++;
      try { pick(targets)(receivers(), Array.from({ length: int(8) }, junk)); } catch { threw++; }
    }
    for (const b of buffers) { try { b.flush(); b.stop(); } catch {} }
    for (const r of readers) r.stop();
    // A raw reader (no onready) with pieces listed: a turn of the hand-over later, nothing threw there.
    globalThis.lone = new R({ inlineMax: 0 });
    globalThis.lone.push(Buffer.from(line.repeat(100)));
    setTimeout(() => console.log(JSON.stringify({ calls, threw, targets: targets.length })), 100);
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', child], { encoding: 'utf8', timeout: 50_000 });
  assert.equal(r.signal, null, `crashed: ${r.signal} ${r.stderr.slice(-2000)}`);
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const { calls, threw, targets } = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.ok(targets >= 15 && calls === 3000 && threw > 100 && threw < calls, JSON.stringify({ calls, threw, targets }));
});

test('install() gives stdio transports the off-thread reader, as install({ offThread: true }) does; offThread: false the main-thread one; bad options throw', async () => {
  const { install } = require('../../entries/index.cjs');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  for (const [offThread, Want] of [
    [undefined, ThreadReadBuffer],
    [true, ThreadReadBuffer],
    [{ inlineMax: 0 }, ThreadReadBuffer],
    [false, NativeReadBuffer],
  ]) {
    const handle = install({ paths: [ROOT], offThread });
    try {
      const t = new StdioClientTransport({ command: process.execPath });
      stdio._useNativeReadBuffer(t, StdioClientTransport.prototype[Symbol.for('mcp-ordered-dispatch.stdio-patch')]);
      assert.equal(t._readBuffer.constructor, Want);
      if (Want === ThreadReadBuffer) t._readBuffer.stop();
    } finally {
      handle.uninstall();
    }
  }
  assert.throws(() => patchStdioTransport(StdioClientTransport, { offThread: 'yes' }), TypeError);
  assert.throws(() => patchStdioTransport(StdioClientTransport, { offThread: { maxBatchBytes: 0 } }), TypeError);
  assert.equal(stdio.isStdioPatched(StdioClientTransport), false, 'nothing patched on a bad option');
});

test('register gives started stdio transports the off-thread reader; MCP_ORDERED_DISPATCH_FRAMING=main-thread the main-thread one, =off the SDK\'s own', { timeout: 60_000 }, () => {
  // A real client transport of each generation, started against a real child, under register.
  const script = `
    const readers = [];
    for (const spec of ['@modelcontextprotocol/sdk/client/stdio.js', '@modelcontextprotocol/client/stdio']) {
      const { StdioClientTransport } = await import(spec);
      // A child that ends when its stdin does: close() of either generation then ends it at once.
      const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', "process.stdin.resume().on('end', () => process.exit(0))"] });
      await transport.start();
      readers.push(transport._readBuffer.constructor.name);
      await transport.close();
    }
    console.log(JSON.stringify(readers));`;
  const readers = (value) => {
    const env = { ...process.env };
    if (value === undefined) delete env.MCP_ORDERED_DISPATCH_FRAMING;
    else env.MCP_ORDERED_DISPATCH_FRAMING = value;
    const r = spawnSync(process.execPath, ['--import', 'mcp-ordered-dispatch/register', '--input-type=module', '-e', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 50_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'nothing on stderr');
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  assert.deepEqual(readers(undefined), ['ThreadReadBuffer', 'ThreadReadBuffer']);
  assert.deepEqual(readers('main-thread'), ['NativeReadBuffer', 'NativeReadBuffer']);
  assert.deepEqual(readers('off'), ['ReadBuffer', 'ReadBuffer']);
});

test('what MCP_ORDERED_DISPATCH_FRAMING asks of register: off, 0, false, no (any case) the SDK\'s own reader; main-thread (any case) the main-thread one; anything else the off-thread one', async () => {
  // A 1.x client transport started under register, its child gone at once: the reader its start gave it.
  const script = `const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', ''] });
    transport.start().then(() => { console.log(transport._readBuffer.constructor.name); return transport.close(); });`;
  const readerWith = async (value) => {
    const env = { ...process.env, MCP_ORDERED_DISPATCH_FRAMING: value };
    const r = await runCommand(process.execPath, ['--require', 'mcp-ordered-dispatch/register', '-e', script], { cwd: ROOT, env });
    assert.equal(r.code, 0, show(r));
    return r.stdout.trim();
  };
  const cases = [
    ...['off', 'OFF', '0', 'false', 'no'].map((value) => [value, 'ReadBuffer']),
    ...['main-thread', 'Main-Thread'].map((value) => [value, 'NativeReadBuffer']),
    ...['', 'on', '1', 'off-thread', 'mainthread'].map((value) => [value, 'ThreadReadBuffer']),
  ];
  const readers = await Promise.all(cases.map(([value]) => readerWith(value)));
  assert.deepEqual(cases.map(([value], i) => [value, readers[i]]), cases);
});
