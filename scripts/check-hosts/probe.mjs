// The probe preload check:hosts puts beside register (through
// BUN_INSPECT_PRELOAD in a Bun-compiled host, which `run` keeps beside its
// own; and into every Bun Worker the host makes, through the Worker's own
// `preload` option, since Bun runs no BUN_INSPECT_PRELOAD preload in a
// Worker). Each thread appends JSON lines to $MCP_ORDERED_DISPATCH_CHECK_OUT
// as things happen (Bun 1.3.14 runs no `exit` listener once a TUI has
// terminated its Worker and called process.exit(), so nothing waits for
// the end):
//   { event: 'start', thread, pid, argv, registerFiles }
//   { event: 'patched', thread, record, class, generation }: an SDK class
//     register patched (its patch records, lib/patch/records.cjs)
//   { event: 'unknown-token', thread }: the SDK's "Received a progress
//     notification for an unknown token" error made (the hosts set no
//     onerror, so nothing else shows it): Error is wrapped to count it
//   { event: 'spawn', thread, via, file, runVariables }: a child started
//     through Bun.spawn, Bun.spawnSync or node:child_process, and which of
//     run's variables its environment holds
//   { event: 'worker', thread, url }: a Worker made (the probe added to it)
import fs from 'node:fs';
import path from 'node:path';

export const PROBE = String.raw`(() => {
const fs = require('node:fs');
const out = process.env.MCP_ORDERED_DISPATCH_CHECK_OUT;
if (!out || globalThis.__mcpOdCheckProbe) return;
globalThis.__mcpOdCheckProbe = true;
let thread = 'main';
try {
  const wt = require('node:worker_threads');
  thread = wt.isMainThread ? 'main' : 'worker ' + wt.threadId;
} catch {}
const note = (line) => {
  try { fs.appendFileSync(out, JSON.stringify({ ...line, thread, pid: process.pid }) + '\n'); } catch {}
};
const RUN = ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN'];
const ours = (env) => RUN.filter((n) => typeof env?.[n] === 'string' && /mcp-ordered-dispatch|register\.(mjs|cjs)|^\{/.test(env[n]) && (n !== 'BUN_INSPECT_PRELOAD' || !env[n].endsWith('probe.cjs')));
note({ event: 'start', argv: process.argv.slice(1, 3), registerFiles: Object.keys(require.cache ?? {}).filter((f) => /[\\/]lib[\\/]register[\\/]/.test(f)).length, runVariables: ours(process.env) });
const keys = { protocol: Symbol.for('mcp-ordered-dispatch.patch'), stdio: Symbol.for('mcp-ordered-dispatch.stdio-patch') };
const define = Object.defineProperty;
Object.defineProperty = function defineProperty(target, key, descriptor) {
  for (const [record, symbol] of Object.entries(keys)) {
    if (key === symbol) note({ event: 'patched', record, class: target?.constructor?.name, generation: descriptor?.value?.generation, methods: (() => { try { return Object.getOwnPropertyNames(target).slice(0, 12); } catch { return []; } })() });
  }
  return define.apply(this, arguments);
};
const NativeError = globalThis.Error;
globalThis.Error = new Proxy(NativeError, {
  apply(target, self, args) {
    if (typeof args[0] === 'string' && args[0].startsWith('Received a progress notification for an unknown token')) note({ event: 'unknown-token' });
    return Reflect.apply(target, self, args);
  },
  construct(target, args, newTarget) {
    if (typeof args[0] === 'string' && args[0].startsWith('Received a progress notification for an unknown token')) note({ event: 'unknown-token' });
    return Reflect.construct(target, args, newTarget === globalThis.Error ? target : newTarget);
  },
});
const spawned = (via, file, env) => note({ event: 'spawn', via, file: String(file ?? '?').split('/').slice(-2).join('/'), runVariables: ours(env ?? process.env) });
if (typeof Bun !== 'undefined') {
  for (const name of ['spawn', 'spawnSync']) {
    const original = Bun[name];
    if (typeof original !== 'function') continue;
    try {
      Bun[name] = function (cmd, options) {
        const o = Array.isArray(cmd) ? options : cmd;
        const argv = Array.isArray(cmd) ? cmd : cmd?.cmd;
        spawned('Bun.' + name, argv?.[0], o?.env);
        return original.apply(this, arguments);
      };
    } catch {}
  }
}
const cp = require('node:child_process');
const ChildProcess = cp.ChildProcess;
const protoSpawn = ChildProcess?.prototype?.spawn;
if (typeof protoSpawn === 'function') {
  ChildProcess.prototype.spawn = function (options) {
    spawned('ChildProcess#spawn', options?.file, options?.envPairs ? Object.fromEntries(options.envPairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])) : options?.env);
    return protoSpawn.apply(this, arguments);
  };
}
for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']) {
  const original = cp[name];
  if (typeof original !== 'function') continue;
  cp[name] = function (file, args, options) {
    const o = Array.isArray(args) ? options : args;
    spawned('child_process.' + name, file, o?.env);
    return original.apply(this, arguments);
  };
}
const probeFile = __filename;
const NativeWorker = globalThis.Worker;
if (typeof NativeWorker === 'function' && typeof Bun !== 'undefined') {
  globalThis.Worker = new Proxy(NativeWorker, {
    construct(target, args, newTarget) {
      const [url, options = {}] = args;
      note({ event: 'worker', url: String(url) });
      const preload = [probeFile, ...[].concat(options.preload ?? [])];
      return Reflect.construct(target, [url, { ...options, preload }], newTarget === globalThis.Worker ? target : newTarget);
    },
  });
}
})();
`;

/** Writes the probe into `dir`: its path. */
export function writeProbe(dir) {
  const file = path.join(dir, 'probe.cjs');
  fs.writeFileSync(file, PROBE);
  return file;
}

/** What the probe's lines say, per thread: { threads: Map(thread -> { unknownToken, patched: [..], started }), spawns, workers }. */
export function readProbe(lines) {
  const threads = new Map();
  const of = (l) => {
    const key = `${l.pid} ${l.thread}`;
    if (!threads.has(key)) threads.set(key, { pid: l.pid, thread: l.thread, unknownToken: 0, patched: [], started: undefined });
    return threads.get(key);
  };
  const spawns = [];
  const workers = [];
  for (const l of lines) {
    if (l.event === 'start') of(l).started = l;
    else if (l.event === 'patched') of(l).patched.push(l);
    else if (l.event === 'unknown-token') of(l).unknownToken++;
    else if (l.event === 'spawn') spawns.push(l);
    else if (l.event === 'worker') workers.push(l);
  }
  return { threads, spawns, workers, unknownToken: [...threads.values()].reduce((n, t) => n + t.unknownToken, 0) };
}
