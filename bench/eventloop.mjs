#!/usr/bin/env node
// Event-loop delay while a real child's output arrives over stdio: a real SDK
// Client (StdioClientTransport) against bench/flood-server.mjs (a raw server,
// no SDK, writing as fast as the pipe takes it), stock against patched
// (install(): the off-thread reader, lib/stdio/thread-read-buffer.cjs) and patched with
// the main-thread reader (install({ offThread: false })), each in its own process, rotating which
// goes first, rounds in the same run.
// perf_hooks.monitorEventLoopDelay (1 ms resolution) runs from the request
// to the last message handled:
//   * 200,000 log notifications then the result (the target: patched
//     p99 no worse than stock's);
//   * one 9 MiB text result (target: patched worst stall at most 1.2× the
//     time JSON.parse takes for that message, measured in the same process).
// Each also reports the main thread's busy time over the same window
// (performance.eventLoopUtilization: active ms), against JSON.parse of the
// same lines alone in the same process — the whole client's time (the
// SDK's Protocol, handlers) is in it, not the reader's alone.
//
//   node bench/eventloop.mjs [--rounds=3] [--count=200000] [--sdk=1,2] [--variants=stock,patched,mainthread]
//                            [--batch-bytes=N --batch-messages=N] [--json] [--quick]
//                            [--tokio-native=FILE: also variant 'tokio', the off-thread reader of an
//                             addon built with --features tokio-reader (loaded through MCP_ORDERED_DISPATCH_NATIVE)]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { bigTextMessage, logNotifications, BIG_SIZE, TARGETS, READER_VARIANTS, median, rotatedRuns, installVariant } from './workloads.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const QUICK = args.quick === true;
const COUNT = Number(args.count ?? (QUICK ? 20_000 : 200_000));
const ROUNDS = Number(args.rounds ?? (QUICK ? 1 : 3));
const SDKS = String(args.sdk ?? (QUICK ? '1' : '1,2')).split(',').map(Number);
const VARIANTS = String(args.variants ?? (args['tokio-native'] ? 'stock,patched,mainthread,tokio' : 'stock,patched,mainthread')).split(',');
const OFF_THREAD = { ...(args['batch-bytes'] ? { maxBatchBytes: Number(args['batch-bytes']) } : {}), ...(args['batch-messages'] ? { maxBatchMessages: Number(args['batch-messages']) } : {}) };
const FLOOD = fileURLToPath(new URL('./flood-server.mjs', import.meta.url));
const TIMEOUT_MS = 120_000;

const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function child() {
  const generation = Number(args.sdk);
  const checkReadBuffer = await installVariant(args.variant, ROOT, args.offThread ? JSON.parse(args.offThread) : undefined);
  const { loadSdk, callTool, onLogMessage } = require('../test/support/sdk.cjs');
  const sdk = await loadSdk(generation, 'esm');
  const client = new sdk.Client({ name: 'bench', version: '1.0.0' });
  let logs = 0;
  let errors = 0;
  onLogMessage(sdk, client, () => {
    logs++;
  });
  client.onerror = () => errors++;
  const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [FLOOD] });
  await client.connect(transport);
  checkReadBuffer(transport);

  const expectedText = JSON.parse(bigTextMessage(BIG_SIZE)[0]).result.content[0].text;
  async function measure(params, expectLogs) {
    logs = 0;
    await sleep(50); // let the connection settle: nothing pending
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    const result = await callTool(sdk, client, params, { timeout: TIMEOUT_MS });
    // Notification handlers may still be queued behind the response.
    while (logs < expectLogs && performance.now() - t0 < TIMEOUT_MS) await tick();
    const ms = performance.now() - t0;
    const busyMs = performance.eventLoopUtilization(elu0).active;
    // The turn that delivered the last message ends in this continuation:
    // the histogram records that turn's delay only when its timer fires
    // next, so give it a few timer turns before stopping it.
    await sleep(5);
    h.disable();
    if (params.name === 'big' && result.content[0].text !== expectedText) throw new Error('the 9 MiB result arrived altered');
    return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, meanMs: h.mean / 1e6, samples: h.count, ms, busyMs, logs };
  }
  // Warm-up (JIT, buffers) on both workloads.
  await measure({ name: 'logs', arguments: { count: 5000 } }, 5000);
  await measure({ name: 'big', arguments: {} }, 0);
  errors = 0;
  const small = await measure({ name: 'logs', arguments: { count: COUNT } }, COUNT);
  const big = await measure({ name: 'big', arguments: {} }, 0);
  await client.close();
  // The floor for the big message: JSON.parse of its line, in this process.
  const line = bigTextMessage(BIG_SIZE)[0];
  const parses = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    JSON.parse(line);
    parses.push(performance.now() - t0);
  }
  // The floor for the small messages: JSON.parse of each of their lines.
  const lines = logNotifications(COUNT);
  const smallParses = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    for (const l of lines) JSON.parse(l);
    smallParses.push(performance.now() - t0);
  }
  console.log(JSON.stringify({ small, big, parseMs: Math.min(...parses), smallParseMs: Math.min(...smallParses), errors }));
}

