// Benchmark: what `mcp-ordered-dispatch run --` costs a compiled host's
// start, side by side with the same start without it, in one run: wall time
// of the whole process, runs interleaved (each variant first in turn),
// medians. Goal: ≤ 1.10×. Beside each, the same start with the environment
// `run` would give it but no launcher in front (register preloaded, nothing
// else): what the fix itself costs, apart from the launcher's Node process.
//
//   Bun-compiled app   a Bun-compiled executable built here (`bun build
//                      --compile --splitting`, the pinned Bun) whose entry
//                      imports a chunk holding the SDK 1.x client and its
//                      stdio transport, constructs a Client, and exits
//   claude --version   Claude Code 2.1.328 from `npm run check:hosts`'s cache
//                      (.cache/hosts), when it is there
//   claude mcp list    the same, in a home directory of its own with one stdio
//                      MCP server configured (the raw server, run by this
//                      Node): a start that loads the SDK and connects
//   the launcher alone `run -- true` against `true`: the launcher's own
//                      floor (a Node process that looks at the command's file,
//                      spawns it and waits), for reading the rows above
//
//   node bench/launcher.mjs [--runs=21] [--quick] [--json] [--node=PATH]
//
// --node runs the launcher on another Node (default: this one); on Node
// 22.15+ the launcher replaces itself with the host (process.execve()).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const RUNS = Number(args.runs ?? (args.quick ? 5 : 21));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const CLAUDE = path.join(ROOT, '.cache', 'hosts', 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');
const TARGET = 1.1;
const LAUNCHER_NODE = args.node ?? process.execPath;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { RUNTIMES } = await import('../test/support/runtimes.mjs');
const bun = RUNTIMES.bun?.command;

// None of a user's Node, Bun or register settings: both variants start from the same environment.
const baseEnv = { ...process.env };
for (const name of ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_NATIVE']) delete baseEnv[name];

const { plan } = createRequire(import.meta.url)('../lib/run/plan.cjs');

let env = baseEnv;

/** Wall time of one run of `command args`, in ms (it must exit 0). */
function time(command, commandArgs, cwd, withEnv = env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, commandArgs, { cwd, env: withEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} exited with ${r.signal ?? r.status}: ${r.stderr}`);
  return ms;
}

/** `exe args` stock, under `run --`, and with run's environment alone, interleaved (each in each position in turn): medians in ms. */
function compare(exe, exeArgs, cwd) {
  const planned = plan(exe, exeArgs, { env, cwd });
  const variants = {
    stock: () => time(exe, exeArgs, cwd),
    run: () => time(LAUNCHER_NODE, [BIN, 'run', '--', exe, ...exeArgs], cwd),
    preload: () => time(planned.command, planned.commandArgs, cwd, planned.childEnv),
  };
  const names = Object.keys(variants);
  for (const v of Object.values(variants)) v(); // warm the page cache for each
  const ms = { stock: [], run: [], preload: [] };
  for (let i = 0; i < RUNS; i++) {
    const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
    for (const name of order) ms[name].push(variants[name]());
  }
  return { stock: median(ms.stock), run: median(ms.run), preload: median(ms.preload) };
}

const rows = [];
function row(name, { stock, run, preload }, note) {
  const ratio = run / stock;
  rows.push({ row: name, stock, patched: run, unit: 'ms', lowerIsBetter: true, target: `≤ ${TARGET.toFixed(2)}×`, met: ratio <= TARGET, note });
  rows.push({ row: `${name}: run's environment alone, no launcher`, stock, patched: preload, unit: 'ms', lowerIsBetter: true, note: 'register preloaded as run preloads it, without the launcher\'s Node process in front' });
  process.stderr.write(`  ${name}: ${stock.toFixed(1)} → ${run.toFixed(1)} ms under run (${ratio.toFixed(3)}×), ${preload.toFixed(1)} ms with its environment alone (${(preload / stock).toFixed(3)}×)\n`);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-bench-launcher-'));
try {
  if (bun !== undefined) {
    const home = path.join(dir, 'app');
    fs.mkdirSync(home);
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(home, 'node_modules'), 'junction');
    fs.writeFileSync(path.join(home, 'app.mjs'), "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nimport { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';\nnew Client({ name: 'bench', version: '0' }, { capabilities: {} });\nif (typeof StdioClientTransport !== 'function') process.exitCode = 1;\n");
    fs.writeFileSync(path.join(home, 'main.mjs'), "await import('./app.mjs');\n");
    const exe = path.join(dir, 'compiled-app');
    execFileSync(bun, ['build', '--compile', '--splitting', 'main.mjs', `--outfile=${exe}`], { cwd: home, stdio: 'pipe', timeout: 120_000 });
    row('launcher: a Bun-compiled app that loads the SDK client and exits', compare(exe, [], dir), `wall time, median of ${RUNS}, interleaved; run preloads register through BUN_OPTIONS; launcher on Node ${spawnSync(LAUNCHER_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()}`);
  } else {
    process.stderr.write('  bun is not installed for this platform: the Bun-compiled app row is left out\n');
  }
  if (fs.existsSync(CLAUDE)) {
    row('launcher: claude --version (Claude Code 2.1.328, 373 MB)', compare(CLAUDE, ['--version'], dir), `wall time, median of ${RUNS}, interleaved; from npm run check:hosts's cache`);
    // A home of its own, one stdio server configured; the server, a Node child, inherits run's NODE_OPTIONS.
    const home = path.join(dir, 'claude-home');
    const project = path.join(home, 'project');
    fs.mkdirSync(project, { recursive: true });
    env = { ...baseEnv, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    execFileSync(CLAUDE, ['mcp', 'add', 'raw', '--', process.execPath, path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs')], { cwd: project, env, stdio: 'pipe', timeout: 120_000 });
    row('launcher: claude mcp list (connects to one stdio server)', compare(CLAUDE, ['mcp', 'list'], project), `wall time, median of ${RUNS}, interleaved; its server a Node child`);
    env = baseEnv;
  } else {
    process.stderr.write('  .cache/hosts has no Claude Code (npm run check:hosts installs it): its row is left out\n');
  }
  const trueCommand = fs.existsSync('/bin/true') ? '/bin/true' : undefined;
  if (trueCommand !== undefined && !args.quick) row('launcher alone: run -- true against true', compare(trueCommand, [], dir), 'the launcher\'s own floor: one Node start, the command looked at, spawned and waited for');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

if (args.json) console.log(JSON.stringify({ rows }));
else {
  console.log('| measurement | stock | under run | ratio | target | notes |\n|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.row} | ${r.stock.toFixed(1)} ms | ${r.patched.toFixed(1)} ms | ${(r.patched / r.stock).toFixed(3)}× | ${r.target === undefined ? '' : `${r.target}${r.met ? '' : ' (not met)'}`} | ${r.note} |`);
}
