// Benchmark: what `register` costs an app that imports a large bundle holding
// an SDK copy: `import('@anthropic-ai/claude-agent-sdk')`, whose 1.5 MB
// sdk.mjs bundles the MCP SDK 1.x (issue 55's target: ≤ 1.10× stock on Node
// 24, ≤ 1.20× on Node 20, whose module.register() hooks run on a loader thread).
//
// The Agent SDK, pinned, is installed once into .cache/agent-sdk (git-ignored;
// `npm install --prefix .cache/agent-sdk --no-save --ignore-scripts
// --omit=optional`, as scripts/check-hosts.mjs installs hosts: nothing is
// downloaded when it is there). The app is one ES module there that imports it.
//
// Variants, each a whole process (`node app.mjs`), wall time and CPU time
// (user + system, every thread: process.resourceUsage() read as the process
// exits, the same one-line report in every variant):
//   stock   no register
//   warm    register as `mcp-ordered-dispatch run` puts it into a host's
//           environment (lib/run/plan.cjs's childEnv for `node`:
//           NODE_OPTIONS=--require=<this checkout>/entries/register.cjs and
//           the MCP_ORDERED_DISPATCH_RUN marker), its search-by-shape cache
//           (MCP_ORDERED_DISPATCH_CACHE_DIR) a folder of the bench's that
//           already holds sdk.mjs's entry
//   cold    the same with a new, empty cache folder per run: a first run
//   floor   a no-op load hook of the kind register uses on the line, put in
//           the same way (NODE_OPTIONS=--require): module.registerHooks()'s,
//           or on Node 20 module.register()'s, whose loader thread alone
//           costs what no hook's work can avoid
// RUNS runs of each, interleaved (each variant in each position in turn, so
// a busy machine slows all alike), on this machine's Node and on Node 24
// (.node-lines/, installed by scripts/node-lines.mjs on first use); medians.
//
// With --instructions, each variant is also counted once in instructions by
// callgrind (valgrind, where installed; --single-threaded --hash-seed=1, as
// bench/startup.mjs counts), which wall time on a shared machine cannot resolve.
//
//   node bench/agent-sdk.mjs [--runs=21] [--lines=24.22.3] [--quick] [--instructions] [--json]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureNode } from '../scripts/node-lines.mjs';
import { baseEnv, runEnv } from './run-env.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const RUNS = Number(args.runs ?? (args.quick ? 5 : 21));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LINES = args.lines ? String(args.lines).split(',') : ['24.22.3'];

const PACKAGE = '@anthropic-ai/claude-agent-sdk';
const VERSION = '0.3.337';
const DIR = path.join(ROOT, '.cache', 'agent-sdk');
const APP = path.join(DIR, 'app.mjs');
const WARM_CACHE = path.join(DIR, 'register-cache');
// The floors: a --require preload that puts in a load hook that only calls the next one.
const FLOOR = path.join(DIR, 'floor-hook.cjs');
const FLOOR_THREAD = path.join(DIR, 'floor-hook-thread.mjs');
// Targets, by whether the line has module.registerHooks() (in-thread) or module.register() (a loader thread).
const TARGET = { registerHooks: 1.1, register: 1.2 };

