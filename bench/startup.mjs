// Benchmark: what `register` costs a process at start, on each Node line
// (the machine's Node and scripts/node-lines.mjs's 22, 24, 26, installed into
// .node-lines/ on first use). Wall time of a whole process, stock against
// `--import mcp-ordered-dispatch/register`, runs interleaved (stock, patched,
// stock, ...) so that a busy machine slows both alike; medians.
//
//   -e 0            a process that never touches the SDK (every node, npm,
//                   npx a host starts with register in NODE_OPTIONS)
//   SDK 1.x / 2.x   a process whose first lines import the SDK client and its
//                   stdio transport (ES modules), then exit
//
// Targets (issue 14): ≤ 1.05× stock for -e 0 and ≤ 1.10× for the SDK import on
// Node 22.15+, 24 and 26 (module.registerHooks()). Node 20 has only
// module.register() and its loader thread: shown for comparison.
//
//   node bench/startup.mjs [--runs=11] [--lines=22.23.5,26.12.1] [--quick] [--json]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureNode, selectedLines } from '../scripts/node-lines.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const RUNS = Number(args.runs ?? (args.quick ? 5 : 11));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const lines = args.lines ? String(args.lines).split(',') : selectedLines();

// Reported by the process itself as it exits: max RSS and CPU time (all threads).
const RSS = `process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('maxrss=' + u.maxRSS + ' cpu=' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });`;
const WORKLOADS = [
  { name: '-e 0', args: ['-e', `0;${RSS}`] },
  {
    name: 'SDK 1.x client + stdio import',
    args: ['--input-type=module', '-e', `import '@modelcontextprotocol/sdk/client/index.js'; import '@modelcontextprotocol/sdk/client/stdio.js'; ${RSS}`],
  },
  {
    name: 'SDK 2.x client + stdio import',
    args: ['--input-type=module', '-e', `import '@modelcontextprotocol/client'; import '@modelcontextprotocol/client/stdio'; ${RSS}`],
  },
];
// floor: what `--import` of an empty module costs by itself (the ES module
// loader starting up for the flag), the least any `--import` entry can cost.
// hooks: a no-op module.registerHooks() load hook (bench/noop-load-hook.mjs),
// where the line has registerHooks: what any load hook costs the SDK import
// in Node's own plumbing, before register's hook does anything.
const VARIANTS = {
  stock: [],
  floor: ['--import', 'data:text/javascript,'],
  hooks: ['--import', fileURLToPath(new URL('noop-load-hook.mjs', import.meta.url))],
  patched: ['--import', 'mcp-ordered-dispatch/register'],
};
// Each variant in each position in turn.
const rotations = (names) => names.map((_, i) => [...names.slice(i), ...names.slice(0, i)]);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function once(bin, argv) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(bin, argv, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${bin} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [, rssKb, cpuUs] = r.stderr.match(/maxrss=(\d+) cpu=(\d+)\n/) ?? [];
  const extra = r.stderr.replace(/maxrss=\d+ cpu=\d+\n/, '');
  if (extra !== '') throw new Error(`${bin} ${argv.join(' ')} wrote to stderr: ${extra}`);
  return { ms, rssMb: Number(rssKb) / 1024, cpuMs: Number(cpuUs) / 1000 };
}

function measure(bin, version) {
  const rows = [];
  const probe = spawnSync(bin, ['-p', 'typeof require("node:module").registerHooks'], { encoding: 'utf8' });
  const hasHooks = probe.stdout.trim() === 'function';
  const hooks = hasHooks ? 'module.registerHooks()' : 'module.register()';
  const orders = rotations(hasHooks ? ['stock', 'floor', 'hooks', 'patched'] : ['stock', 'floor', 'patched']);
  for (const w of WORKLOADS) {
    const samples = { stock: [], floor: [], hooks: [], patched: [] };
    once(bin, [...VARIANTS.patched, ...w.args]); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      for (const v of orders[i % orders.length]) samples[v].push(once(bin, [...VARIANTS[v], ...w.args]));
    }
    const ms = (v) => median(samples[v].map((s) => s.ms));
    const rss = (v) => median(samples[v].map((s) => s.rssMb));
    const cpu = (v) => median(samples[v].map((s) => s.cpuMs));
    rows.push({
      row: `startup, node ${version}: ${w.name}, --import register`,
      stock: ms('stock'),
      patched: ms('patched'),
      unit: 'ms',
      lowerIsBetter: true,
      note: `wall time, median of ${RUNS}; ${hooks}; --import of an empty module alone ${ms('floor').toFixed(1)} ms (${(ms('floor') / ms('stock')).toFixed(2)}×)${hasHooks ? `; a no-op registerHooks load hook alone ${ms('hooks').toFixed(1)} ms (${(ms('hooks') / ms('stock')).toFixed(2)}×, CPU ${(cpu('hooks') / cpu('stock')).toFixed(2)}×)` : ''}; CPU ${cpu('stock').toFixed(0)} → ${cpu('patched').toFixed(0)} ms (${(cpu('patched') / cpu('stock')).toFixed(2)}×); max RSS ${rss('stock').toFixed(1)} → ${rss('patched').toFixed(1)} MB`,
    });
    process.stderr.write(`  node ${version} ${w.name}: stock ${ms('stock').toFixed(1)} ms, register ${ms('patched').toFixed(1)} ms (${(ms('patched') / ms('stock')).toFixed(3)}×), empty --import ${(ms('floor') / ms('stock')).toFixed(3)}×${hasHooks ? `, no-op hook ${(ms('hooks') / ms('stock')).toFixed(3)}×` : ''}; CPU ${(cpu('patched') / cpu('stock')).toFixed(3)}×, empty --import ${(cpu('floor') / cpu('stock')).toFixed(3)}×${hasHooks ? `, no-op hook ${(cpu('hooks') / cpu('stock')).toFixed(3)}×` : ''}\n`);
  }
  return rows;
}

const rows = [];
rows.push(...measure(process.execPath, process.version.slice(1)));
for (const version of lines) rows.push(...measure(ensureNode(version), version));

if (args.json) {
  console.log(JSON.stringify({ rows }));
} else {
  console.log(`| measurement | stock | --import register | ratio | notes |\n|---|---|---|---|---|`);
  for (const r of rows) console.log(`| ${r.row} | ${r.stock.toFixed(1)} ms | ${r.patched.toFixed(1)} ms | ${(r.patched / r.stock).toFixed(3)}× | ${r.note} |`);
}
