// Benchmark: what `register` costs a process at start, on each Node line
// (the machine's Node and scripts/node-lines.mjs's 22, 24, 26, installed into
// .node-lines/ on first use). Wall time of a whole process, stock against
// `--import mcp-ordered-dispatch/register`, runs interleaved (each variant in
// each position in turn) so that a busy machine slows all alike; medians.
//
// Measured as a user runs it: from an application directory built for the
// run (in the OS temp dir, removed after) whose node_modules holds a copy of
// the files this package ships (package.json `files`), the platform package
// with this checkout's addon build (npm/<abi>/package.json and the .node
// file), and the SDK packages (links to this checkout's node_modules).
//
//   -e 0            a process that never touches the SDK (every node, npm,
//                   npx a host starts with register in NODE_OPTIONS)
//   SDK 1.x / 2.x   a process whose first lines import the SDK client and its
//                   stdio transport (ES modules), then exit
//   heavy           an ES-module-heavy host: lodash-es, date-fns and the SDK
//                   1.x client (1,109 ES modules), target ≤ 1.15× on every line
//
// Targets for register's start cost: ≤ 1.05× stock for -e 0 and ≤ 1.10× for the SDK import on
// Node 22.15+, 24 and 26 (module.registerHooks()). Node 20 has only
// module.register() and its loader thread: shown for comparison.
//
// With --instructions (callgrind from valgrind, where installed), the same
// variants are also counted in instructions, which wall time on a shared
// machine cannot resolve: one run each (the counts repeat to within 0.01%:
// V8's background threads and random hash seed are turned off with
// --single-threaded --hash-seed=1 in every variant alike, and
// --initial-old-space-size=64 keeps the first major GC out of all of them:
// where it falls is a threshold that one more megabyte of heap crosses or
// not, and on threads the SDK imports have one in every variant). --instructions
// counts `-e 0` only (about 3 s a process); --instructions=all the SDK
// imports too (about 15 s a process).
//
//   node bench/startup.mjs [--runs=21] [--lines=22.23.5,26.12.1] [--quick] [--instructions[=all]] [--json] [--keep]
//                          [--workloads=e0,sdk,heavy]
//
// --keep leaves the application directory in place (its path is printed) for profiling.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode, selectedLines } from '../scripts/node-lines.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const RUNS = Number(args.runs ?? (args.quick ? 5 : 21));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const lines = args.lines ? String(args.lines).split(',') : selectedLines();

// Each workload as the command itself: wall time and instructions are
// measured on exactly that. Max RSS and CPU time (all threads) come from
// separate runs (REPORT_RUNS per variant, interleaved) whose code also
// reports them as the process exits: writing to stderr at exit costs a
// short process like `-e 0` a few milliseconds of its own, which would
// dilute the ratios.
const REPORT = `;process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('maxrss=' + u.maxRSS + ' cpu=' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });`;
const REPORT_RUNS = args.quick ? 3 : 5;
const WORKLOADS = [
  { name: '-e 0', sdk: false, flags: [], code: '0' },
  {
    name: 'SDK 1.x client + stdio import',
    sdk: true,
    flags: ['--input-type=module'],
    code: "import '@modelcontextprotocol/sdk/client/index.js'; import '@modelcontextprotocol/sdk/client/stdio.js';",
  },
  {
    name: 'SDK 2.x client + stdio import',
    sdk: true,
    flags: ['--input-type=module'],
    code: "import '@modelcontextprotocol/client'; import '@modelcontextprotocol/client/stdio';",
  },
  {
    // An ES-module-heavy host: 1,109 ES modules (1,201 modules in all), as
    // hosts built on lodash-es load; what a loader round trip per module costs.
    name: 'ES-module-heavy host (lodash-es, date-fns, SDK 1.x client + stdio: 1,109 ES modules)',
    key: 'heavy',
    sdk: true,
    flags: ['--input-type=module'],
    code: "import 'lodash-es'; import 'date-fns'; import '@modelcontextprotocol/sdk/client/index.js'; import '@modelcontextprotocol/sdk/client/stdio.js';",
  },
].filter((w) => args.workloads === undefined || String(args.workloads).split(',').includes(w.key ?? (w.sdk ? 'sdk' : 'e0')));
/** A workload's command line, with the exit report or without. */
const commandOf = (w, report = false) => [...w.flags, '-e', report ? w.code + REPORT : w.code];

