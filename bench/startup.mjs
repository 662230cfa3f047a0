// Benchmark: what `register` costs a process at start, on each Node line
// (the machine's Node and scripts/node-lines.mjs's 22, 24, 26, installed into
// .node-lines/ on first use; with --old-lines also its OLD_LINES, where
// register bails out at once). Wall time of a whole process, stock against
// register as a user's command line puts it in (`--import
// mcp-ordered-dispatch/register`) and as `mcp-ordered-dispatch run` puts it
// into every Node process a host starts (NODE_OPTIONS=--require=<absolute
// path of entries/register.cjs>), runs interleaved (each variant in each
// position in turn) so that a busy machine slows all alike; medians.
//
// Measured as a user runs it: from an application directory built for the
// run (in the OS temp dir, removed after) whose node_modules holds a copy of
// the files this package ships (package.json `files`), the platform package
// with this checkout's addon build (npm/<abi>/package.json and the .node
// file), and the SDK packages (links to this checkout's node_modules).
//
//   -e 0            a process that never touches the SDK (every node, npm,
//                   npx a host starts with register in NODE_OPTIONS)
//   server          an ES-module stdio server without the SDK (a script
//                   importing node: built-ins that reads stdin to its end):
//                   what most MCP servers a host starts under `run` are
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
// counts `-e 0` and the server only (about 3 s a process); --instructions=all the SDK
// imports too (about 15 s a process).
//
//   node bench/startup.mjs [--runs=21] [--lines=22.23.5,26.12.1] [--old-lines] [--quick] [--instructions[=all]] [--json] [--keep]
//                          [--workloads=e0,server,sdk,heavy]
//
// --keep leaves the application directory in place (its path is printed) for profiling.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode, OLD_LINES, selectedLines } from '../scripts/node-lines.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const RUNS = Number(args.runs ?? (args.quick ? 5 : 21));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const lines = [...(args['old-lines'] ? OLD_LINES : []), ...(args.lines ? String(args.lines).split(',') : selectedLines())];

// Each workload as the command itself: wall time and instructions are
// measured on exactly that. Max RSS and CPU time (all threads) come from
// separate runs (REPORT_RUNS per variant, interleaved) whose code also
// reports them as the process exits: writing to stderr at exit costs a
// short process like `-e 0` a few milliseconds of its own, which would
// dilute the ratios.
const REPORT = `;process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('maxrss=' + u.maxRSS + ' cpu=' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });`;
const REPORT_RUNS = args.quick ? 3 : 5;
// The stdio server: a file in the application directory (SERVER_SOURCE),
// reporting when its command line ends in --report.
const SERVER = 'stdio-server.mjs';
const SERVER_SOURCE = `import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { stdin, stdout, argv } from 'node:process';
${REPORT.slice(1).replace('process.on', "if (argv.at(-1) === '--report') process.on")}
const lines = createInterface({ input: stdin });
lines.on('line', (line) => stdout.write(line + '\\n'));
await once(lines, 'close');
`;
const WORKLOADS = [
  { name: '-e 0', sdk: false, flags: [], code: '0' },
  { name: 'ES-module stdio server without the SDK', key: 'server', sdk: false, file: SERVER },
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
const commandOf = (w, app, report = false) =>
  w.file !== undefined ? [path.join(app, w.file), ...(report ? ['--report'] : [])] : [...w.flags, '-e', report ? w.code + REPORT : w.code];

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
// The variants that go in through NODE_OPTIONS, as `run` puts register in:
// an absolute path in the application's node_modules.
//   emptyRequire  an empty CommonJS file: Node's own cost of a --require preload
//   require       register.cjs, exactly as `run` puts it into NODE_OPTIONS
const NODE_OPTIONS = {
  emptyRequire: (app) => `--require=${path.join(app, 'node_modules', FLOOR_PACKAGE, 'empty.cjs')}`,
  require: (app) => `--require=${path.join(app, 'node_modules', 'mcp-ordered-dispatch', 'entries', 'register.cjs')}`,
};
const LABELS = { register: '--import register', require: 'NODE_OPTIONS=--require=register.cjs (run)' };
/** Variant `v`'s arguments and NODE_OPTIONS for workload `w`. */
const variantOf = (v, w, app, report = false) => ({
  argv: [...(VARIANTS[v] ?? []), ...commandOf(w, app, report)],
  nodeOptions: NODE_OPTIONS[v]?.(app),
});

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
  fs.writeFileSync(path.join(app, SERVER), SERVER_SOURCE);
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

/** The environment of a measured process: NODE_OPTIONS is `nodeOptions` alone. */
function envOf(nodeOptions) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions;
  return env;
}

