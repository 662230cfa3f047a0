// Benchmark: what the per-child rule costs a fixed host for each command it
// runs: the host's own CPU (process.cpuUsage() around the loop, so neither
// the children's CPU nor the machine's other load is counted) for N starts
// of a command that does nothing, stock and under `run` (the host loads the
// SDK, so under run it is fixed and every start goes through the rule), the
// two interleaved run by run (each first in turn), medians. Rows:
//
//   spawnSync(abs)     spawnSync('/bin/true')
//   spawnSync(PATH)    spawnSync('true'): a name found on PATH
//   spawn              spawn('/bin/true'), awaited to its close
//   execSync           execSync('true'): through a shell
//
// Target (issue 64): ≤ 1.03× and ≤ 20 µs added per start.
//
// On a machine too noisy for CPU time, --instructions counts instead: the
// host's instructions (every thread, under valgrind's callgrind; the
// children are not traced) at two loop sizes, the difference over the
// starts between them, so start-up is not counted, with garbage collection
// held off in both (its timing moves the count more than the code does):
// the code's own instructions per start, stock beside run.
//
//   node bench/spawn.mjs [--runs=21] [--starts=300] [--quick] [--json] [--node=PATH]
//   node bench/spawn.mjs --instructions [--starts=1000] [--node=PATH]
//
// --node runs the host (and run) on another Node. Linux and macOS (the
// commands are /bin/true and true).
import { spawn, spawnSync, execSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.dirname(path.dirname(SELF));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const KINDS = {
  'spawnSync(abs)': () => spawnSync('/bin/true'),
  'spawnSync(PATH)': () => spawnSync('true'),
  spawn: () => new Promise((resolve) => spawn('/bin/true').once('close', resolve)),
  execSync: () => execSync('true'),
};
const TARGET_RATIO = 1.03;
/** Starts before the measured loop, in both: the optimizing compiler has compiled the wrapper and rule by then. */
const WARM = 300;
const TARGET_ADDED_US = 20;

if (args.host !== undefined) {
  // The host: the SDK loaded (under run, the thread is fixed), then the loop; prints µs of its own CPU per start.
  await import('@modelcontextprotocol/sdk/client/index.js');
  const once = KINDS[args.host];
  const starts = Number(args.starts);
  // Warmed past the compiler's tiers first: a host that runs commands all day compiles the wrapper once.
  for (let i = 0; i < WARM; i++) await once();
  const before = process.cpuUsage();
  for (let i = 0; i < starts; i++) await once();
  const used = process.cpuUsage(before);
  process.stdout.write(`${(used.user + used.system) / starts}\n`);
} else if (args.instructions) {
  // Instructions per start: (count at BASE + starts − count at BASE) / starts, stock and under run.
  const { mkdtempSync, readdirSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const starts = Number(args.starts ?? 1000);
  const BASE = 50;
  // Garbage collection held off in both (a young space and an old space larger than the loop fills): when a
  // collection falls inside the loop differs from run to run by more than the code measured.
  const QUIET_GC = ['--min-semi-space-size=64', '--max-semi-space-size=64', '--initial-old-space-size=1024'];
  const node = typeof args.node === 'string' ? args.node : process.execPath;
  const env = { ...process.env };
  for (const name of ['NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD']) delete env[name];
  const out = mkdtempSync(path.join(tmpdir(), 'mcp-od-spawn-ir-'));
  const count = (kind, n, underRun) => {
    const traced = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${path.join(out, 'cg.%p')}`, node, ...QUIET_GC, SELF, `--host=${kind}`, `--starts=${n}`];
    const argv = underRun ? [node, BIN, 'run', '--', ...traced] : traced;
    const r = spawnSync(argv[0], argv.slice(1), { cwd: ROOT, env, encoding: 'utf8' });
    const collected = /Collected : (\d+)/.exec(r.stderr ?? '');
    if (r.status !== 0 || collected === null) throw new Error(`${argv.join(' ')} failed (is valgrind installed?): ${r.error?.message ?? r.stderr}`);
    return Number(collected[1]);
  };
  try {
    for (const kind of Object.keys(KINDS)) {
      const per = (underRun) => (count(kind, BASE + starts, underRun) - count(kind, BASE, underRun)) / starts;
      const stock = per(false);
      const fixed = per(true);
      console.log(`host instructions per start, ${kind}: stock ${Math.round(stock)}, run ${Math.round(fixed)}; ratio ${(fixed / stock).toFixed(3)}, ${Math.round(fixed - stock)} added (${starts} starts, collections held off, ${path.basename(node)} ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()})`);
    }
  } finally {
    for (const f of readdirSync(out)) rmSync(path.join(out, f), { force: true });
    rmSync(out, { recursive: true, force: true });
  }
} else {
  const runs = Number(args.runs ?? (args.quick ? 3 : 21));
  const starts = Number(args.starts ?? (args.quick ? 50 : 300));
  const node = typeof args.node === 'string' ? args.node : process.execPath;
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  for (const name of ['NODE_OPTIONS', 'MCP_ORDERED_DISPATCH_RUN', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD']) delete env[name];
  const host = (kind) => [node, SELF, `--host=${kind}`, `--starts=${starts}`];
  const measure = (argv) => {
    const r = spawnSync(argv[0], argv.slice(1), { cwd: ROOT, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr}`);
    return Number(r.stdout.trim().split('\n').pop());
  };
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = [];
  for (const kind of Object.keys(KINDS)) {
    const stock = [];
    const fixed = [];
    const ratios = [];
    for (let i = 0; i < runs; i++) {
      // Each first in turn.
      let s;
      let f;
      if (i % 2 === 0) {
        s = measure(host(kind));
        f = measure([node, BIN, 'run', '--', ...host(kind)]);
      } else {
        f = measure([node, BIN, 'run', '--', ...host(kind)]);
        s = measure(host(kind));
      }
      stock.push(s);
      fixed.push(f);
      ratios.push(f / s);
    }
    const ratio = median(ratios);
    const added = median(fixed) - median(stock);
    rows.push({ row: `host CPU per start, ${kind}`, stock: median(stock), patched: median(fixed), unit: 'µs', lowerIsBetter: true, note: `ratio ${ratio.toFixed(3)} (median of ${runs} pairs), ${added.toFixed(1)} µs added`, target: `≤ ${TARGET_RATIO}× and ≤ ${TARGET_ADDED_US} µs added`, met: ratio <= TARGET_RATIO && added <= TARGET_ADDED_US });
  }
  if (args.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
  else for (const r of rows) console.log(`${r.row}: stock ${r.stock.toFixed(1)} µs, run ${r.patched.toFixed(1)} µs; ${r.note} (target ${r.target}: ${r.met ? 'met' : 'not met'})`);
}
