// What the search by shape (lib/shape/rewrite.cjs) costs:
//   1. the prefilter every module takes, in ms per MB of source, over the
//      source files of packages without the SDK (typescript, webpack);
//   2. the locate step (lexing a bundle that holds the SDK), ms per MB, cold:
//      the first call in a fresh process (median of RUNS processes), by the
//      JavaScript reference (lib/shape/classes.cjs) and by the addon's Rust
//      (crates/core/src/shape.rs) over a string and over a Buffer;
//   3. startup of a process that loads a multi-MB bundle holding the SDK
//      (a 2.x client app bundled by esbuild together with typescript):
//      stock, --import of an empty file (Node's own cost of the flag), and
//      under --import register with a cold cache (a new cache directory per
//      run) and a warm one, and --require register warm. Median of RUNS runs each,
//      wall time, and for register cold and warm the CPU time too (a preload
//      in every run reads it as the process exits);
//   4. where a cold first run's time goes: each step of the rewrite of a
//      module not in the cache (lib/shape/rewrite.cjs's withBlocks), timed in a
//      fresh process: the hash and the addon's load (a warm run pays them
//      too), the locate step, the proof of each changed class, the whole
//      module compiled (the proof a CommonJS module takes), and beside them
//      Node's own compile of the same module.
//
// The prefilter's floor is one Buffer.indexOf of its longest marker over the
// same files: what any check that looks at a module's bytes at all pays.
//
//   node bench/rewrite.mjs [--runs=N] [--json]    (npm run bench runs it with --json)
//
// Not run by the tests (the machine's load changes the numbers).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? (quick ? 3 : 7));
const JSON_OUT = process.argv.includes('--json');
const modules = require('../lib/adapters/modules.cjs');

function* sources(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') yield* sources(file);
    } else if (/\.[cm]?js$/.test(entry.name)) yield file;
  }
}

function best(n, fn) {
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    fn();
    min = Math.min(min, Number(process.hrtime.bigint() - t) / 1e6);
  }
  return min;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. prefilter
const files = ['typescript', 'webpack'].flatMap((name) => [...sources(path.join(ROOT, 'node_modules', name))]);
const buffers = files.map((f) => fs.readFileSync(f));
const strings = buffers.map((b) => b.toString('utf8'));
const mb = buffers.reduce((n, b) => n + b.length, 0) / 1e6;
let passed = 0;
for (const b of buffers) if (modules.mayDefineSdkClass(b)) passed++;
const bufferMs = best(10, () => {
  for (const b of buffers) modules.mayDefineSdkClass(b);
});
const stringMs = best(10, () => {
  for (const s of strings) modules.mayDefineSdkClass(s);
});
const floorMs = best(10, () => {
  for (const b of buffers) b.indexOf('_progressHandlers');
});