// The floors, each `--import`ed by the same kind of specifier as register
// (a bare package subpath resolved through an `exports` map from the
// application's node_modules), measured in the same runs:
//   empty   an empty ES module: Node's own cost of the command itself
//           (starting the ES module loader for the flag, resolving the
//           package), the least any package's `--import` entry can cost;
//   hook    a module whose module.registerHooks() load hook only calls the
//           next one (bench/floor-registerhooks.mjs), where the line has
//           registerHooks: what Node's own hook plumbing costs every module
//           once any load hook is in, before register's hook does anything.
const FLOOR_PACKAGE = 'startup-floor';
const VARIANTS = {
  stock: [],
  empty: ['--import', `${FLOOR_PACKAGE}/empty`],
  hook: ['--import', `${FLOOR_PACKAGE}/floor-registerhooks`],
  // Where the line has no registerHooks: a no-op module.register() hook (bench/floor-module-register.mjs).
  registerHook: ['--import', `${FLOOR_PACKAGE}/floor-module-register`],
  register: ['--import', 'mcp-ordered-dispatch/register'],
};

/** The application directory: package.json and node_modules as a user's install has them. */
function makeApp() {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-startup-'));
  const nm = path.join(app, 'node_modules');
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'startup-bench-app', version: '1.0.0', private: true }));
  // This package: the files it ships.
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const own = path.join(nm, pkg.name);
  fs.mkdirSync(own, { recursive: true });
  for (const entry of ['package.json', ...pkg.files]) fs.cpSync(path.join(ROOT, entry), path.join(own, entry), { recursive: true });
  // Its platform package, holding this checkout's build of the addon.
  const { platformArchABI, binaryFileName, platformPackageName, localBuildPath, npmDirOf } = createRequire(import.meta.url)('../lib/native/platform.cjs');
  const abi = platformArchABI();
  const platformDir = path.join(nm, platformPackageName(abi));
  fs.mkdirSync(platformDir);
  fs.copyFileSync(path.join(npmDirOf(abi), 'package.json'), path.join(platformDir, 'package.json'));
  fs.copyFileSync(localBuildPath(abi), path.join(platformDir, binaryFileName(abi)));
  // The SDK packages (their own dependencies resolve from this checkout's node_modules).
  fs.mkdirSync(path.join(nm, '@modelcontextprotocol'));
  for (const name of ['sdk', 'client']) {
    fs.symlinkSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', name), path.join(nm, '@modelcontextprotocol', name), 'dir');
  }
  // The floors' package.
  const floor = path.join(nm, FLOOR_PACKAGE);
  fs.mkdirSync(floor);
  fs.writeFileSync(
    path.join(floor, 'package.json'),
    JSON.stringify({
      name: FLOOR_PACKAGE,
      version: '1.0.0',
      exports: {
        './empty': { import: './empty.mjs', require: './empty.cjs' },
        './floor-registerhooks': { import: './floor-registerhooks.mjs' },
        './floor-module-register': { import: './floor-module-register.mjs' },
      },
    }),
  );
  fs.writeFileSync(path.join(floor, 'empty.mjs'), '');
  fs.writeFileSync(path.join(floor, 'empty.cjs'), '');
  fs.copyFileSync(fileURLToPath(new URL('floor-registerhooks.mjs', import.meta.url)), path.join(floor, 'floor-registerhooks.mjs'));
  fs.copyFileSync(fileURLToPath(new URL('floor-module-register.mjs', import.meta.url)), path.join(floor, 'floor-module-register.mjs'));
  fs.copyFileSync(fileURLToPath(new URL('floor-module-register-thread.mjs', import.meta.url)), path.join(floor, 'floor-module-register-thread.mjs'));
  // The ES-module-heavy host's other packages.
  for (const name of ['lodash-es', 'date-fns']) fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(nm, name), 'dir');
  return app;
}

