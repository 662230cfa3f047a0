// Benchmark: what register costs an MCP server's start where `run` gives it
// the fix (every stdio server a fixed host starts gets it): a real SDK Server
// over stdio (bench/sdk-server.mjs, the 1.x and 2.x Server with its
// StdioServerTransport) started, initialized (initialize answered, then
// notifications/initialized and one ping answered) and ended by closing its
// stdin, stock beside the same start with run's environment for `node`
// (lib/run/plan.cjs's childEnv: NODE_OPTIONS=--require=<this
// checkout>/entries/register.cjs and the marker) and beside a load hook of
// register's kind that does nothing (bench/floor-registerhooks.mjs, or on
// Node 20.19-22.14 bench/floor-module-register.mjs: module.register()'s
// loader thread, which register cannot avoid there). The server's own CPU time
// (user + system, every thread: process.resourceUsage() as it exits) and the
// wall time to its exit; medians of RUNS interleaved runs (each variant first
// in turn), on this machine's Node and on Node 24.
//
//   node bench/server-start.mjs [--runs=21] [--lines=24.22.3] [--sdk=1,2] [--json]
import { spawn, spawnSync } from 'node:child_process';
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
const GENERATIONS = String(args.sdk ?? '1,2').split(',').map(Number);
const SERVER = path.join(ROOT, 'bench', 'sdk-server.mjs');
const CPU_LINE = path.join(os.tmpdir(), `mcp-od-server-start-${process.pid}.cjs`);

/** run's environment for `node`, with the CPU line's preload after register's. */
function runWithCpuLine() {
  const childEnv = runEnv(ROOT);
  return { ...childEnv, NODE_OPTIONS: `${childEnv.NODE_OPTIONS} --require=${CPU_LINE}` };
}

/** The no-op load hook of the kind register puts in on `bin`'s line. */
function floorHook(bin) {
  const hasHooks = spawnSync(bin, ['-p', 'typeof require("node:module").registerHooks'], { encoding: 'utf8' }).stdout.trim() === 'function';
  return pathToFileURL(path.join(ROOT, 'bench', hasHooks ? 'floor-registerhooks.mjs' : 'floor-module-register.mjs')).href;
}

const VARIANTS = {
  stock: () => ({ ...baseEnv(), NODE_OPTIONS: `--require=${CPU_LINE}` }),
  floor: (bin) => ({ ...baseEnv(), NODE_OPTIONS: `--import=${floorHook(bin)} --require=${CPU_LINE}` }),
  run: runWithCpuLine,
};

const send = (child, message) => child.stdin.write(`${JSON.stringify(message)}\n`);

/** One server start, initialized, pinged and ended: its CPU (ms) and the wall time to its exit (ms). */
function once(bin, generation, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(bin, [SERVER, `--sdk=${generation}`], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let step = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (step === 0 && out.includes('"id":1')) {
        step = 1;
        send(child, { jsonrpc: '2.0', method: 'notifications/initialized' });
        send(child, { jsonrpc: '2.0', id: 2, method: 'ping' });
      } else if (step === 1 && out.includes('"id":2')) {
        step = 2;
        child.stdin.end();
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const cpu = err.match(/^cpu=(\d+)$/m);
      if (code !== 0 || step !== 2 || !cpu || err.replace(/^cpu=\d+\n/m, '') !== '') reject(new Error(`${bin} ${SERVER} exited ${signal ?? code} at step ${step}: ${err}`));
      else resolve({ ms, cpuMs: Number(cpu[1]) / 1000 });
    });
    send(child, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function measure(bin, version, generation) {
  const names = Object.keys(VARIANTS);
  const envs = Object.fromEntries(names.map((v) => [v, VARIANTS[v](bin)]));
  for (const v of names) await once(bin, generation, envs[v]); // the file cache warmed
  const samples = Object.fromEntries(names.map((v) => [v, []]));
  for (let i = 0; i < RUNS; i++) {
    const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
    for (const v of order) samples[v].push(await once(bin, generation, envs[v]));
  }
  const ms = (v) => median(samples[v].map((s) => s.ms));
  const cpu = (v) => median(samples[v].map((s) => s.cpuMs));
  return { version, generation, stock: { ms: ms('stock'), cpu: cpu('stock') }, floor: { ms: ms('floor'), cpu: cpu('floor') }, run: { ms: ms('run'), cpu: cpu('run') } };
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();
fs.writeFileSync(CPU_LINE, "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('cpu=' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n");
const rows = [];
try {
  for (const [bin, version] of [[process.execPath, process.version.slice(1)], ...LINES.map((v) => [ensureNode(v), v])]) {
    for (const generation of GENERATIONS) {
      const row = await measure(bin, version, generation);
      rows.push(row);
      process.stderr.write(`  node ${version}, SDK ${generation}.x server: CPU ${row.stock.cpu.toFixed(1)} → ${row.run.cpu.toFixed(1)} ms (+${(row.run.cpu - row.stock.cpu).toFixed(1)} ms, ${(row.run.cpu / row.stock.cpu).toFixed(2)}×)\n`);
    }
  }
} finally {
  fs.rmSync(CPU_LINE, { force: true });
}

if (args.json) {
  // bench/run.mjs's rows: the server's CPU time, stock against under run.
  console.log(JSON.stringify({
    rows: rows.map((r) => ({
      row: `SDK ${r.generation}.x stdio server's start (initialize, ping, exit), node ${r.version}: CPU under run's environment`,
      stock: r.stock.cpu,
      patched: r.run.cpu,
      unit: 'ms',
      lowerIsBetter: true,
      note: `median of ${RUNS} interleaved; a no-op load hook of register's kind ${(r.floor.cpu / r.stock.cpu).toFixed(2)}× (register ÷ it ${(r.run.cpu / r.floor.cpu).toFixed(2)}×); wall ${r.stock.ms.toFixed(0)} → ${r.run.ms.toFixed(0)} ms`,
    })),
  }));
} else {
  console.log(`\nAn SDK server started under run's environment (register in it) against stock: initialize, ping, stdin closed; ${RUNS} interleaved runs, ${os.cpus().length} CPUs, load average ${loadBefore} before, ${load()} after\n`);
  console.log('| Node | SDK | stock CPU | run CPU | added | ratio | no-op hook CPU | run ÷ no-op hook | stock wall | run wall |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.version} | ${r.generation}.x | ${r.stock.cpu.toFixed(1)} ms | ${r.run.cpu.toFixed(1)} ms | +${(r.run.cpu - r.stock.cpu).toFixed(1)} ms | ${(r.run.cpu / r.stock.cpu).toFixed(2)}× | ${r.floor.cpu.toFixed(1)} ms (${(r.floor.cpu / r.stock.cpu).toFixed(2)}×) | ${(r.run.cpu / r.floor.cpu).toFixed(2)}× | ${r.stock.ms.toFixed(1)} ms | ${r.run.ms.toFixed(1)} ms |`);
  }
}
