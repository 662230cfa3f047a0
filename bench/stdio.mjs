// Benchmark (c): end to end over a real stdio child. One Client with
// StdioClientTransport against the raw test server (no SDK), 8 calls in
// flight, 10 progress notifications per call, each message in its own write
// (setImmediate between writes, so reads coalesce as they do under load).
// Stock, patched (install(): the off-thread reader) and patched with the
// main-thread reader (offThread: false) run in separate processes,
// alternating, in the same run.
//
//   node bench/stdio.mjs [--calls=400] [--rounds=3] [--sdk=1,2]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { READER_VARIANTS, installVariant } from './workloads.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const CALLS = Number(args.calls ?? 400);
const CONCURRENCY = 8;
const PROGRESS = 10;

async function child() {
  const generation = Number(args.sdk);
  const { loadSdk, callTool } = require('../test/support/sdk.cjs');
  const { SERVER_PATH } = require('../test/support/repro.cjs');
  const checkReadBuffer = await installVariant(args.variant, ROOT);
  const sdk = await loadSdk(generation, 'esm');
  const client = new sdk.Client({ name: 'bench', version: '1.0.0' });
  let errors = 0;
  client.onerror = () => errors++;
  const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [SERVER_PATH, '--mode=separate', '--gap=immediate', `--progress=${PROGRESS}`] });
  await client.connect(transport);
  checkReadBuffer(transport);
  let progress = 0;
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      next++;
      await callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: () => progress++ });
    }
  };
  await worker(); // warm-up call
  next = 0;
  progress = 0;
  errors = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await client.close();
  console.log(JSON.stringify({ callsPerSecond: CALLS / seconds, progress, expected: CALLS * PROGRESS, errors }));
}

function runChild(variant, sdk) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', `--variant=${variant}`, `--sdk=${sdk}`, `--calls=${CALLS}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${variant} sdk ${sdk} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function measureStdio({ rounds = Number(args.rounds ?? 3), sdks = String(args.sdk ?? '1,2').split(',').map(Number) } = {}) {
  const rows = [];
  for (const sdk of sdks) {
    const samples = { stock: [], patched: [], mainthread: [] };
    const last = {};
    for (let i = 0; i < rounds; i++) {
      for (const variant of Object.keys(samples)) {
        last[variant] = runChild(variant, sdk);
        samples[variant].push(last[variant].callsPerSecond);
      }
    }
    rows.push({ sdk, ...Object.fromEntries(Object.entries(samples).map(([variant, xs]) => [variant, median(xs)])), last });
  }
  return rows;
}

if (args.child) {
  await child();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = [];
  for (const r of measureStdio()) {
    for (const [variant, label] of READER_VARIANTS) {
      if (r[variant] === undefined) continue;
      rows.push({
        row: `(c) calls per second over a real stdio child, ${r.sdk}.x, ${CONCURRENCY} concurrent, ${PROGRESS} progress per call${label}`,
        stock: r.stock,
        patched: r[variant],
        unit: 'calls/s',
        lowerIsBetter: false,
        note: `progress received: stock ${r.last.stock.progress}, patched ${r.last[variant].progress} of ${r.last[variant].expected}; onerror: stock ${r.last.stock.errors}, patched ${r.last[variant].errors}`,
      });
    }
  }
  if (args.json) console.log(JSON.stringify({ rows }));
  else for (const r of rows) console.log(`${r.row}: stock ${r.stock.toFixed(0)}, patched ${r.patched.toFixed(0)} calls/s (${(r.patched / r.stock).toFixed(2)}×); ${r.note}`);
}
