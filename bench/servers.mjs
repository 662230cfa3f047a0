#!/usr/bin/env node
// Many stdio servers in one host process (an MCP gateway, say): real SDK
// Clients (StdioClientTransport), one per real bench/flood-server.mjs child
// (a raw server, no SDK), stock against patched (install(): the off-thread
// reader) and patched with the main-thread reader (install({ offThread: false })),
// each in its own process, rotating which goes first, rounds in the same run.
//   * flood, for each N of --servers: N servers connected (10 at a time),
//     then tool `logs` called on all of them at once, each sending --count
//     log notifications then its result. Over the window from the calls to
//     the last message handled: wall ms, the main thread's CPU time (its
//     own user + system) and busy time (performance.eventLoopUtilization:
//     active ms, which also counts time the OS gave the CPUs to others), the
//     process's CPU (user + system, every thread) and the servers' own,
//     event-loop delay p99 and max (monitorEventLoopDelay, 1 ms
//     resolution), the time the main thread was runnable but waited for a
//     CPU (Linux schedstat), the process's OS threads and RSS at their peak
//     (sampled every 50 ms; threads from /proc/self/status, Linux only), and
//     notifications handled against expected, with the clients' onerror
//     calls. The issue's targets, at 100 servers: threads
//     ≤ stock + 4, p99 ≤ 20 ms, max ≤ 50 ms, main-thread CPU ≤ 0.2× stock's,
//     nothing lost. Beside them, in the same rounds, two floors: the same
//     servers and calls read by a client with no SDK (RawClient) that
//     JSON.parses each line ('floor': the least main-thread CPU any reader
//     pays), or only finds the lines and parses the responses ('pipe': the
//     bare pipe; its stalls are what the machine gives any reader, the
//     servers' own CPU and the scheduling of a hundred processes included).
//   * fairness: one server sends --flood-count log notifications while
//     another is pinged (client.ping()) back to back until the flood's last
//     message is handled: ping round trip p50 and p99 (target: p99 ≤ 20 ms
//     and ≤ stock's).
//   * idle: --idle servers connected and left idle: RSS, OS threads and
//     process.getActiveResourcesInfo() entries after, minus before, per
//     transport (after a full GC both times).
//
//   Every server builds its flood before the window (bench/flood-server.mjs
//   'prepare'), so that in the window it only writes.
//
//   node bench/servers.mjs [--servers=1,10,100] [--count=2000] [--flood-count=200000] [--idle=100]
//                          [--rounds=2] [--sdk=1|2] [--variants=stock,patched,mainthread,floor,pipe] [--json] [--quick]
//                          [--tokio-native=FILE: also variant 'tokio' (see bench/eventloop.mjs)]
//   --quick: --servers=1,10 --count=500 --flood-count=20000 --idle=10 --rounds=1 (each still overridable)
//   node --expose-gc bench/servers.mjs --child=flood|fairness|idle --variant=V --sdk=N [--servers=N] [--count=N]   (one JSON line)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { READER_VARIANTS, median, rotatedRuns, installVariant } from './workloads.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const QUICK = args.quick === true;
const SERVERS = String(args.servers ?? (QUICK ? '1,10' : '1,10,100')).split(',').map(Number);
const COUNT = Number(args.count ?? (QUICK ? 500 : 2000));
const FLOOD_COUNT = Number(args['flood-count'] ?? (QUICK ? 20_000 : 200_000));
const IDLE = Number(args.idle ?? (QUICK ? 10 : 100));
const ROUNDS = Number(args.rounds ?? (QUICK ? 1 : 2));
const SDK = Number(args.sdk ?? 1);
const VARIANTS = String(args.variants ?? (args['tokio-native'] ? 'stock,patched,mainthread,tokio,floor,pipe' : 'stock,patched,mainthread,floor,pipe')).split(',');
// The floors' client has no SDK: they are measured in the flood rows only.
const FLOORS = ['floor', 'pipe'];
const SDK_VARIANTS = VARIANTS.filter((v) => !FLOORS.includes(v));
const FLOOD = fileURLToPath(new URL('./flood-server.mjs', import.meta.url));
const TIMEOUT_MS = 120_000; // a child's whole run, and any one request
const CONNECT_CONCURRENCY = 10;
const SAMPLE_MS = 50;
const GRACE_MS = 1000; // after the last result, for notification handlers still queued
/** The issue's targets for the flood at this many servers, and for the fairness row. */
const TARGET_SERVERS = 100;
const TARGETS = { extraThreads: 4, p99Ms: 20, maxMs: 50, busyVsStock: 0.2, pingP99Ms: 20 };
const MB = 1024 * 1024;