// Each variant in each position in turn.
const rotations = (names) => names.map((_, i) => [...names.slice(i), ...names.slice(0, i)]);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function once(bin, argv, cwd) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(bin, argv, { cwd, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${bin} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [, rssKb, cpuUs] = r.stderr.match(/maxrss=(\d+) cpu=(\d+)\n/) ?? [];
  const extra = r.stderr.replace(/maxrss=\d+ cpu=\d+\n/, '');
  if (extra !== '') throw new Error(`${bin} ${argv.join(' ')} wrote to stderr: ${extra}`);
  return { ms, rssMb: Number(rssKb) / 1024, cpuMs: Number(cpuUs) / 1000 };
}

// The start-cost targets, where register runs on module.registerHooks().
const TARGETS = { '-e 0': 1.05, sdk: 1.1, heavy: 1.15 };

function measure(bin, version, app) {
  const rows = [];
  const probe = spawnSync(bin, ['-p', 'typeof require("node:module").registerHooks'], { encoding: 'utf8' });
  const hasHooks = probe.stdout.trim() === 'function';
  const hooks = hasHooks ? 'module.registerHooks()' : 'module.register()';
  // The hook floor: a no-op hook of the kind register uses on this line.
  const hook = hasHooks ? 'hook' : 'registerHook';
  const hookName = hasHooks ? 'a no-op registerHooks hook' : 'a no-op module.register() hook';
  const names = ['stock', 'empty', hook, 'register'];
  const orders = rotations(names);
  for (const w of WORKLOADS) {
    const samples = Object.fromEntries(names.map((v) => [v, []]));
    const reports = Object.fromEntries(names.map((v) => [v, []]));
    for (const v of names) once(bin, [...VARIANTS[v], ...commandOf(w)], app); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      for (const v of orders[i % orders.length]) samples[v].push(once(bin, [...VARIANTS[v], ...commandOf(w)], app));
    }
    for (let i = 0; i < REPORT_RUNS; i++) {
      for (const v of orders[i % orders.length]) reports[v].push(once(bin, [...VARIANTS[v], ...commandOf(w, true)], app));
    }
    const ms = (v) => median(samples[v].map((s) => s.ms));
    const rss = (v) => median(reports[v].map((s) => s.rssMb));
    const cpu = (v) => median(reports[v].map((s) => s.cpuMs));
    const ratio = (v, of = 'stock') => (ms(v) / ms(of)).toFixed(2);
    const cpuRatio = (v, of = 'stock') => (cpu(v) / cpu(of)).toFixed(2);
    const limit = TARGETS[w.key ?? (w.sdk ? 'sdk' : w.name)];
    const row = {
      row: `startup, node ${version}: ${w.name}, --import register`,
      stock: ms('stock'),
      patched: ms('register'),
      unit: 'ms',
      lowerIsBetter: true,
      note:
        `wall time, median of ${RUNS}, from an app's node_modules; ${hooks}; ` +
        `floors (×stock): an empty module by bare specifier ${ms('empty').toFixed(1)} ms (${ratio('empty')}×)` +
        `, ${hookName} by bare specifier ${ms(hook).toFixed(1)} ms (${ratio(hook)}×)` +
        `; register ÷ empty-module floor ${ratio('register', 'empty')}×; ` +
        `register ÷ hook floor ${ratio('register', hook)}×; ` +
        `CPU (median of ${REPORT_RUNS}) ${cpu('stock').toFixed(0)} → ${cpu('register').toFixed(0)} ms (${cpuRatio('register')}×; floors ${cpuRatio('empty')}×, ${cpuRatio(hook)}×); ` +
        `max RSS ${rss('stock').toFixed(1)} → ${rss('register').toFixed(1)} MB`,
    };
    // The heavy host's target holds on every line (where it cannot, the hook floor shows why).
    if (hasHooks || w.key === 'heavy') {
      row.target = `≤ ${limit.toFixed(2)}× (register's startup target)`;
      row.met = ms('register') / ms('stock') <= limit;
    }
    rows.push(row);
    process.stderr.write(
      `  node ${version} ${w.name}: stock ${ms('stock').toFixed(1)} ms, register ${ms('register').toFixed(1)} ms (${ratio('register')}×), ` +
        `empty-module floor ${ratio('empty')}×, no-op hook ${ratio(hook)}×, register ÷ floor ${ratio('register', 'empty')}×, register ÷ hook floor ${ratio('register', hook)}×; ` +
        `CPU register ${cpuRatio('register')}×, floor ${cpuRatio('empty')}×, no-op hook ${cpuRatio(hook)}×\n`,
    );
  }
  return rows;
}