function runChild(variant, sdk) {
  const load = os.loadavg()[0];
  const extra = variant !== 'stock' && Object.keys(OFF_THREAD).length > 0 ? [`--offThread=${JSON.stringify(OFF_THREAD)}`] : [];
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', `--variant=${variant}`, `--sdk=${sdk}`, `--count=${COUNT}`, ...extra], {
    encoding: 'utf8',
    timeout: 3 * TIMEOUT_MS,
    env: variant === 'tokio' ? { ...process.env, MCP_ORDERED_DISPATCH_NATIVE: args['tokio-native'] } : process.env,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${variant} sdk ${sdk} failed (${r.signal ?? r.status}): ${r.stderr}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), load };
}

const f = (n) => n.toFixed(n >= 100 ? 0 : 1);

function measureAll() {
  const out = [];
  for (const sdk of SDKS) {
    const runs = rotatedRuns(VARIANTS, ROUNDS, (variant) => runChild(variant, sdk));
    const m = (variant, pick) => median(runs[variant].map(pick));
    const s = (variant) => ({
      smallP99: m(variant, (r) => r.small.p99Ms),
      smallMax: m(variant, (r) => r.small.maxMs),
      smallMs: m(variant, (r) => r.small.ms),
      samples: `${m(variant, (r) => r.small.samples)}/${m(variant, (r) => r.big.samples)}`,
      smallLogs: Math.min(...runs[variant].map((r) => r.small.logs)),
      bigMax: m(variant, (r) => r.big.maxMs),
      bigP99: m(variant, (r) => r.big.p99Ms),
      bigMs: m(variant, (r) => r.big.ms),
      smallBusy: m(variant, (r) => r.small.busyMs),
      bigBusy: m(variant, (r) => r.big.busyMs),
      errors: Math.max(...runs[variant].map((r) => r.errors)),
      load: runs[variant].map((r) => r.load.toFixed(1)).join('/'),
    });
    const all = Object.values(runs).flat();
    const parseMs = median(all.map((r) => r.parseMs));
    const smallParseMs = median(all.map((r) => r.smallParseMs));
    out.push({ sdk, ...Object.fromEntries(VARIANTS.map((v) => [v, s(v)])), parseMs, smallParseMs });
  }
  return out;
}

function rows(results) {
  const rows = [];
  const n = COUNT.toLocaleString('en-US');
  for (const result of results) {
    const { sdk, stock, parseMs, smallParseMs } = result;
    for (const [variant, label] of READER_VARIANTS) {
      const patched = result[variant];
      if (!patched || !stock) continue;
      rows.push({
        row: `(b) event-loop delay p99 while ${n} log notifications arrive from a real child, real ${sdk}.x Client${label} (median of ${ROUNDS})`,
        stock: stock.smallP99,
        patched: patched.smallP99,
        unit: 'ms',
        lowerIsBetter: true,
        target: 'p99 ≤ stock',
        met: patched.smallP99 <= stock.smallP99,
        note: `worst stall stock ${f(stock.smallMax)}, patched ${f(patched.smallMax)} ms; all received after stock ${f(stock.smallMs)}, patched ${f(patched.smallMs)} ms; main thread busy stock ${f(stock.smallBusy)}, patched ${f(patched.smallBusy)} ms (JSON.parse of the lines alone ${f(smallParseMs)} ms); notifications handled stock ${stock.smallLogs}, patched ${patched.smallLogs} of ${COUNT}; onerror stock ${stock.errors}, patched ${patched.errors}; delay samples (small/big) stock ${stock.samples}, patched ${patched.samples}; load ${stock.load} / ${patched.load}`,
      });
      rows.push({
        row: `(b) worst event-loop stall while one 9 MiB text result arrives from a real child, real ${sdk}.x Client${label} (median of ${ROUNDS})`,
        stock: stock.bigMax,
        patched: patched.bigMax,
        unit: 'ms',
        lowerIsBetter: true,
        target: `≤ ${TARGETS.stallVsParse}× JSON.parse of it (${f(TARGETS.stallVsParse * parseMs)} ms)`,
        met: patched.bigMax <= TARGETS.stallVsParse * parseMs,
        note: `JSON.parse of the message alone: ${f(parseMs)} ms (patched stall ${(patched.bigMax / parseMs).toFixed(2)}×, stock ${(stock.bigMax / parseMs).toFixed(2)}×); p99 stock ${f(stock.bigP99)}, patched ${f(patched.bigP99)} ms; received after stock ${f(stock.bigMs)}, patched ${f(patched.bigMs)} ms; main thread busy stock ${f(stock.bigBusy)}, patched ${f(patched.bigBusy)} ms`,
      });
    }
  }
  return rows;
}

if (args.child) {
  await child();
} else {
  const result = rows(measureAll());
  if (args.json) console.log(JSON.stringify({ rows: result }));
  else for (const r of result) console.log(`${r.row}\n  stock ${f(r.stock)} ms, patched ${f(r.patched)} ms; target ${r.target}: ${r.met ? 'met' : 'NOT MET'}\n  ${r.note}`);
}