const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** OS threads of this process (null off Linux). */
function threadCount() {
  if (process.platform !== 'linux') return null;
  return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
}

/** Samples threads and RSS every SAMPLE_MS until the returned stop(), which gives their peaks. */
function peakSampler() {
  const peak = { threads: threadCount(), rss: process.memoryUsage.rss() };
  const sample = () => {
    const threads = threadCount();
    if (threads !== null) peak.threads = Math.max(peak.threads, threads);
    peak.rss = Math.max(peak.rss, process.memoryUsage.rss());
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return () => {
    clearInterval(timer);
    sample();
    return { threads: peak.threads, rssMB: peak.rss / MB };
  };
}

/** CPU ms (user + system) of a thread or process from /proc (USER_HZ ticks: 10 ms); null off Linux or once gone. */
function procCpuMs(statPath) {
  try {
    const fields = fs.readFileSync(statPath, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU ms of this process's main thread: process.threadCpuUsage() where Node has it (23.9+), else /proc. */
function mainThreadCpuMs() {
  if (typeof process.threadCpuUsage === 'function') {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  }
  return process.platform === 'linux' ? procCpuMs(`/proc/self/task/${process.pid}/stat`) : null;
}

// How flood-server.mjs's responses start (its JSON.stringify of { jsonrpc, id, result }).
const RESPONSE_PREFIX = Buffer.from('{"jsonrpc":"2.0","id":');

/**
 * The floors (variants 'floor' and 'pipe'): a client of
 * bench/flood-server.mjs with no SDK, which reads its stdout, finds the
 * lines, counts the log notifications and settles its requests. 'floor'
 * JSON.parses every line (the least any reader does with them); 'pipe'
 * parses only the responses (the bare pipe).
 */
class RawClient {
  pending = new Map();
  nextId = 0;
  rest = null; // the incomplete line of the last chunk
  constructor(onLog, parseAll) {
    this.onLog = onLog;
    this.parseAll = parseAll;
    this.child = spawn(process.execPath, [FLOOD], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdout.on('data', (chunk) => this.read(chunk));
  }

  read(chunk) {
    let start = 0;
    let nl = chunk.indexOf(10);
    if (this.rest !== null && nl !== -1) {
      const joined = Buffer.concat([this.rest, chunk.subarray(0, nl)]);
      this.line(joined, 0, joined.length);
      this.rest = null;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    for (; nl !== -1; start = nl + 1, nl = chunk.indexOf(10, start)) this.line(chunk, start, nl);
    if (start < chunk.length) this.rest = this.rest === null ? chunk.subarray(start) : Buffer.concat([this.rest, chunk.subarray(start)]);
  }

  line(bytes, start, end) {
    const response = bytes.compare(RESPONSE_PREFIX, 0, RESPONSE_PREFIX.length, start, Math.min(end, start + RESPONSE_PREFIX.length)) === 0;
    if (!response && !this.parseAll) return this.onLog();
    const message = JSON.parse(bytes.toString('utf8', start, end));
    if (message.method === 'notifications/message') return this.onLog();
    const settle = this.pending.get(message.id);
    this.pending.delete(message.id);
    settle?.(message);
  }

  request(method, params) {
    const id = ++this.nextId;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((resolve, reject) => {
      this.pending.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
    });
  }

  async connect() {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'floor', version: '1.0.0' } });
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  async close() {
    this.child.stdin.end();
    await this.exited;
  }
}

/**
 * Ms this process's main thread has waited for a CPU while runnable (the
 * kernel's schedstat: run, wait, timeslices); null off Linux.
 */
function mainThreadWaitMs() {
  if (process.platform !== 'linux') return null;
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

/** Sorted samples' percentile. */
const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function child() {
  const floor = FLOORS.includes(args.variant);
  const checkReadBuffer = floor ? () => {} : await installVariant(args.variant, ROOT);
  const { loadSdk, callTool, onLogMessage } = require('../test/support/sdk.cjs');
  const sdk = floor ? undefined : await loadSdk(SDK, 'esm');
  const live = new Set(); // transports whose server may still run
  const killAll = () => {
    for (const transport of live) {
      try {
        if (transport.pid) process.kill(transport.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  const timer = setTimeout(() => {
    killAll();
    process.stderr.write(`servers.mjs --child=${args.child} --variant=${args.variant}: timed out after ${TIMEOUT_MS} ms\n`);
    process.exit(2);
  }, TIMEOUT_MS);

  let logs = 0;
  let errors = 0;
  /** n servers connected, CONNECT_CONCURRENCY at a time: [{ client, transport }]. */
  async function connectAll(n) {
    const clients = [];
    let next = 0;
    async function worker() {
      while (next < n) {
        const i = next++;
        if (floor) {
          const client = new RawClient(() => logs++, args.variant === 'floor');
          live.add(client);
          await client.connect();
          clients[i] = { client, transport: client };
          continue;
        }
        const client = new sdk.Client({ name: `bench-${i}`, version: '1.0.0' });
        onLogMessage(sdk, client, () => {
          logs++;
        });
        client.onerror = () => errors++;
        const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [FLOOD] });
        live.add(transport);
        await client.connect(transport);
        checkReadBuffer(transport);
        clients[i] = { client, transport };
      }
    }
    await Promise.all(Array.from({ length: Math.min(CONNECT_CONCURRENCY, n) }, worker));
    return clients;
  }
  async function closeAll(clients) {
    await Promise.all(
      clients.map(async ({ client, transport }) => {
        await client.close();
        live.delete(transport);
      }),
    );
  }
  const call = (client, name, count) =>
    floor ? client.request('tools/call', { name, arguments: { count } }) : callTool(sdk, client, { name, arguments: { count } }, { timeout: TIMEOUT_MS });
  const callLogs = (client, count) => call(client, 'logs', count);
  const callPrepare = (client, count) => call(client, 'prepare', count);
  /** Until `expected` notifications were handled, or GRACE_MS passed. */
  async function handled(expected) {
    const until = performance.now() + GRACE_MS;
    while (logs < expected && performance.now() < until) await tick();
  }

  async function flood() {
    const n = Number(args.servers);
    const count = Number(args.count);
    const c0 = performance.now();
    const clients = await connectAll(n);
    const connectMs = performance.now() - c0;
    // Warm-up (JIT, buffers): a smaller flood from every server; and every
    // server builds its flood before the window (bench/flood-server.mjs
    // 'prepare'): on a small machine a hundred servers building theirs
    // at once would take the CPUs from the client being measured.
    const warm = Math.min(count, 1000);
    logs = 0;
    await Promise.all(clients.map(({ client }) => callLogs(client, warm)));
    await handled(n * warm);
    await Promise.all(clients.map(({ client }) => callPrepare(client, count)));
    logs = 0;
    errors = 0;
    await sleep(50); // let the connections settle: nothing pending
    const rssBeforeMB = process.memoryUsage.rss() / MB;
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    const stop = peakSampler();
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    const wait0 = mainThreadWaitMs();
    const serversCpu = () => clients.reduce((sum, { transport }) => sum + (procCpuMs(`/proc/${transport.pid}/stat`) ?? 0), 0);
    const servers0 = serversCpu();
    const t0 = performance.now();
    await Promise.all(clients.map(({ client }) => callLogs(client, count)));
    await handled(n * count);
    const ms = performance.now() - t0;
    const busyMs = performance.eventLoopUtilization(elu0).active;
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuMs();
    const wait1 = mainThreadWaitMs();
    const serversCpuMs = serversCpu() - servers0;
    const peak = stop();
    // The histogram records a turn's delay when its timer fires next (see bench/eventloop.mjs).
    await sleep(5);
    h.disable();
    const delivered = logs;
    await closeAll(clients);
    return { ms, busyMs, mainCpuMs: main0 === null || main1 === null ? null : main1 - main0, waitMs: wait0 === null || wait1 === null ? null : wait1 - wait0, serversCpuMs, cpuMs: (cpu.user + cpu.system) / 1000, p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6, ...peak, rssBeforeMB, delivered, expected: n * count, errors, connectMs };
  }

  async function fairness() {
    const [flooder, pinged] = await connectAll(2);
    // Warm-up: pings, and a small flood.
    for (let i = 0; i < 200; i++) await pinged.client.ping();
    logs = 0;
    await callLogs(flooder.client, 5000);
    await handled(5000);
    await callPrepare(flooder.client, FLOOD_COUNT);
    logs = 0;
    errors = 0;
    await sleep(50);
    let done = false;
    const t0 = performance.now();
    const flood = (async () => {
      try {
        await callLogs(flooder.client, FLOOD_COUNT);
        await handled(FLOOD_COUNT);
      } finally {
        done = true;
      }
    })();
    const rtts = [];
    while (!done) {
      const s = performance.now();
      await pinged.client.ping({ timeout: TIMEOUT_MS });
      rtts.push(performance.now() - s);
    }
    await flood;
    const ms = performance.now() - t0;
    const delivered = logs;
    await closeAll([flooder, pinged]);
    rtts.sort((a, b) => a - b);
    return { pings: rtts.length, p50Ms: at(rtts, 50), p99Ms: at(rtts, 99), maxMs: rtts[rtts.length - 1], ms, delivered, expected: FLOOD_COUNT, errors };
  }

  async function idle() {
    const n = Number(args.servers);
    const snapshot = async () => {
      await sleep(200);
      globalThis.gc?.();
      return { rss: process.memoryUsage.rss(), threads: threadCount(), handles: process.getActiveResourcesInfo().length };
    };
    const before = await snapshot();
    const clients = await connectAll(n);
    const after = await snapshot();
    await closeAll(clients);
    const per = (key) => (after[key] === null ? null : (after[key] - before[key]) / n);
    return { kbPer: per('rss') / 1024, threadsPer: per('threads'), handlesPer: per('handles'), threadsBefore: before.threads, threadsAfter: after.threads, errors };
  }

  try {
    if (floor && args.child !== 'flood') throw new Error(`the ${args.variant} variant runs the flood only`);
    const workload = { flood, fairness, idle }[args.child];
    if (!workload) throw new Error(`unknown --child=${args.child}: flood, fairness, idle`);
    console.log(JSON.stringify(await workload()));
  } catch (error) {
    killAll();
    console.error(error);
    process.exit(1);
  } finally {
    clearTimeout(timer);
  }
}

function runChild(variant, workload, extra = []) {
  const load = os.loadavg()[0];
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), `--child=${workload}`, `--variant=${variant}`, `--sdk=${SDK}`, ...extra], {
    encoding: 'utf8',
    env: variant === 'tokio' ? { ...process.env, MCP_ORDERED_DISPATCH_NATIVE: args['tokio-native'] } : process.env,
    timeout: TIMEOUT_MS + 30_000,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${workload} ${extra.join(' ')} ${variant} sdk ${SDK} failed (${r.error?.code ?? r.signal ?? r.status}): ${r.stderr}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), load };
}

/** { [variant]: { [key]: median over the rounds, lost (if counted) and errors: the worst round's, load } } */
function summarize(runs, keys) {
  return Object.fromEntries(
    Object.entries(runs).map(([variant, rs]) => {
      const s = Object.fromEntries(keys.map((k) => [k, rs[0][k] === null ? null : median(rs.map((r) => r[k]))]));
      if ('expected' in rs[0]) s.lost = Math.max(...rs.map((r) => r.expected - r.delivered));
      s.errors = Math.max(...rs.map((r) => r.errors));
      s.load = rs.map((r) => r.load.toFixed(1)).join('/');
      return [variant, s];
    }),
  );
}

function measureAll() {
  const flood = SERVERS.map((n) => ({
    n,
    ...summarize(
      rotatedRuns(VARIANTS, ROUNDS, (v) => runChild(v, 'flood', [`--servers=${n}`, `--count=${COUNT}`])),
      ['ms', 'busyMs', 'mainCpuMs', 'waitMs', 'serversCpuMs', 'cpuMs', 'p99Ms', 'maxMs', 'threads', 'rssMB', 'rssBeforeMB', 'connectMs'],
    ),
  }));
  const fairness = summarize(
    rotatedRuns(SDK_VARIANTS, ROUNDS, (v) => runChild(v, 'fairness', [`--flood-count=${FLOOD_COUNT}`])),
    ['pings', 'p50Ms', 'p99Ms', 'maxMs', 'ms'],
  );
  const idle = summarize(
    rotatedRuns(SDK_VARIANTS, ROUNDS, (v) => runChild(v, 'idle', [`--servers=${IDLE}`])),
    ['kbPer', 'threadsPer', 'handlesPer', 'threadsBefore', 'threadsAfter'],
  );
  return { flood, fairness, idle };
}

const f = (n) => (n === null ? '-' : n.toFixed(n >= 100 ? 0 : 1));

function rows({ flood, fairness, idle }) {
  const rows = [];
  const of = `median of ${ROUNDS}`;
  const count = COUNT.toLocaleString('en-US');
  for (const result of flood) {
    const { n, stock } = result;
    const targeted = n === TARGET_SERVERS;
    const servers = `${n} server${n === 1 ? '' : 's'}`;
    const what = `${n} real stdio server${n === 1 ? '' : 's'} each sending ${count} log notifications at once, real ${SDK}.x Clients in one process`;
    for (const [variant, label] of READER_VARIANTS) {
      const patched = result[variant];
      if (!patched || !stock) continue;
      const loads = `load ${stock.load} / ${patched.load}`;
      rows.push({
        row: `servers: main-thread busy time, ${what}${label} (${of})`,
        stock: stock.busyMs,
        patched: patched.busyMs,
        unit: 'ms',
        lowerIsBetter: true,
        note: `all handled after stock ${f(stock.ms)}, patched ${f(patched.ms)} ms; process CPU (user + system, every thread) stock ${f(stock.cpuMs)}, patched ${f(patched.cpuMs)} ms; ${n} connected in stock ${f(stock.connectMs)}, patched ${f(patched.connectMs)} ms; ${loads}`,
      });
      if (stock.mainCpuMs !== null && patched.mainCpuMs !== null) {
        rows.push({
          row: `servers: main-thread CPU time, ${servers}, same runs${label}`,
          stock: stock.mainCpuMs,
          patched: patched.mainCpuMs,
          unit: 'ms',
          lowerIsBetter: true,
          ...(targeted ? { target: `≤ ${TARGETS.busyVsStock}× stock`, met: patched.mainCpuMs <= TARGETS.busyVsStock * stock.mainCpuMs } : {}),
          note: `user + system of the main thread alone (10 ms ticks where read from /proc); the ${n} servers' own CPU over the window: stock ${f(stock.serversCpuMs)}, patched ${f(patched.serversCpuMs)} ms`,
        });
      }
      rows.push({
        row: `servers: event-loop delay p99, ${servers}, same runs${label}`,
        stock: stock.p99Ms,
        patched: patched.p99Ms,
        unit: 'ms',
        lowerIsBetter: true,
        ...(targeted ? { target: `≤ ${TARGETS.p99Ms} ms`, met: patched.p99Ms <= TARGETS.p99Ms } : {}),
      });
      rows.push({
        row: `servers: worst event-loop stall, ${servers}, same runs${label}`,
        stock: stock.maxMs,
        patched: patched.maxMs,
        unit: 'ms',
        lowerIsBetter: true,
        ...(targeted ? { target: `≤ ${TARGETS.maxMs} ms`, met: patched.maxMs <= TARGETS.maxMs } : {}),
        ...(stock.waitMs !== null && patched.waitMs !== null
          ? { note: `the main thread runnable but waiting for a CPU (schedstat), over the window: stock ${f(stock.waitMs)}, patched ${f(patched.waitMs)} ms` }
          : {}),
      });
      if (stock.threads !== null && patched.threads !== null) {
        rows.push({
          row: `servers: OS threads of the process at the peak, ${servers}, same runs${label}`,
          stock: stock.threads,
          patched: patched.threads,
          unit: 'threads',
          lowerIsBetter: true,
          ...(targeted ? { target: `≤ stock + ${TARGETS.extraThreads}`, met: patched.threads <= stock.threads + TARGETS.extraThreads } : {}),
        });
      }
      rows.push({
        row: `servers: RSS at the peak, ${servers}, same runs${label}`,
        stock: stock.rssMB,
        patched: patched.rssMB,
        unit: 'MB',
        lowerIsBetter: true,
        note: `before the calls (all connected, warmed up): stock ${f(stock.rssBeforeMB)}, patched ${f(patched.rssBeforeMB)} MB`,
      });
      rows.push({
        row: `servers: log notifications lost (worst round), ${servers}, same runs${label}`,
        stock: stock.lost,
        patched: patched.lost,
        unit: 'notifications',
        lowerIsBetter: true,
        target: '0',
        met: patched.lost === 0,
        note: `of ${(n * COUNT).toLocaleString('en-US')} per round; onerror stock ${stock.errors}, patched ${patched.errors}`,
      });
    }
    // The default reader against the floors (RawClient, no SDK), same
    // rounds: its main-thread CPU against pipe + JSON.parse, its stalls
    // against the bare pipe's.
    const { patched } = result;
    const label = READER_VARIANTS.find(([v]) => v === 'patched')[1];
    for (const [variant, baseline, keys] of [
      ['floor', 'floor: pipe + JSON.parse, no SDK', [['mainCpuMs', 'main-thread CPU time']]],
      ['pipe', 'the bare pipe, no SDK', [['p99Ms', 'event-loop delay p99'], ['maxMs', 'worst event-loop stall']]],
    ]) {
      const floor = result[variant];
      if (!floor || !patched) continue;
      const note = `${variant}: all read after ${f(floor.ms)} ms, main-thread CPU ${f(floor.mainCpuMs)} ms, waiting for a CPU ${f(floor.waitMs)} ms, the servers' own CPU ${f(floor.serversCpuMs)} ms, p99 ${f(floor.p99Ms)}, worst ${f(floor.maxMs)} ms, lost ${floor.lost}; load ${floor.load} / ${patched.load}`;
      for (const [key, what] of keys) {
        if (floor[key] === null || patched[key] === null) continue;
        rows.push({ row: `servers: ${what}, ${servers}, same runs${label}, against ${baseline.replace(/^floor: /, '')}`, stock: floor[key], patched: patched[key], baseline, unit: 'ms', lowerIsBetter: true, note });
      }
    }
  }
  const floodCount = FLOOD_COUNT.toLocaleString('en-US');
  for (const [variant, label] of READER_VARIANTS) {
    const { stock } = fairness;
    const patched = fairness[variant];
    if (!patched || !stock) continue;
    rows.push({
      row: `servers: ping round trip p99 to one server while another sends ${floodCount} log notifications, real ${SDK}.x Clients${label} (${of})`,
      stock: stock.p99Ms,
      patched: patched.p99Ms,
      unit: 'ms',
      lowerIsBetter: true,
      target: `≤ ${TARGETS.pingP99Ms} ms and ≤ stock`,
      met: patched.p99Ms <= TARGETS.pingP99Ms && patched.p99Ms <= stock.p99Ms,
      note: `p50 stock ${f(stock.p50Ms)}, patched ${f(patched.p50Ms)} ms; worst stock ${f(stock.maxMs)}, patched ${f(patched.maxMs)} ms; pings stock ${stock.pings}, patched ${patched.pings} during a flood of stock ${f(stock.ms)}, patched ${f(patched.ms)} ms; lost stock ${stock.lost}, patched ${patched.lost}; onerror stock ${stock.errors}, patched ${patched.errors}; load ${stock.load} / ${patched.load}`,
    });
  }
  for (const [variant, label] of READER_VARIANTS) {
    const { stock } = idle;
    const patched = idle[variant];
    if (!patched || !stock) continue;
    const what = `per idle connected stdio server (${IDLE} connected), real ${SDK}.x Clients${label} (${of})`;
    rows.push({
      row: `servers: RSS ${what}`,
      stock: stock.kbPer,
      patched: patched.kbPer,
      unit: 'KB',
      lowerIsBetter: true,
      note: `after a full GC, against before connecting; load ${stock.load} / ${patched.load}`,
    });
    if (stock.threadsPer !== null && patched.threadsPer !== null) {
      rows.push({
        row: `servers: OS threads per idle connected server, same runs${label}`,
        stock: stock.threadsPer,
        patched: patched.threadsPer,
        unit: 'threads',
        lowerIsBetter: true,
        note: `threads before → after connecting: stock ${stock.threadsBefore} → ${stock.threadsAfter}, patched ${patched.threadsBefore} → ${patched.threadsAfter}`,
      });
    }
    rows.push({ row: `servers: active handles (process.getActiveResourcesInfo()) per idle connected server, same runs${label}`, stock: stock.handlesPer, patched: patched.handlesPer, unit: 'handles', lowerIsBetter: true });
  }
  return rows;
}

if (args.child) {
  await child();
} else {
  const result = rows(measureAll());
  if (args.json) console.log(JSON.stringify({ rows: result }));
  else {
    const g = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(n >= 100 ? 0 : 2));
    for (const r of result) {
      const target = r.target ? `; target ${r.target}: ${r.met ? 'met' : 'NOT MET'}` : '';
      console.log(`${r.row}\n  stock ${g(r.stock)} ${r.unit}, patched ${g(r.patched)} ${r.unit}${target}${r.note ? `\n  ${r.note}` : ''}`);
    }
  }
}
