#!/usr/bin/env node
// Main-thread time of the off-thread stdio reader (lib/stdio/thread-read-buffer.cjs)
// against the main-thread one (NativeReadBuffer) and plain JSON.parse of the
// same lines, on bench/framing.mjs's three workloads (200,000 small messages,
// 9 MiB mixed, 9 MiB text) in 64 KiB chunks, measured in the same run.
//
// What is timed for the off-thread reader is what the main thread does:
// append() of every chunk (a copy handed to the worker), then for every
// piece the worker made: take() (the piece's string and entries), and
// readMessage() until null (the JSON.parse of the piece and reading it). The
// worker's framing runs meanwhile on its own thread and is not counted; the
// wait for it (drain()) is not either, since the main thread is free then.
// "native" is NativeReadBuffer: append + readMessage, all on the main thread.
//
// Time is wall time (the row: ratio of the medians; the note adds the median
// of each round's own ratio); where Node has process.threadCpuUsage() (not
// on 20), the main thread's own CPU time too, which a busy machine does not
// lengthen.
//
//   node bench/thread-framing.mjs [--runs=21] [--quick] [--json]
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { smallMessages, bigMessage, bigTextMessage, TARGETS, BIG_SIZE } from './workloads.mjs';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const QUICK = args.quick === true;
const RUNS = Number(args.runs ?? (QUICK ? 3 : 21));
const SMALL_COUNT = QUICK ? 20_000 : 200_000;
const CHUNK = 64 * 1024;

const { NativeReadBuffer } = require('../lib/stdio/read-buffer.cjs');
const { ThreadReadBuffer } = require('../lib/stdio/thread-read-buffer.cjs');

function chunked(lines) {
  const stream = Buffer.from(lines.join('\n') + '\n', 'utf8');
  const chunks = [];
  for (let i = 0; i < stream.length; i += CHUNK) chunks.push(stream.subarray(i, Math.min(i + CHUNK, stream.length)));
  return chunks;
}

// The main thread's own CPU time, where Node has it (not on 20).
const threadCpu = typeof process.threadCpuUsage === 'function' ? () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; } : () => NaN;

// Times `run` as wall ms and main-thread CPU ms, added to `into`.
function timed(into, run) {
  const t0 = performance.now();
  const c0 = threadCpu();
  const result = run();
  into.ms += performance.now() - t0;
  into.cpu += threadCpu() - c0;
  return result;
}

function floor(lines) {
  const t = { ms: 0, cpu: 0 };
  let n = 0;
  timed(t, () => {
    for (const l of lines) if (JSON.parse(l) !== null) n++;
  });
  return { ...t, n };
}

function mainThread(chunks) {
  const rb = new NativeReadBuffer();
  const t = { ms: 0, cpu: 0 };
  let n = 0;
  timed(t, () => {
    for (const c of chunks) {
      rb.append(c);
      while (rb.readMessage() !== null) n++;
    }
  });
  return { ...t, n };
}

function offThread(chunks) {
  const rb = new ThreadReadBuffer({ inlineMax: 0 });
  const worker = rb._worker;
  const t = { ms: 0, cpu: 0 };
  let n = 0;
  timed(t, () => {
    for (const c of chunks) rb.append(c);
  });
  worker.drain(); // the worker's time: not the main thread's
  timed(t, () => {
    let out;
    while ((out = worker.take()) !== undefined) {
      rb._reader.use(out);
      while (rb.readMessage() !== null) n++;
    }
  });
  rb.stop();
  return { ...t, n };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [name, lines] of [
  [`${SMALL_COUNT.toLocaleString('en-US')} small messages`, smallMessages(SMALL_COUNT)],
  ['one 9 MiB mixed message', bigMessage(BIG_SIZE)],
  ['one 9 MiB text result', bigTextMessage(BIG_SIZE)],
]) {
  const chunks = chunked(lines);
  const times = { floor: [], native: [], thread: [] };
  const cpus = { floor: [], native: [], thread: [] };
  for (let r = 0; r < RUNS + 1; r++) {
    // Rotate the order; the first round warms up and is dropped.
    const order = ['floor', 'native', 'thread'].map((_, k, a) => a[(k + r) % a.length]);
    for (const v of order) {
      // Each variant starts with no garbage of the one before (npm run bench
      // runs this with --expose-gc): what it collects is its own.
      globalThis.gc?.();
      const { ms, cpu, n } = v === 'floor' ? floor(lines) : v === 'native' ? mainThread(chunks) : offThread(chunks);
      if (n !== lines.length) throw new Error(`${v}: ${n} of ${lines.length} messages`);
      if (r > 0) {
        times[v].push(ms);
        cpus[v].push(cpu);
      }
    }
  }
  const f = median(times.floor);
  const fCpu = median(cpus.floor);
  for (const [variant, key] of [
    ["off-thread reader (install()'s default), what the main thread does", 'thread'],
    ['main-thread reader (offThread: false)', 'native'],
  ]) {
    const ms = median(times[key]);
    const cpu = median(cpus[key]);
    // Each round's reader time over the same round's JSON.parse: this
    // machine's speed drifts between rounds (JSON.parse alone moved by 1.5x
    // from round to round here), and a round's pair shares its drift.
    const paired = median(times[key].map((t, i) => t / times.floor[i]));
    rows.push({
      row: `(a) main-thread time, ${name} in 64 KiB chunks: ${variant} vs JSON.parse of the lines (median of ${RUNS})`,
      stock: f,
      patched: ms,
      unit: 'ms',
      baseline: 'JSON.parse',
      lowerIsBetter: true,
      target: `≤ ${TARGETS.mainThreadVsParse}× JSON.parse`,
      met: ms <= TARGETS.mainThreadVsParse * f,
      note: `wall ${(ms / f).toFixed(2)}× JSON.parse (median of the rounds' own ratios ${paired.toFixed(2)}×)` + (Number.isNaN(cpu) ? '' : `; main thread's CPU time ${cpu.toFixed(1)} ms, ${(cpu / fCpu).toFixed(2)}× JSON.parse's ${fCpu.toFixed(1)} ms`),
    });
  }
}

if (args.json) console.log(JSON.stringify({ rows }));
else for (const r of rows) console.log(`${r.row}\n  JSON.parse ${r.stock.toFixed(1)} ms, reader ${r.patched.toFixed(1)} ms: ${r.note}; target ${r.target}: ${r.met ? 'met' : 'NOT MET'}`);
