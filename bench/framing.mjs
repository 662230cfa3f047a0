#!/usr/bin/env node
// Stdio framing throughput: the native read buffer (lib/patch/transports.cjs) against the
// SDK's own ReadBuffer (1.x and 2.x) and against plain JSON.parse of the same
// lines, measured in the same run.
//
//   node bench/framing.mjs            200,000 small messages in 64 KiB chunks,
//                                     and one 9 MiB message in 64 KiB chunks
//   node bench/framing.mjs --quick    a tenth of the small messages, fewer runs
//   node bench/framing.mjs --cpu      time with the main thread's own CPU time
//                                     (Linux: /proc/thread-self/schedstat) instead
//                                     of the wall clock: on a shared machine, time
//                                     spent waiting for a core (and GC helper
//                                     threads) is left out; what is compared is
//                                     what the stdio readers' targets bound, main-thread time
//   node bench/framing.mjs --json     for bench/run.mjs: the tables go to
//                                     stderr, and stdout's last line is
//                                     { rows: [...] } (one JSON line)
//
// Then the hand-off: the Dispatcher's dispatch() on messages the native read
// buffer returned, with the framer's classification taken (lib/native/addon.cjs
// `_dispatchFrom` with the read buffer's hand-off) against gathering and
// classifying them again (`dispatch`).
//
// Every variant consumes the same Buffers the way a transport does: append a
// chunk, then readMessage() until null. "JSON.parse (floor)" parses the lines
// already split into strings: no framing, no decoding, no validation.
// "native framing only" is the native part alone (split, validate, classify
// in Rust, hand the texts over), without building the objects.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { smallMessages, bigMessage, bigTextMessage, TARGETS, BIG_SIZE } from './workloads.mjs';

const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const RUNS = QUICK ? 3 : 5;
const SMALL_COUNT = QUICK ? 20_000 : 200_000;
const CHUNK = 64 * 1024;
const CPU = args.has('--cpu');
const SCHEDSTAT = '/proc/thread-self/schedstat';
if (CPU && !fs.existsSync(SCHEDSTAT)) throw new Error(`--cpu needs ${SCHEDSTAT} (Linux)`);
/** Milliseconds: the wall clock, or (--cpu) the main thread's CPU time. */
const now = CPU ? () => Number(fs.readFileSync(SCHEDSTAT, 'latin1').split(' ')[0]) / 1e6 : () => performance.now();


const { NativeReadBuffer } = require('../lib/stdio/read-buffer.cjs');
const { kHandoff } = require('../lib/stdio/handoff.cjs');
const native = require('../lib/native/addon.cjs');
const { StdioFramer } = native;
const Dispatcher = require('../lib/classify/dispatch.cjs').dispatcherClass();
const { ReadBuffer: ReadBuffer1 } = require('@modelcontextprotocol/sdk/shared/stdio.js');
const { ReadBuffer: ReadBuffer2 } = require('@modelcontextprotocol/client');
const { StdioClientTransport: StdioClientTransport1 } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { _useNativeReadBuffer } = require('../lib/patch/transports.cjs');
const FLOOR_TARGET = TARGETS.mainThreadVsParse;

// --- workloads -------------------------------------------------------------

function chunked(lines, size) {
  const stream = Buffer.from(lines.join('\n') + '\n', 'utf8');
  const chunks = [];
  for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, Math.min(i + size, stream.length)));
  return { bytes: stream.length, chunks };
}

// --- variants --------------------------------------------------------------

function viaTransport(patched) {
  return (chunks) => {
    const t = new StdioClientTransport1({ command: process.execPath });
    if (patched) _useNativeReadBuffer(t, { sdk: 1 });
    let n = 0;
    t.onmessage = () => n++;
    t.onerror = (e) => {
      throw e;
    };
    for (const chunk of chunks) {
      t._readBuffer.append(chunk);
      t.processReadBuffer();
    }
    return n;
  };
}

function drain(makeBuffer) {
  return (chunks) => {
    const rb = makeBuffer();
    let n = 0;
    for (const chunk of chunks) {
      rb.append(chunk);
      while (rb.readMessage() !== null) n++;
    }
    return n;
  };
}