// 2 and 3: a multi-MB bundle holding the SDK.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-bench-rewrite-'));
const rows = [];
const json = [];
try {
  const entry = path.join(dir, 'app.mjs');
  fs.writeFileSync(
    entry,
    "import { Client } from '@modelcontextprotocol/client';\nimport { StdioClientTransport } from '@modelcontextprotocol/client/stdio';\nimport ts from 'typescript';\n" +
      "const c = new Client({ name: 'bench', version: '0' }, { capabilities: {} });\nconsole.log(typeof c.connect, typeof StdioClientTransport, typeof ts.createSourceFile);\n",
  );
  const bundle = path.join(dir, 'app.bundle.cjs');
  require('esbuild').buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, nodePaths: [path.join(ROOT, 'node_modules')], logLevel: 'silent' });
  const text = fs.readFileSync(bundle, 'utf8');
  const bundleMb = Buffer.byteLength(text) / 1e6;
  // The locate step's first call in a fresh process, each way; both must find the same classes.
  const locateChild = [
    "const fs = require('node:fs');",
    `const { jsSdkClassesIn, nativeSdkClassesIn } = require(${JSON.stringify(path.join(ROOT, 'lib/shape/sdk-classes.cjs'))});`,
    'const [mode, file] = process.argv.slice(1);',
    'let addon;',
    'let loadMs = 0;',
    `if (mode !== 'js') { const t = performance.now(); addon = require(${JSON.stringify(path.join(ROOT, 'lib/native/addon.cjs'))}).load(); loadMs = performance.now() - t; }`,
    "const source = mode === 'buffer' ? fs.readFileSync(file) : fs.readFileSync(file, 'utf8');",
    'const t = performance.now();',
    "const found = mode === 'js' ? jsSdkClassesIn(source) : nativeSdkClassesIn(addon, source);",
    'const ms = performance.now() - t;',
    'console.log(JSON.stringify({ ms, loadMs, found: found.map((c) => [c.open, c.kind, c.generation]) }));',
  ].join('\n');
  const locateCold = (mode) => {
    const r = spawnSync(process.execPath, ['-e', locateChild, mode, bundle], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`locate (${mode}) failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const locate = { js: [], string: [], buffer: [] };
  const addonLoad = [];
  let reference;
  for (let i = 0; i < RUNS; i++) {
    for (const mode of Object.keys(locate)) {
      const { ms, loadMs, found } = locateCold(mode);
      reference ??= JSON.stringify(found);
      if (JSON.stringify(found) !== reference) throw new Error(`the ${mode} locate step found other classes: ${JSON.stringify(found)} against ${reference}`);
      locate[mode].push(ms / bundleMb);
      if (mode !== 'js') addonLoad.push(loadMs);
    }
  }
  const [jsMb, stringMb, bufferMb] = [median(locate.js), median(locate.string), median(locate.buffer)];

  // Where a cold first run's time goes: what lib/shape/rewrite.cjs's withBlocks
  // does for a module not in the cache, each step timed, in a fresh process.
  const lib = (file) => JSON.stringify(path.join(ROOT, 'lib', file));
  const stepsChild = [
    "const fs = require('node:fs');",
    `const cache = require(${lib('shape/cache.cjs')});`,
    `const { sdkClassesIn } = require(${lib('shape/sdk-classes.cjs')});`,
    `const { insertBlocks, verifyBlocks } = require(${lib('shape/blocks.cjs')});`,
    'const file = process.argv[1];',
    "const text = fs.readFileSync(file, 'utf8');",
    'const ms = {};',
    'let t = performance.now();',
    'const lap = (step) => { const now = performance.now(); ms[step] = now - t; t = now; };',
    'cache.keyOf(text); lap("hash");',
    `require(${lib('native/addon.cjs')}).load(); lap("addon");`,
    'const found = sdkClassesIn(text); lap("locate");',
    'const at = found.map((c) => [c.open, c.kind, c.generation]);',
    "const changed = insertBlocks(text, at, '__bench', file); lap('insert');",
    "if (!verifyBlocks(found, changed, at, '__bench', file, 'module')) throw new Error('the classes failed the proof');",
    'lap("classes");',
    "if (!verifyBlocks(found, changed, at, '__bench', file, 'commonjs')) throw new Error('the module failed the proof');",
    'lap("module");',
    "require('node:vm').compileFunction(changed, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });",
    'lap("node");',
    'console.log(JSON.stringify(ms));',
  ].join('\n');
  const steps = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, ['-e', stepsChild, bundle], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the cold steps failed: ${r.stderr}`);
    steps.push(JSON.parse(r.stdout));
  }
  const step = (name) => median(steps.map((s) => s[name]));

  // Each run's CPU time (all its threads), written by a preload as it exits:
  // on a loaded machine it moves far less than the wall time.
  const cpuPreload = path.join(dir, 'cpu.cjs');
  const cpuFile = path.join(dir, 'cpu.txt');
  fs.writeFileSync(cpuPreload, "process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(process.env.MCP_OD_BENCH_CPU, String((u.user + u.system) / 1000)); });\n");
  const cpu = { cold: [], warm: [] };
  const run = (args, cacheDir, cpuTimes) => {
    const env = { ...process.env, MCP_ORDERED_DISPATCH_CACHE_DIR: cacheDir, MCP_OD_BENCH_CPU: cpuFile };
    delete env.NODE_OPTIONS;
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--require', cpuPreload, ...args, bundle], { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0 || r.stderr !== '') throw new Error(`run failed: ${r.stderr}`);
    cpuTimes?.push(Number(fs.readFileSync(cpuFile, 'utf8')));
    return ms;
  };
  const register = ['--import', path.join(ROOT, 'entries', 'register.mjs')];
  const requireRegister = ['--require', path.join(ROOT, 'entries', 'register.cjs')];
  // Any --import sends a CommonJS main module through Node's ES module loader
  // (which lexes its exports): the cost of the flag itself, apart from ours.
  const empty = path.join(dir, 'empty.mjs');
  fs.writeFileSync(empty, '');
  const stock = [];
  const importEmpty = [];
  const cold = [];
  const warm = [];
  const requireWarm = [];
  const warmDir = path.join(dir, 'warm');
  run(register, warmDir); // fills the warm cache
  for (let i = 0; i < RUNS; i++) {
    stock.push(run([], path.join(dir, 'unused')));
    importEmpty.push(run(['--import', empty], path.join(dir, 'unused')));
    cold.push(run(register, path.join(dir, `cold-${i}`), cpu.cold));
    warm.push(run(register, warmDir, cpu.warm));
    requireWarm.push(run(requireRegister, warmDir));
  }
  rows.push(
    ['prefilter (Buffer source)', `${(bufferMs / mb).toFixed(3)} ms/MB`, `${files.length} files, ${mb.toFixed(1)} MB of typescript + webpack; ${passed} passed`],
    ['prefilter (string source)', `${(stringMs / mb).toFixed(3)} ms/MB`, 'same files, decoded'],
    ['locate step, cold, JavaScript', `${jsMb.toFixed(1)} ms/MB`, `${bundleMb.toFixed(1)} MB bundle: 2.x client + typescript (esbuild, cjs); first call in a fresh process, median of ${RUNS}`],
    ['locate step, cold, Rust (string source)', `${stringMb.toFixed(1)} ms/MB`, `x${(stringMb / jsMb).toFixed(2)} of JavaScript (target: at most 10 ms/MB); what register passes`],
    ['locate step, cold, Rust (Buffer source)', `${bufferMb.toFixed(1)} ms/MB`, `x${(bufferMb / jsMb).toFixed(2)} of JavaScript; what discover passes. Loading the addon: ${median(addonLoad).toFixed(1)} ms`],
    ['startup, stock', `${median(stock).toFixed(0)} ms`, `median of ${RUNS}`],
    ['startup, --import of an empty file', `${median(importEmpty).toFixed(0)} ms`, `x${(median(importEmpty) / median(stock)).toFixed(2)} of stock: Node's own cost of --import for a CommonJS main`],
    ['startup, register, cold cache', `${median(cold).toFixed(0)} ms`, `x${(median(cold) / median(stock)).toFixed(2)} of stock`],
    ['startup, register, warm cache', `${median(warm).toFixed(0)} ms`, `x${(median(warm) / median(stock)).toFixed(2)} of stock, x${(median(warm) / median(importEmpty)).toFixed(2)} of --import empty`],
    ['startup, --require register, warm cache', `${median(requireWarm).toFixed(0)} ms`, `x${(median(requireWarm) / median(stock)).toFixed(2)} of stock`],
    ['startup, register, cold over warm', `${(median(cold) - median(warm)).toFixed(0)} ms`, `cold x${(median(cold) / median(warm)).toFixed(2)} of warm`],
    ['CPU time, register, cold cache / warm cache', `${median(cpu.cold).toFixed(0)} / ${median(cpu.warm).toFixed(0)} ms`, `cold x${(median(cpu.cold) / median(cpu.warm)).toFixed(2)} of warm (all threads of the process; the wall-time rows move more on a loaded machine)`],
    ['cold first run, by step (fresh process)', `${(step('locate') + step('insert') + step('classes') + step('module')).toFixed(0)} ms`, `locate ${step('locate').toFixed(0)}, insert ${step('insert').toFixed(1)}, proof of each class ${step('classes').toFixed(0)}, whole module compiled (the CommonJS proof) ${step('module').toFixed(0)} ms; warm pays too: hash ${step('hash').toFixed(0)}, addon ${step('addon').toFixed(0)} ms; Node's own compile of the same module (vm.compileFunction) ${step('node').toFixed(0)} ms; median of ${RUNS}`],
  );
  json.push(
    { row: `prefilter, ms per MB of module source (${files.length} files, ${mb.toFixed(1)} MB of typescript + webpack; ${passed} passed), against one Buffer.indexOf of its longest marker`, stock: floorMs / mb, patched: bufferMs / mb, unit: 'ms/MB', lowerIsBetter: true, baseline: 'one indexOf' },
    { row: `locate step, cold (first call in a fresh process, median of ${RUNS}), ms per MB of a ${bundleMb.toFixed(1)} MB bundle holding the 2.x SDK: JavaScript against Rust (string source)`, stock: jsMb, patched: stringMb, unit: 'ms/MB', lowerIsBetter: true, baseline: 'JavaScript', target: 'at most 10 ms/MB (issue #34)', met: stringMb <= 10, note: `Rust over a Buffer: ${bufferMb.toFixed(1)} ms/MB; loading the addon: ${median(addonLoad).toFixed(1)} ms` },
    { row: `startup of a ${bundleMb.toFixed(1)} MB bundle holding the 2.x SDK (esbuild, cjs), --import register, cold cache (median of ${RUNS})`, stock: median(stock), patched: median(cold), unit: 'ms', lowerIsBetter: true, note: `locate step ${stringMb.toFixed(1)} ms/MB (Rust), ${jsMb.toFixed(1)} ms/MB (JavaScript)` },
    { row: `same bundle, --import register, warm cache`, stock: median(stock), patched: median(warm), unit: 'ms', lowerIsBetter: true, note: `--import of an empty file: ${median(importEmpty).toFixed(0)} ms (Node's own cost of the flag for a CommonJS main)` },
    { row: `same bundle, --require register, warm cache`, stock: median(stock), patched: median(requireWarm), unit: 'ms', lowerIsBetter: true },
    { row: `same bundle, --import register: CPU time, cold cache against warm (all threads)`, stock: median(cpu.warm), patched: median(cpu.cold), unit: 'ms', lowerIsBetter: true, baseline: 'warm cache' },
    { row: `same bundle, --import register: cold cache against warm`, stock: median(warm), patched: median(cold), unit: 'ms', lowerIsBetter: true, baseline: 'warm cache', note: `cold first run by step: locate ${step('locate').toFixed(0)}, proof of each class ${step('classes').toFixed(0)}, whole module compiled ${step('module').toFixed(0)} ms (Node's own compile: ${step('node').toFixed(0)} ms)` },
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

if (JSON_OUT) {
  console.log(JSON.stringify({ rows: json }));
  process.exit(0);
}
console.log(`node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg()[0].toFixed(1)}\n`);
console.log('| measure | value | notes |\n|---|---|---|');
for (const [a, b, c] of rows) console.log(`| ${a} | ${b} | ${c} |`);
