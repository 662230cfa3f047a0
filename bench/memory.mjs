// Benchmark (d): memory over 1,000,000 inbound messages through a real SDK
// Client. Calls are made in batches (2,000 in flight); each gets 3 progress
// notifications and 1 response, delivered through transport.onmessage exactly
// as a transport does after a read. One call in four is answered
// re-entrantly: its wire carries only progress 1, and the onprogress callback
// delivers progress 2, 3 and the response from inside the callback (as
// InMemoryTransport does), so the patched dispatcher queues them — each one a
// napi reference, created and released.
//
// Measured after a warm-up batch and a full GC, against the same figures at
// the end (after a full GC): RSS growth, heap growth, peak RSS, and for the
// patched run the dispatcher's napi references created and released.
// Stock and patched run in separate processes, in the same run.
//
//   node --expose-gc bench/memory.mjs [--messages=1000000] [--sdk=1,2] [--quick]
//   node --expose-gc bench/memory.mjs --child --variant=patched --sdk=1 --messages=N   (one JSON line)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const MESSAGES = Number(args.messages ?? (args.quick ? 200_000 : 1_000_000));
const BATCH = 2000; // calls in flight per batch
const PER_CALL = 4; // 3 progress + 1 response
const REENTRANT_EVERY = 4; // one call in four answered re-entrantly
const MB = 1024 * 1024;

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function child() {
  const generation = Number(args.sdk);
  const patched = args.variant === 'patched';
  const { loadSdk, callTool } = require('../test/support/sdk.cjs');
  const { ScriptedTransport } = require('../test/support/scripted-transport.cjs');
  const sdk = await loadSdk(generation, 'esm');
  const lib = require('../entries/index.cjs');
  if (patched) lib.install();
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

  const transport = new ScriptedTransport();
  const client = new sdk.Client({ name: 'bench-memory', version: '1.0.0' });
  let errors = 0;
  client.onerror = () => errors++;
  await client.connect(transport);

  const progressMessage = (token, p) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: p, total: 3 } });
  const response = (id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done' }] } });

  let progress = 0;
  let delivered = 0;
  let calls = 0;
  async function batch(size) {
    transport.sent.length = 0;
    const pending = [];
    const slots = [];
    for (let i = 0; i < size; i++) {
      const reentrant = (calls + i) % REENTRANT_EVERY === 0;
      const slot = { request: undefined };
      slots.push(slot);
      pending.push(
        callTool(sdk, client, { name: 'progress', arguments: {} }, {
          timeout: 600_000,
          onprogress: (p) => {
            progress++;
            if (reentrant && p.progress === 1) {
              const { request } = slot;
              const token = request.params._meta.progressToken;
              // Delivered from inside the callback: queued behind it when patched.
              transport.onmessage(progressMessage(token, 2));
              transport.onmessage(progressMessage(token, 3));
              transport.onmessage(response(request.id));
              delivered += 3;
            }
          },
        }),
      );
    }
    calls += size;
    // 2.x sends after an await or two.
    for (let spins = 0; transport.sent.length < size && spins < 100; spins++) await settle();
    const requests = transport.sent.filter((m) => m.method === 'tools/call');
    if (requests.length !== size) throw new Error(`expected ${size} requests, saw ${requests.length}`);
    const startCall = calls - size;
    for (let i = 0; i < size; i++) {
      const request = requests[i];
      const token = request.params._meta.progressToken;
      slots[i].request = request;
      // As parsed off the wire: a fresh object per message.
      transport.onmessage(progressMessage(token, 1));
      delivered++;
      if ((startCall + i) % REENTRANT_EVERY === 0) continue;
      transport.onmessage(progressMessage(token, 2));
      transport.onmessage(progressMessage(token, 3));
      transport.onmessage(response(request.id));
      delivered += 3;
    }
    await Promise.all(pending);
    await settle();
  }

  // Warm-up (JIT, SDK caches, the first queue growth), then the baseline.
  await batch(BATCH);
  const warmDelivered = delivered;
  const warmProgress = progress;
  globalThis.gc();
  await settle();
  globalThis.gc();
  const start = process.memoryUsage();
  let peakRss = start.rss;
  const t0 = process.hrtime.bigint();
  const totalCalls = Math.ceil(MESSAGES / PER_CALL);
  let done = 0;
  while (done < totalCalls) {
    const size = Math.min(BATCH, totalCalls - done);
    await batch(size);
    done += size;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  globalThis.gc();
  await settle();
  globalThis.gc();
  const end = process.memoryUsage();
  const dispatcher = lib.dispatcherOf(client);
  const stats = dispatcher?.stats();
  const result = {
    variant: args.variant,
    sdk: generation,
    messages: delivered - warmDelivered,
    calls: done,
    progress: progress - warmProgress,
    expectedProgress: done * 3,
    errors,
    ms: Math.round(ms),
    rssStartMB: start.rss / MB,
    rssEndMB: end.rss / MB,
    rssGrowthMB: (end.rss - start.rss) / MB,
    peakRssMB: peakRss / MB,
    heapGrowthMB: (end.heapUsed - start.heapUsed) / MB,
    externalGrowthMB: (end.external - start.external) / MB,
    refsCreated: stats?.refsCreated ?? null,
    refsReleased: stats?.refsReleased ?? null,
    pending: dispatcher?.pending ?? null,
    maxQueued: stats?.maxQueued ?? null,
    dispatched: stats?.dispatched ?? null,
  };
  await client.close();
  console.log(JSON.stringify(result));
}

function runChild(variant, sdk) {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), '--child', `--variant=${variant}`, `--sdk=${sdk}`, `--messages=${MESSAGES}`],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`${variant} sdk ${sdk} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// RSS after a full GC moves by several MB from run to run (allocator and
// V8 space sizing, not live objects: heap growth stays flat), so each
// variant runs `rounds` times, alternating, and the median run is reported.
export function measureMemory({
  sdks = String(args.sdk ?? '1,2').split(',').map(Number),
  rounds = Number(args.rounds ?? (args.quick ? 1 : 3)),
} = {}) {
  return sdks.map((sdk) => {
    const runs = { stock: [], patched: [] };
    for (let i = 0; i < rounds; i++) for (const variant of Object.keys(runs)) runs[variant].push(runChild(variant, sdk));
    const median = (xs) => [...xs].sort((a, b) => a.rssGrowthMB - b.rssGrowthMB)[xs.length >> 1];
    const range = (xs) => xs.map((r) => r.rssGrowthMB).sort((a, b) => a - b);
    return { sdk, stock: median(runs.stock), patched: median(runs.patched), rounds, ranges: { stock: range(runs.stock), patched: range(runs.patched) } };
  });
}

const fmt = (n) => n.toFixed(1);

if (args.child) {
  await child();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = measureMemory();
  if (args.json) {
    // For bench/run.mjs: one JSON line of table rows.
    const rows = results.flatMap(({ sdk, stock, patched, rounds, ranges }) => [
      {
        row: `(d) RSS growth over ${patched.messages.toLocaleString('en-US')} messages, real ${sdk}.x Client (1 call in 4 answered re-entrantly; median of ${rounds})`,
        stock: stock.rssGrowthMB,
        patched: patched.rssGrowthMB,
        unit: 'MB',
        lowerIsBetter: true,
        note: `all runs: stock ${ranges.stock.map(fmt).join(', ')}; patched ${ranges.patched.map(fmt).join(', ')} MB. napi refs created ${patched.refsCreated}, released ${patched.refsReleased}; peak RSS ${fmt(stock.peakRssMB)} / ${fmt(patched.peakRssMB)} MB`,
      },
      {
        row: `(d) heap growth after full GC, same run, ${sdk}.x`,
        stock: stock.heapGrowthMB,
        patched: patched.heapGrowthMB,
        unit: 'MB',
        lowerIsBetter: true,
        note: `progress delivered: stock ${stock.progress}, patched ${patched.progress} of ${patched.expectedProgress}`,
      },
    ]);
    console.log(JSON.stringify({ rows }));
  } else {
    console.log(`(d) memory over ${MESSAGES.toLocaleString('en-US')} inbound messages through a real Client (${BATCH} calls in flight per batch, 3 progress + 1 response each, 1 call in ${REENTRANT_EVERY} answered re-entrantly)`);
    console.log('| SDK | variant | messages | time | RSS start → end | RSS growth | peak RSS | heap growth (after GC) | napi refs created / released | progress delivered | onerrors |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const { sdk, stock, patched } of results) {
      for (const r of [stock, patched]) {
        const refs = r.refsCreated === null ? '—' : `${r.refsCreated} / ${r.refsReleased}`;
        console.log(
          `| ${sdk}.x | ${r.variant} | ${r.messages} | ${(r.ms / 1000).toFixed(1)} s | ${fmt(r.rssStartMB)} → ${fmt(r.rssEndMB)} MB | ${fmt(r.rssGrowthMB)} MB | ${fmt(r.peakRssMB)} MB | ${fmt(r.heapGrowthMB)} MB | ${refs} | ${r.progress} of ${r.expectedProgress} | ${r.errors} |`,
        );
      }
    }
  }
}