const VALGRIND = args.instructions ? spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0 : false;
if (args.instructions && !VALGRIND) process.stderr.write('--instructions: valgrind is not installed; no instruction rows\n');

const INSTRUCTION_FLAGS = ['--single-threaded', '--hash-seed=1', '--initial-old-space-size=64'];

/** Instructions one process executes (callgrind's total), deterministic (see the header). */
function instructions(bin, argv, cwd) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', bin, ...INSTRUCTION_FLAGS, ...argv], { cwd, env, encoding: 'utf8' });
  const collected = r.stderr.match(/Collected : (\d+)/);
  if (r.status !== 0 || !collected) throw new Error(`valgrind ${bin} ${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return Number(collected[1]);
}

/**
 * The instruction rows of one Node line with module.registerHooks() (the
 * lines the start-cost targets are for): stock, the floors and register, for
 * -e 0 (and the SDK imports with --instructions=all).
 */
function measureInstructions(bin, version, app) {
  const probe = spawnSync(bin, ['-p', 'typeof require("node:module").registerHooks'], { encoding: 'utf8' });
  if (probe.stdout.trim() !== 'function') return [];
  const names = ['stock', 'empty', 'hook', 'register'];
  const rows = [];
  for (const w of WORKLOADS) {
    if (w.sdk && args.instructions !== 'all') continue;
    const n = Object.fromEntries(names.map((v) => [v, instructions(bin, [...VARIANTS[v], ...commandOf(w)], app)]));
    const m = (v) => (n[v] / 1e6).toFixed(1);
    const ratio = (v, of = 'stock') => (n[v] / n[of]).toFixed(3);
    const limit = TARGETS[w.key ?? (w.sdk ? 'sdk' : w.name)];
    const row = {
      row: `startup instructions, node ${version}: ${w.name}, --import register`,
      stock: n.stock / 1e6,
      patched: n.register / 1e6,
      unit: 'M instructions',
      lowerIsBetter: true,
      note:
        `callgrind, one process each, ${INSTRUCTION_FLAGS.join(' ')}; floors (×stock): an empty module by bare specifier ${m('empty')} M (${ratio('empty')}×), ` +
        `a no-op registerHooks hook ${m('hook')} M (${ratio('hook')}×); register − empty-module floor ${((n.register - n.empty) / 1e6).toFixed(1)} M (${ratio('register', 'empty')}×)`,
    };
    row.target = `≤ ${limit.toFixed(2)}× (register's startup target)`;
    row.met = n.register / n.stock <= limit;
    rows.push(row);
    process.stderr.write(
      `  node ${version} ${w.name}: instructions stock ${m('stock')} M, register ${m('register')} M (${ratio('register')}×), ` +
        `empty-module floor ${ratio('empty')}×, no-op hook ${ratio('hook')}×, register ÷ floor ${ratio('register', 'empty')}×\n`,
    );
  }
  return rows;
}

const app = makeApp();
const rows = [];
try {
  const all = [[process.execPath, process.version.slice(1)], ...lines.map((version) => [ensureNode(version), version])];
  for (const [bin, version] of all) rows.push(...measure(bin, version, app));
  if (VALGRIND) for (const [bin, version] of all) rows.push(...measureInstructions(bin, version, app));
} finally {
  if (args.keep) process.stderr.write(`application directory kept: ${app}\n`);
  else fs.rmSync(app, { recursive: true, force: true });
}

if (args.json) {
  console.log(JSON.stringify({ rows }));
} else {
  console.log(`| measurement | stock | --import register | ratio | target | notes |\n|---|---|---|---|---|---|`);
  for (const r of rows) {
    const target = r.target ? `${r.target}: ${r.met ? 'met' : 'not met'}` : '';
    const unit = r.unit === 'ms' ? ' ms' : ' M';
    console.log(`| ${r.row} | ${r.stock.toFixed(1)}${unit} | ${r.patched.toFixed(1)}${unit} | ${(r.patched / r.stock).toFixed(3)}× | ${target} | ${r.note} |`);
  }
}