// The one line register prints where it bails out (lib/register/gate.cjs), and nothing else, is expected there.
const BAIL_OUT = /^mcp-ordered-dispatch\/register needs .*\(MCP_ORDERED_DISPATCH_OLD_RUNTIME\)\n/;

function once(bin, { argv, nodeOptions }, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(bin, argv, { cwd, env: envOf(nodeOptions), encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${bin} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [, rssKb, cpuUs] = r.stderr.match(/maxrss=(\d+) cpu=(\d+)\n/) ?? [];
  const extra = r.stderr.replace(/maxrss=\d+ cpu=\d+\n/, '').replace(BAIL_OUT, '');
  if (extra !== '') throw new Error(`${bin} ${argv.join(' ')} wrote to stderr: ${extra}`);
  return { ms, rssMb: Number(rssKb) / 1024, cpuMs: Number(cpuUs) / 1000 };
}

// The start-cost targets, where register runs on module.registerHooks().
const TARGETS = { '-e 0': 1.05, server: 1.05, sdk: 1.1, heavy: 1.15 };
const targetOf = (w) => TARGETS[w.key ?? (w.sdk ? 'sdk' : w.name)];

/** What line `bin` is to register: which hooks it uses there, or that it bails out at once (lib/register/gate.cjs). */
function lineOf(bin) {
  const probe = spawnSync(bin, ['-p', 'typeof require("node:module").registerHooks + " " + (typeof process.getBuiltinModule === "function" && process.features.require_module === true)'], { encoding: 'utf8' });
  const [hooksType, runs] = probe.stdout.trim().split(' ');
  const hasHooks = hooksType === 'function';
  if (runs !== 'true') return { hasHooks, bails: true, hooks: 'register bails out', names: ['stock', 'emptyRequire', 'require'] };
  // The hook floor: a no-op hook of the kind register uses on this line.
  const hook = hasHooks ? 'hook' : 'registerHook';
  return {
    hasHooks,
    bails: false,
    hook,
    hooks: hasHooks ? 'module.registerHooks()' : 'module.register()',
    hookName: hasHooks ? 'a no-op registerHooks hook' : 'a no-op module.register() hook',
    names: ['stock', 'empty', hook, 'register', 'emptyRequire', 'require'],
  };
}

/** The register variants measured on a line: the `--import` entry where register runs, and `run`'s NODE_OPTIONS everywhere. */
const registerVariants = (line) => (line.bails ? ['require'] : ['register', 'require']);

function measure(bin, version, app) {
  const rows = [];
  const line = lineOf(bin);
  const { names } = line;
  const orders = rotations(names);
  for (const w of WORKLOADS) {
    if (line.bails && w.sdk) continue;
    const samples = Object.fromEntries(names.map((v) => [v, []]));
    const reports = Object.fromEntries(names.map((v) => [v, []]));
    for (const v of names) once(bin, variantOf(v, w, app), app); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      for (const v of orders[i % orders.length]) samples[v].push(once(bin, variantOf(v, w, app), app));
    }
    for (let i = 0; i < REPORT_RUNS; i++) {
      for (const v of orders[i % orders.length]) reports[v].push(once(bin, variantOf(v, w, app, true), app));
    }
    const ms = (v) => median(samples[v].map((s) => s.ms));
    const rss = (v) => median(reports[v].map((s) => s.rssMb));
    const cpu = (v) => median(reports[v].map((s) => s.cpuMs));
    const ratio = (v, of = 'stock') => (ms(v) / ms(of)).toFixed(2);
    const cpuRatio = (v, of = 'stock') => (cpu(v) / cpu(of)).toFixed(2);
    const limit = targetOf(w);
    for (const reg of registerVariants(line)) {
      // Each entry beside the floor of its own kind: an empty module by the same flag.
      const floor = reg === 'register' ? 'empty' : 'emptyRequire';
      const floors = [`${reg === 'register' ? 'an empty module by bare specifier' : 'an empty --require preload'} ${ms(floor).toFixed(1)} ms (${ratio(floor)}×)`];
      if (!line.bails) floors.push(`${line.hookName} by bare specifier ${ms(line.hook).toFixed(1)} ms (${ratio(line.hook)}×)`);
      const row = {
        row: `startup, node ${version}: ${w.name}, ${LABELS[reg]}`,
        stock: ms('stock'),
        patched: ms(reg),
        unit: 'ms',
        lowerIsBetter: true,
        note:
          `wall time, median of ${RUNS}, from an app's node_modules; ${line.hooks}; floors (×stock): ${floors.join(', ')}; ` +
          `register ÷ its floor ${ratio(reg, floor)}×; ` +
          `CPU (median of ${REPORT_RUNS}) ${cpu('stock').toFixed(0)} → ${cpu(reg).toFixed(0)} ms (${cpuRatio(reg)}×; floor ${cpuRatio(floor)}×); ` +
          `max RSS ${rss('stock').toFixed(1)} → ${rss(reg).toFixed(1)} MB`,
      };
      // The heavy host's target holds on every line (where it cannot, the hook floor shows why).
      if (line.hasHooks || w.key === 'heavy') {
        row.target = `≤ ${limit.toFixed(2)}× (register's startup target)`;
        row.met = ms(reg) / ms('stock') <= limit;
      }
      rows.push(row);
      process.stderr.write(
        `  node ${version} ${w.name}, ${LABELS[reg]}: stock ${ms('stock').toFixed(1)} ms, register ${ms(reg).toFixed(1)} ms (${ratio(reg)}×), ` +
          `floor ${ratio(floor)}×${line.bails ? '' : `, no-op hook ${ratio(line.hook)}×`}, register ÷ floor ${ratio(reg, floor)}×; ` +
          `CPU register ${cpuRatio(reg)}×, floor ${cpuRatio(floor)}×\n`,
      );
    }
  }
  return rows;
}

const VALGRIND = args.instructions ? spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0 : false;
if (args.instructions && !VALGRIND) process.stderr.write('--instructions: valgrind is not installed; no instruction rows\n');

const INSTRUCTION_FLAGS = ['--single-threaded', '--hash-seed=1', '--initial-old-space-size=64'];

/** Instructions one process executes (callgrind's total, every thread), deterministic (see the header). */
function instructions(bin, { argv, nodeOptions }, cwd) {
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', bin, ...INSTRUCTION_FLAGS, ...argv], { cwd, env: envOf(nodeOptions), encoding: 'utf8' });
  const collected = r.stderr.match(/Collected : (\d+)/);
  if (r.status !== 0 || !collected) throw new Error(`valgrind ${bin} ${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return Number(collected[1]);
}

/**
 * The instruction rows of one Node line: stock, the floors and register, for
 * -e 0 and the server (and the SDK imports with --instructions=all). The
 * targets are for the lines with module.registerHooks().
 */
function measureInstructions(bin, version, app) {
  const line = lineOf(bin);
  const rows = [];
  for (const w of WORKLOADS) {
    if (w.sdk && (args.instructions !== 'all' || line.bails)) continue;
    const n = Object.fromEntries(line.names.map((v) => [v, instructions(bin, variantOf(v, w, app), app)]));
    const m = (v) => (n[v] / 1e6).toFixed(1);
    const ratio = (v, of = 'stock') => (n[v] / n[of]).toFixed(3);
    const limit = targetOf(w);
    for (const reg of registerVariants(line)) {
      const floor = reg === 'register' ? 'empty' : 'emptyRequire';
      const floors = [`${reg === 'register' ? 'an empty module by bare specifier' : 'an empty --require preload'} ${m(floor)} M (${ratio(floor)}×)`];
      if (!line.bails) floors.push(`${line.hookName} ${m(line.hook)} M (${ratio(line.hook)}×)`);
      const row = {
        row: `startup instructions, node ${version}: ${w.name}, ${LABELS[reg]}`,
        stock: n.stock / 1e6,
        patched: n[reg] / 1e6,
        unit: 'M instructions',
        lowerIsBetter: true,
        note:
          `callgrind, one process each, ${INSTRUCTION_FLAGS.join(' ')}; ${line.hooks}; floors (×stock): ${floors.join(', ')}; ` +
          `register − its floor ${((n[reg] - n[floor]) / 1e6).toFixed(1)} M (${ratio(reg, floor)}×)`,
      };
      if (line.hasHooks) {
        row.target = `≤ ${limit.toFixed(2)}× (register's startup target)`;
        row.met = n[reg] / n.stock <= limit;
      }
      rows.push(row);
      process.stderr.write(
        `  node ${version} ${w.name}, ${LABELS[reg]}: instructions stock ${m('stock')} M, register ${m(reg)} M (${ratio(reg)}×), ` +
          `floor ${m(floor)} M (${ratio(floor)}×)${line.bails ? '' : `, no-op hook ${m(line.hook)} M`}, register − floor ${((n[reg] - n[floor]) / 1e6).toFixed(1)} M\n`,
      );
    }
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
  console.log(`| measurement | stock | register | ratio | target | notes |\n|---|---|---|---|---|---|`);
  for (const r of rows) {
    const target = r.target ? `${r.target}: ${r.met ? 'met' : 'not met'}` : '';
    const unit = r.unit === 'ms' ? ' ms' : ' M';
    console.log(`| ${r.row} | ${r.stock.toFixed(1)}${unit} | ${r.patched.toFixed(1)}${unit} | ${(r.patched / r.stock).toFixed(3)}× | ${target} | ${r.note} |`);
  }
}