/** The pinned Agent SDK in .cache/agent-sdk, installed when missing. */
function ensureAgentSdk() {
  const manifest = path.join(DIR, 'node_modules', PACKAGE, 'package.json');
  const installed = fs.existsSync(manifest) ? JSON.parse(fs.readFileSync(manifest, 'utf8')).version : undefined;
  if (installed !== VERSION) {
    process.stderr.write(`installing ${PACKAGE}@${VERSION} into ${path.relative(ROOT, DIR)}...\n`);
    fs.mkdirSync(DIR, { recursive: true });
    const r = spawnSync('npm', ['install', '--prefix', DIR, '--no-save', '--no-package-lock', '--ignore-scripts', '--omit=optional', '--no-audit', '--no-fund', `${PACKAGE}@${VERSION}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`npm install of ${PACKAGE}@${VERSION} failed`);
  }
  // The app: the import, and the process's CPU time as it exits.
  fs.writeFileSync(APP, `await import(${JSON.stringify(PACKAGE)});\nprocess.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('cpu=' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n`);
  fs.writeFileSync(FLOOR_THREAD, 'export async function load(url, context, nextLoad) { return nextLoad(url, context); }\n');
  fs.writeFileSync(
    FLOOR,
    `const Module = require('node:module');
if (typeof Module.registerHooks === 'function') Module.registerHooks({ load: (url, context, nextLoad) => nextLoad(url, context) });
else if (require('node:worker_threads').isMainThread) Module.register(${JSON.stringify(pathToFileURL(FLOOR_THREAD).href)});
`,
  );
  return fs.statSync(path.join(DIR, 'node_modules', PACKAGE, 'sdk.mjs')).size;
}


const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rotations = (names) => names.map((_, i) => [...names.slice(i), ...names.slice(0, i)]);

const VARIANTS = ['stock', 'floor', 'warm', 'cold'];

/** Variant `v`'s environment; `cold` gets a new cache folder (returned, to remove). */
function envOf(v, stockEnv, registerEnv) {
  if (v === 'stock') return { env: stockEnv };
  if (v === 'floor') return { env: { ...stockEnv, NODE_OPTIONS: `--require=${FLOOR}` } };
  if (v === 'warm') return { env: { ...registerEnv, MCP_ORDERED_DISPATCH_CACHE_DIR: WARM_CACHE } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-agent-sdk-cold-'));
  return { env: { ...registerEnv, MCP_ORDERED_DISPATCH_CACHE_DIR: dir }, dir };
}

function once(bin, v, stockEnv, registerEnv, flags = []) {
  const { env, dir } = envOf(v, stockEnv, registerEnv);
  try {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(bin, [...flags, APP], { cwd: DIR, env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = r.stderr.match(/^cpu=(\d+)\n/m);
    const extra = r.stderr.replace(/^cpu=\d+\n/m, '');
    if (r.status !== 0 || !cpu || extra !== '') throw new Error(`${bin} ${APP} (${v}) exited ${r.status}: ${r.stderr}`);
    return { ms, cpuMs: Number(cpu[1]) / 1000 };
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

const INSTRUCTION_FLAGS = ['--single-threaded', '--hash-seed=1', '--initial-old-space-size=64'];

function instructions(bin, v, stockEnv, registerEnv) {
  const { env, dir } = envOf(v, stockEnv, registerEnv);
  try {
    const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', bin, ...INSTRUCTION_FLAGS, APP], { cwd: DIR, env, encoding: 'utf8' });
    const collected = r.stderr.match(/Collected : (\d+)/);
    if (r.status !== 0 || !collected) throw new Error(`valgrind ${bin} ${APP} (${v}) exited ${r.status}: ${r.stderr.slice(-2000)}`);
    return Number(collected[1]) / 1e6;
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function measure(bin, version, stockEnv, registerEnv) {
  const hasHooks = spawnSync(bin, ['-p', 'typeof require("node:module").registerHooks'], { encoding: 'utf8' }).stdout.trim() === 'function';
  const hooks = hasHooks ? 'registerHooks' : 'register';
  // The file cache warmed, and the warm register cache filled, by one run of each.
  fs.rmSync(WARM_CACHE, { recursive: true, force: true });
  for (const v of VARIANTS) once(bin, v, stockEnv, registerEnv);
  const samples = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  const orders = rotations(VARIANTS);
  for (let i = 0; i < RUNS; i++) for (const v of orders[i % orders.length]) samples[v].push(once(bin, v, stockEnv, registerEnv));
  const ms = (v) => median(samples[v].map((s) => s.ms));
  const cpu = (v) => median(samples[v].map((s) => s.cpuMs));
  const counts = args.instructions ? Object.fromEntries(VARIANTS.map((v) => [v, instructions(bin, v, stockEnv, registerEnv)])) : undefined;
  const rows = [];
  for (const v of ['warm', 'cold']) {
    const row = {
      row: `Agent SDK ${VERSION} import (1.5 MB sdk.mjs), node ${version}: run's NODE_OPTIONS, ${v} cache`,
      stock: ms('stock'),
      patched: ms(v),
      unit: 'ms',
      lowerIsBetter: true,
      cpu: { stock: cpu('stock'), patched: cpu(v) },
      floor: { ms: ms('floor'), cpu: cpu('floor') },
      note:
        `wall, median of ${RUNS} interleaved; ${hasHooks ? 'module.registerHooks()' : 'module.register() (a loader thread)'}; ` +
        `CPU ${cpu('stock').toFixed(0)} → ${cpu(v).toFixed(0)} ms (${(cpu(v) / cpu('stock')).toFixed(2)}×); ` +
        `a no-op hook of the same kind ${(ms('floor') / ms('stock')).toFixed(2)}× wall, ${(cpu('floor') / cpu('stock')).toFixed(2)}× CPU` +
        (counts ? `; instructions ${counts.stock.toFixed(0)} → ${counts[v].toFixed(0)} M (${(counts[v] / counts.stock).toFixed(3)}×)` : ''),
    };
    if (counts) row.instructions = { stock: counts.stock, patched: counts[v], floor: counts.floor };
    if (v === 'warm') {
      row.target = `≤ ${TARGET[hooks].toFixed(2)}× (issue 55)`;
      row.met = ms(v) / ms('stock') <= TARGET[hooks];
    }
    rows.push(row);
    process.stderr.write(
      `  node ${version}, ${v}: stock ${ms('stock').toFixed(1)} ms, register ${ms(v).toFixed(1)} ms (${(ms(v) / ms('stock')).toFixed(2)}×); ` +
        `CPU ${cpu('stock').toFixed(1)} → ${cpu(v).toFixed(1)} ms (${(cpu(v) / cpu('stock')).toFixed(2)}×); ` +
        `no-op hook ${(ms('floor') / ms('stock')).toFixed(2)}× wall, ${(cpu('floor') / cpu('stock')).toFixed(2)}× CPU` +
        `${counts ? `; instructions ${(counts[v] / counts.stock).toFixed(3)}× (no-op hook ${(counts.floor / counts.stock).toFixed(3)}×)` : ''}\n`,
    );
  }
  return rows;
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();
const size = ensureAgentSdk();
const stockEnv = baseEnv();
const registerEnv = runEnv(DIR);
const rows = [];
for (const [bin, version] of [[process.execPath, process.version.slice(1)], ...LINES.map((v) => [ensureNode(v), v])]) {
  rows.push(...measure(bin, version, stockEnv, registerEnv));
}
fs.rmSync(WARM_CACHE, { recursive: true, force: true });

if (args.json) {
  console.log(JSON.stringify({ rows }));
} else {
  console.log(`\n${PACKAGE}@${VERSION} import (sdk.mjs ${(size / 1e6).toFixed(2)} MB), ${RUNS} interleaved runs, ${os.cpus().length} CPUs, load average ${loadBefore} before, ${load()} after\n`);
  console.log('| Node | cache | stock wall | register wall | ratio | stock CPU | register CPU | ratio | no-op hook: wall / CPU ratio |' + (args.instructions ? ' instructions ratio (no-op hook) |' : '') + ' target |');
  console.log('|---|---|---|---|---|---|---|---|---|' + (args.instructions ? '---|' : '') + '---|');
  for (const r of rows) {
    const [, version, cache] = r.row.match(/node (\S+): .*, (\w+) cache/);
    const ins = r.instructions ? ` ${(r.instructions.patched / r.instructions.stock).toFixed(3)}× (${(r.instructions.floor / r.instructions.stock).toFixed(3)}×) |` : '';
    const target = r.target ? `${r.target}: ${r.met ? 'met' : '**not met**'}` : '';
    console.log(`| ${version} | ${cache} | ${r.stock.toFixed(1)} ms | ${r.patched.toFixed(1)} ms | ${(r.patched / r.stock).toFixed(2)}× | ${r.cpu.stock.toFixed(1)} ms | ${r.cpu.patched.toFixed(1)} ms | ${(r.cpu.patched / r.cpu.stock).toFixed(2)}× | ${(r.floor.ms / r.stock).toFixed(2)}× / ${(r.floor.cpu / r.cpu.stock).toFixed(2)}× |${ins} ${target} |`);
  }
}
