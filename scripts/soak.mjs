#!/usr/bin/env node
// `npm run soak`: the stdio reproduction under contention. Six worker
// processes run in parallel for the given time, each looping a patched real
// Client (fresh StdioClientTransport + raw server per round) with a different
// SDK version, build and server write pattern; then a summary: calls,
// progress expected and received, errors. Exits 1 if anything was lost or
// failed. Not part of CI by default; a short run is test/patch/soak.test.mjs.
//
//   npm run soak                      1 minute
//   npm run soak -- --minutes=10
//   node scripts/soak.mjs --seconds=8 [--json]
//   node scripts/soak.mjs --rounds=4 [--json]   each worker runs exactly 4 rounds, however long they take
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));

// Mixed SDK generations (and versions, see test/support/matrix.cjs), builds and modes.
const WORKERS = [
  { entry: '1.32.2', build: 'esm', mode: 'last-with-response', concurrency: 3 },
  { entry: '2.4.0', build: 'cjs', mode: 'all-in-one', concurrency: 5 },
  { entry: '1.0.0', build: 'esm', mode: 'all-in-one', concurrency: 4 },
  { entry: '2.0.0', build: 'esm', mode: 'separate', gap: 'immediate', concurrency: 4 },
  { entry: '1.23.0', build: 'cjs', mode: 'separate', gap: 'immediate', concurrency: 4 },
  { entry: '2.4.0', build: 'esm', mode: 'last-with-response', gap: 'immediate', concurrency: 8 },
];

async function worker() {
  const w = JSON.parse(args.worker);
  const { entry, loadEntry } = require('../test/support/matrix.cjs');
  const { runRepro } = require('../test/support/repro.cjs');
  const { patchProtocol } = require('../entries/index.cjs');
  const e = entry(w.entry);
  const sdk = await loadEntry(e, w.build === 'esm' ? (s) => import(s) : async (s) => require(s));
  for (const Protocol of sdk.Protocols) patchProtocol(Protocol);
  const total = { rounds: 0, calls: 0, progressExpected: 0, progressReceived: 0, lost: 0, callsOutOfOrder: 0, callsFailed: 0, onerrors: 0, failures: [], onerrorSamples: [] };
  const until = Number(args.until);
  const rounds = Number(args.rounds);
  while (args.rounds === undefined ? Date.now() < until : total.rounds < rounds) {
    const r = await runRepro(
      { Client: sdk.Client, StdioClientTransport: sdk.StdioClientTransport, generation: e.generation },
      { pairs: 1, concurrency: w.concurrency, mode: w.mode, gap: w.gap, progress: 3 },
    );
    total.rounds++;
    for (const key of ['calls', 'progressExpected', 'progressReceived', 'lost', 'callsOutOfOrder', 'callsFailed']) total[key] += r[key];
    total.onerrors += r.onerrorCount;
    if (total.failures.length < 3) total.failures.push(...r.failures.slice(0, 3 - total.failures.length));
    if (total.onerrorSamples.length < 3) total.onerrorSamples.push(...r.onerrors.slice(0, 3 - total.onerrorSamples.length));
  }
  console.log(JSON.stringify(total));
}

function runWorker(w, bound) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), `--worker=${JSON.stringify(w)}`, bound], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.once('close', (code, signal) => {
      let result;
      try {
        result = JSON.parse(stdout.trim().split('\n').pop());
      } catch {
        result = undefined;
      }
      resolve({ ...w, code, signal, result, stderr: stderr.slice(-2000) });
    });
  });
}

async function main() {
  const rounds = args.rounds === undefined ? undefined : Number(args.rounds);
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds > 0)) throw new Error(`--rounds must be a positive integer, got ${args.rounds}`);
  const seconds = args.seconds !== undefined ? Number(args.seconds) : 60 * Number(args.minutes ?? 1);
  if (rounds === undefined && !(seconds > 0)) throw new Error(`--minutes/--seconds must be positive, got ${args.minutes ?? args.seconds}`);
  const started = Date.now();
  const bound = rounds === undefined ? `--until=${started + seconds * 1000}` : `--rounds=${rounds}`;
  if (!args.json) console.error(rounds === undefined ? `soak: ${WORKERS.length} workers for ${seconds} s...` : `soak: ${WORKERS.length} workers, ${rounds} rounds each...`);
  const ticker = args.json
    ? undefined
    : setInterval(() => console.error(`soak: ${Math.round((Date.now() - started) / 1000)} s${rounds === undefined ? ` of ${seconds}` : ''}`), 15_000);
  const runs = await Promise.all(WORKERS.map((w) => runWorker(w, bound)));
  if (ticker) clearInterval(ticker);

  const sum = (key) => runs.reduce((n, r) => n + (r.result?.[key] ?? 0), 0);
  const crashed = runs.filter((r) => r.code !== 0 || !r.result);
  const summary = {
    seconds: Math.round((Date.now() - started) / 100) / 10,
    workers: runs.length,
    rounds: sum('rounds'),
    calls: sum('calls'),
    progressExpected: sum('progressExpected'),
    progressReceived: sum('progressReceived'),
    lost: sum('lost'),
    callsOutOfOrder: sum('callsOutOfOrder'),
    callsFailed: sum('callsFailed'),
    onerrors: sum('onerrors'),
    crashedWorkers: crashed.length,
    errors: sum('callsFailed') + sum('onerrors') + crashed.length,
    perWorker: runs.map((r) => ({
      sdk: r.entry,
      build: r.build,
      mode: r.mode + (r.gap ? ` (gap ${r.gap})` : ''),
      concurrency: r.concurrency,
      exit: r.signal ?? r.code,
      ...(r.result ?? { stderr: r.stderr }),
    })),
  };
  const ok = summary.errors === 0 && summary.lost === 0 && summary.progressReceived === summary.progressExpected && summary.calls > 0;
  if (args.json) {
    console.log(JSON.stringify({ ok, ...summary }));
  } else {
    console.log(`\nsoak: ${summary.workers} patched workers in parallel for ${summary.seconds} s (node ${process.version})\n`);
    console.log('| SDK | build | server writes | calls in flight | rounds | calls | progress expected | received | lost | errors |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const w of summary.perWorker) {
      const errs = (w.callsFailed ?? 0) + (w.onerrors ?? 0) + (w.exit === 0 ? 0 : 1);
      console.log(`| ${w.sdk} | ${w.build} | ${w.mode} | ${w.concurrency} | ${w.rounds ?? '—'} | ${w.calls ?? '—'} | ${w.progressExpected ?? '—'} | ${w.progressReceived ?? '—'} | ${w.lost ?? '—'} | ${errs} |`);
    }
    console.log(
      `\ntotal: ${summary.calls} calls, progress ${summary.progressReceived} of ${summary.progressExpected} received, ` +
        `${summary.lost} lost, ${summary.errors} errors (failed calls ${summary.callsFailed}, onerrors ${summary.onerrors}, crashed workers ${summary.crashedWorkers})`,
    );
    for (const w of summary.perWorker) {
      if (w.stderr) console.log(`\n${w.sdk} ${w.build} ${w.mode}: exited ${w.exit}\n${w.stderr}`);
      for (const f of [...(w.failures ?? []), ...(w.onerrorSamples ?? [])]) console.log(`${w.sdk} ${w.build}: ${f}`);
    }
  }
  process.exitCode = ok ? 0 : 1;
}

if (args.worker) await worker();
else await main();
