#!/usr/bin/env node
// Round trip of a single small request over a real child: a real SDK Client
// (StdioClientTransport) sends ping to a real SDK Server
// (bench/sdk-server.mjs, StdioServerTransport), one request at a time, and
// times each from request() to its response. Stock against patched
// (install() in both processes: the off-thread reader) and patched with the
// main-thread reader (install({ offThread: false }) in both), each pair of processes on its own,
// rotating which goes first, rounds in the same run. The issue's target: patched p50 no
// more than 20 µs above stock's.
//
//   node bench/roundtrip.mjs [--rounds=5] [--calls=2000] [--sdk=1,2] [--variants=stock,patched,mainthread]
//                          [--tokio-native=FILE: also variant 'tokio' (see bench/eventloop.mjs)]
//                          [--inline=BYTES (the off-thread reader's inlineMax; 0: every chunk hops to the worker)] [--json] [--quick]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { TARGETS, READER_VARIANTS, median, rotatedRuns, installVariant } from './workloads.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const QUICK = args.quick === true;
const CALLS = Math.min(Number(args.calls ?? (QUICK ? 300 : 2000)), 100_000);
const WARMUP = QUICK ? 100 : 500;
const ROUNDS = Number(args.rounds ?? (QUICK ? 1 : 5));
const SDKS = String(args.sdk ?? (QUICK ? '1' : '1,2')).split(',').map(Number);
const VARIANTS = String(args.variants ?? (args['tokio-native'] ? 'stock,patched,mainthread,tokio' : 'stock,patched,mainthread')).split(',');
const SERVER = fileURLToPath(new URL('./sdk-server.mjs', import.meta.url));

async function child() {
  const generation = Number(args.sdk);
  const checkReadBuffer = await installVariant(args.variant, ROOT, args.inline !== undefined ? { inlineMax: Number(args.inline) } : undefined);
  const { loadSdk } = require('../test/support/sdk.cjs');
  const sdk = await loadSdk(generation, 'esm');
  const client = new sdk.Client({ name: 'bench', version: '1.0.0' });
  const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [SERVER, `--sdk=${generation}`, `--variant=${args.variant}`, ...(args.inline !== undefined ? [`--inline=${args.inline}`] : [])],
    // The server loads the same addon (the SDK passes the child a default environment only).
    ...(process.env.MCP_ORDERED_DISPATCH_NATIVE ? { env: { MCP_ORDERED_DISPATCH_NATIVE: process.env.MCP_ORDERED_DISPATCH_NATIVE } } : {}),
  });
  await client.connect(transport);
  checkReadBuffer(transport);
  for (let i = 0; i < WARMUP; i++) await client.ping();
  const us = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await client.ping();
    us[i] = (performance.now() - t0) * 1000;
  }
  await client.close();
  us.sort();
  const at = (p) => us[Math.min(CALLS - 1, Math.floor((p / 100) * CALLS))];
  console.log(JSON.stringify({ p50: at(50), p99: at(99) }));
}

function runChild(variant, sdk) {
  const load = os.loadavg()[0];
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', `--variant=${variant}`, `--sdk=${sdk}`, `--calls=${CALLS}`, ...(args.inline !== undefined ? [`--inline=${args.inline}`] : [])], {
    encoding: 'utf8',
    timeout: 120_000,
    env: variant === 'tokio' ? { ...process.env, MCP_ORDERED_DISPATCH_NATIVE: args['tokio-native'] } : process.env,
  });
  if (r.status !== 0) throw new Error(`${variant} sdk ${sdk} failed (${r.signal ?? r.status}): ${r.stderr}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), load };
}

function measureAll() {
  const out = [];
  for (const sdk of SDKS) {
    const runs = rotatedRuns(VARIANTS, ROUNDS, (variant) => runChild(variant, sdk));
    const s = (v) => ({
      p50: median(runs[v].map((r) => r.p50)),
      p99: median(runs[v].map((r) => r.p99)),
      all: runs[v].map((r) => r.p50.toFixed(0)).join(', '),
      load: runs[v].map((r) => r.load.toFixed(1)).join('/'),
    });
    out.push({ sdk, ...Object.fromEntries(VARIANTS.map((v) => [v, s(v)])) });
  }
  return out;
}

function rows(results) {
  const rows = [];
  for (const result of results) {
    const { sdk, stock } = result;
    for (const [variant, label] of READER_VARIANTS) {
      const patched = result[variant];
      if (!patched || !stock) continue;
      const what = `${CALLS} sequential pings, real ${sdk}.x Client → real ${sdk}.x Server over a real stdio child, both processes patched${label} or both stock (median of ${ROUNDS} runs)`;
      rows.push({
        row: `(c) round trip p50 of one small request, ${what}`,
        stock: stock.p50,
        patched: patched.p50,
        unit: 'µs',
        lowerIsBetter: true,
        target: `≤ stock + ${TARGETS.roundTripP50Us} µs`,
        met: patched.p50 <= stock.p50 + TARGETS.roundTripP50Us,
        note: `patched − stock: ${(patched.p50 - stock.p50).toFixed(1)} µs; per run p50 stock ${stock.all}, patched ${patched.all} µs; load ${stock.load} / ${patched.load}`,
      });
      rows.push({
        row: `(c) round trip p99 of one small request, same runs${label}`,
        stock: stock.p99,
        patched: patched.p99,
        unit: 'µs',
        lowerIsBetter: true,
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
  else for (const r of result) console.log(`${r.row}\n  stock ${r.stock.toFixed(1)} µs, patched ${r.patched.toFixed(1)} µs${r.target ? `; target ${r.target}: ${r.met ? 'met' : 'NOT MET'}` : ''}${r.note ? `\n  ${r.note}` : ''}`);
}