const VARIANTS = [
  { name: 'SDK 1.x ReadBuffer (stock)', key: 'stock1', run: drain(() => new ReadBuffer1()) },
  { name: 'SDK 2.x ReadBuffer (stock)', key: 'stock2', run: drain(() => new ReadBuffer2()) },
  { name: 'native read buffer', key: 'native', run: drain(() => new NativeReadBuffer({ sdk: 1 })) },
  // The path a patched transport takes: the SDK's own data handler appends
  // the chunk, then its processReadBuffer() loop calls readMessage() and
  // onmessage until null. The transport is constructed, never started (no
  // child): its read buffer is swapped as patched start() swaps it.
  { name: 'SDK 1.x transport processReadBuffer, stock', key: 'transportStock', run: viaTransport(false) },
  { name: 'SDK 1.x transport processReadBuffer, patched', key: 'transportNative', run: viaTransport(true) },
  {
    name: 'native framing only (no objects)',
    key: 'frameOnly',
    run: (chunks) => {
      // As NativeReadBuffer makes it: bodies left to its JSON.parse.
      const framer = new StdioFramer({ sdk: 1, checkBodies: false });
      let n = 0;
      for (const chunk of chunks) {
        const out = framer.push(chunk);
        if (out !== undefined) n += out[1];
      }
      return n;
    },
  },
  { name: 'JSON.parse of the lines (floor)', key: 'floor', lines: true, run: (lines) => {
    let n = 0;
    for (const line of lines) {
      JSON.parse(line);
      n++;
    }
    return n;
  } },
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function timeOnce(variant, input, expected) {
  globalThis.gc?.();
  const t0 = now();
  const n = variant.run(input);
  const dt = now() - t0;
  if (n !== expected) throw new Error(`${variant.name}: ${n} messages, expected ${expected}`);
  return dt;
}

// Rounds of every variant in turn (so that a change in machine load hits
// them all), keeping each one's best time: on a shared machine the minimum
// is the stable statistic.
function bench(label, lines, runs) {
  const { bytes, chunks } = chunked(lines, CHUNK);
  const times = Object.fromEntries(VARIANTS.map((v) => [v.key, []]));
  const texts = handedOver(chunks);
  const parseTimes = [];
  for (let r = 0; r < runs; r++) {
    for (const v of VARIANTS) times[v.key].push(timeOnce(v, v.lines ? lines : chunks, lines.length));
    parseTimes.push(timeParse(texts));
  }
  const results = {};
  for (const v of VARIANTS) {
    const ms = Math.min(...times[v.key]);
    results[v.key] = { name: v.name, ms, median: median(times[v.key]), mbps: bytes / 1e6 / (ms / 1e3) };
  }
  const parts = { batchParse: Math.min(...parseTimes), texts: texts.length };
  return { label, bytes, messages: lines.length, chunks: chunks.length, runs, results, parts };
}

// Where the native read buffer's time goes: the framer's push alone (Rust
// scan, validation, classification and the JS strings, one crossing per
// chunk) is the 'frameOnly' variant; timeParse() times the JSON.parse of the
// texts it hands over (each chunk's batch, and a big line's own string),
// collected beforehand, in the same rounds as the variants. The rest of the
// native read buffer's time is readMessage()'s loop and the hand-off to the
// dispatcher (a difference of minima: noisy, and may come out below zero).
function handedOver(chunks) {
  const framer = new StdioFramer({ sdk: 1, checkBodies: false });
  // The layout of push()'s result: the binding's (crates/core/src/boundary.rs).
  const { OUT_ENTRIES, OUT_COUNT, OUT_BATCH, ENTRY_SIZE, ENTRY_CODE, ENTRY_SLOT, ENTRY_START, ENTRY_END } = native.boundary;
  const texts = [];
  for (const chunk of chunks) {
    const out = framer.push(chunk);
    if (out === undefined) continue;
    const meta = out[OUT_ENTRIES];
    let batch = false;
    for (let k = 0; k < ENTRY_SIZE * out[OUT_COUNT]; k += ENTRY_SIZE) {
      if (meta[k + ENTRY_CODE] <= 0) continue;
      if (meta[k + ENTRY_SLOT] === OUT_BATCH) batch = true;
      else texts.push(out[meta[k + ENTRY_SLOT]].slice(meta[k + ENTRY_START], meta[k + ENTRY_END]));
    }
    if (batch) texts.push(out[OUT_BATCH]);
  }
  return texts;
}

function timeParse(texts) {
  globalThis.gc?.();
  const t0 = now();
  for (const text of texts) JSON.parse(text);
  return now() - t0;
}

function fmt(n, digits = 1) {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function table(b) {
  const { results } = b;
  const native = results.native;
  const floor = results.floor;
  const stockBest = Math.max(results.stock1.mbps, results.stock2.mbps);
  const lines = [
    `\n${b.label}: ${fmt(b.bytes / 1e6)} MB, ${b.messages.toLocaleString('en-US')} message(s), ${b.chunks} chunks of 64 KiB; best of ${b.runs} interleaved runs (median in brackets), ${CPU ? "main-thread CPU time" : "wall clock"}`,
    '',
    '| variant | ms | MB/s | native is … faster |',
    '|---|---:|---:|---:|',
  ];
  for (const r of Object.values(results)) {
    const ratio = r === native ? '—' : `${fmt(r.ms / native.ms, 2)}×`;
    lines.push(`| ${r.name} | ${fmt(r.ms)} (${fmt(r.median)}) | ${fmt(r.mbps)} | ${ratio} |`);
  }
  const vsStock = native.mbps / stockBest;
  const vsFloor = floor.mbps / native.mbps;
  lines.push('');
  lines.push(`native vs the faster stock ReadBuffer: ${fmt(vsStock, 1)}× faster (target ≥ 10×) ${vsStock >= 10 ? 'ok' : 'MISSED'}`);
  const tFloor = results.transportNative.ms / floor.ms;
  const p = b.parts;
  const rest = native.ms - results.frameOnly.ms - p.batchParse;
  lines.push(`native read buffer vs plain JSON.parse: ${fmt(vsFloor, 2)}× the time (target ≤ ${FLOOR_TARGET}×) ${vsFloor <= FLOOR_TARGET ? 'met' : 'NOT MET'}`);
  lines.push(`patched SDK transport (processReadBuffer) vs plain JSON.parse: ${fmt(tFloor, 2)}× the time (target ≤ ${FLOOR_TARGET}×) ${tFloor <= FLOOR_TARGET ? 'met' : 'NOT MET'}; stock transport ${fmt(results.transportStock.ms / floor.ms, 2)}×`);
  lines.push(
    `native read buffer ${fmt(native.ms)} ms = framer push ${fmt(results.frameOnly.ms)} ms + JSON.parse of the ${p.texts} handed-over text(s) ${fmt(p.batchParse)} ms + readMessage loop and hand-off ${fmt(rest)} ms (floor ${fmt(floor.ms)} ms)`,
  );
  return lines.join('\n');
}

// Warm every variant up (JIT) on a small stream first.
const warm = smallMessages(5000);
const warmChunks = chunked(warm, CHUNK).chunks;
for (const v of VARIANTS) for (let i = 0; i < 3; i++) v.run(v.lines ? warm : warmChunks);

const JSON_OUT = args.has('--json');
const print = (text) => (JSON_OUT ? process.stderr.write(`${text}\n`) : console.log(text));

const small = bench(`${SMALL_COUNT.toLocaleString('en-US')} small messages`, smallMessages(SMALL_COUNT), RUNS);
print(table(small));
const big = bench('one 9 MiB message (half text, half rows of small objects)', bigMessage(BIG_SIZE), QUICK ? RUNS : 7);
print(table(big));
const bigText = bench('one 9 MiB text result', bigTextMessage(BIG_SIZE), QUICK ? RUNS : 7);
print(table(bigText));

// --- the hand-off ------------------------------------------------------------

function benchHandoff(count, runs) {
  // Requests, results and log notifications: progress notifications are
  // gathered either way (for the Dispatcher's progress fast path).
  const lines = smallMessages(count).filter((_, i) => i % 4 !== 0);
  const { chunks } = chunked(lines, CHUNK);
  const messages = [];
  const codes = [];
  const rb = new NativeReadBuffer({ sdk: 1 });
  for (const chunk of chunks) {
    rb.append(chunk);
    for (let m; (m = rb.readMessage()) !== null; ) {
      messages.push(m);
      codes.push(rb[kHandoff].code);
    }
  }
  const d = new Dispatcher({ sdk: 1, onResponse() {}, onRequest() {}, onNotification() {}, onInvalid() {}, onError() {} });
  // As readMessage() leaves them, then dispatch() (or not, for the baseline).
  const loop = (enabled, dispatch) => {
    const t0 = now();
    for (let i = 0; i < messages.length; i++) {
      rb[kHandoff].message = messages[i];
      rb[kHandoff].code = codes[i];
      if (dispatch) {
        if (enabled) d._dispatchFrom(rb, messages[i], undefined);
        else d.dispatch(messages[i], undefined);
      }
    }
    return now() - t0;
  };
  const off = [];
  const on = [];
  const base = [];
  for (let r = 0; r < runs + 1; r++) {
    base.push(loop(true, false));
    off.push(loop(false, true));
    on.push(loop(true, true));
  }
  rb[kHandoff].message = undefined;
  const ns = (ms) => ((ms - Math.min(...base)) * 1e6) / messages.length;
  return { messages: messages.length, gathered: ns(Math.min(...off)), handedOff: ns(Math.min(...on)) };
}

const h = benchHandoff(SMALL_COUNT, RUNS);
print(`\nhand-off: dispatch() of ${h.messages.toLocaleString('en-US')} messages the native read buffer returned (requests, results, log notifications)\n`);
print('| dispatch() | ns per message |');
print('|---|---:|');
print(`| gathers and classifies again | ${fmt(h.gathered, 0)} |`);
print(`| takes the framer's classification | ${fmt(h.handedOff, 0)} |`);
print(`\nhand-off saves ${fmt(h.gathered - h.handedOff, 0)} ns (${fmt((100 * (h.gathered - h.handedOff)) / h.gathered, 0)}%) per dispatch`);

if (JSON_OUT) {
  // For bench/run.mjs: one JSON line of table rows.
  const rows = [];
  for (const [b, what] of [
    [small, `${b_count(small)} small messages in 64 KiB chunks`],
    [big, 'one 9 MiB message (half text, half small objects) in 64 KiB chunks'],
    [bigText, 'one 9 MiB text result in 64 KiB chunks'],
  ]) {
    const r = b.results;
    const floor = `plain JSON.parse of the lines: ${fmt(r.floor.mbps)} MB/s (native takes ${fmt(r.floor.mbps / r.native.mbps, 2)}× its time)`;
    rows.push({ row: `stdio framing, ${what}, against the 1.x ReadBuffer`, stock: r.stock1.mbps, patched: r.native.mbps, unit: 'MB/s', lowerIsBetter: false, note: floor });
    rows.push({ row: `stdio framing, ${what}, against the 2.x ReadBuffer`, stock: r.stock2.mbps, patched: r.native.mbps, unit: 'MB/s', lowerIsBetter: false, note: floor });
  }
  // The readers' target: main-thread time against the floor, with where the time goes.
  for (const [b, what] of [
    [small, `${b_count(small)} small messages`],
    [big, 'one 9 MiB mixed message'],
    [bigText, 'one 9 MiB text result'],
  ]) {
    const r = b.results;
    const x = (v) => `${fmt(v.ms / r.floor.ms, 2)}×`;
    const rest = r.native.ms - r.frameOnly.ms - b.parts.batchParse;
    rows.push({
      row: `(a) main-thread ms, ${what}: main-thread reader (NativeReadBuffer, offThread: false: append/readMessage) against plain JSON.parse of the lines`,
      stock: r.floor.ms,
      patched: r.native.ms,
      unit: 'ms',
      lowerIsBetter: true,
      baseline: 'JSON.parse, the floor',
      target: `≤ ${FLOOR_TARGET}× the floor`,
      met: r.native.ms <= FLOOR_TARGET * r.floor.ms,
      note: `stock ReadBuffer 1.x ${x(r.stock1)}, 2.x ${x(r.stock2)} the floor; native = framer push ${fmt(r.frameOnly.ms)} ms + JSON.parse of handed-over texts ${fmt(b.parts.batchParse)} ms + readMessage/hand-off ${fmt(rest)} ms`,
    });
    rows.push({
      row: `(a) main-thread ms, ${what}: SDK 1.x transport patched with the main-thread reader (append + processReadBuffer → onmessage) against plain JSON.parse`,
      stock: r.floor.ms,
      patched: r.transportNative.ms,
      unit: 'ms',
      lowerIsBetter: true,
      baseline: 'JSON.parse, the floor',
      target: `≤ ${FLOOR_TARGET}× the floor`,
      met: r.transportNative.ms <= FLOOR_TARGET * r.floor.ms,
      note: `stock transport: ${fmt(r.transportStock.ms)} ms, ${x(r.transportStock)} the floor`,
    });
  }
  rows.push({
    row: 'ns per dispatch() of a message the native read buffer returned (framer hand-off)',
    stock: h.gathered,
    patched: h.handedOff,
    unit: 'ns',
    lowerIsBetter: true,
    baseline: 'gathered and classified again',
  });
  console.log(JSON.stringify({ rows }));
}

function b_count(b) {
  return b.messages.toLocaleString('en-US');
}
