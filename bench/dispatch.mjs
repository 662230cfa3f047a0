// Benchmark (a): ns per inbound message through a real SDK Client.
// 20,000 calls in flight; each gets 3 progress notifications and 1 response,
// delivered through transport.onmessage exactly as a transport does.
// Variants, each in its own process (so one's patching or JIT state cannot
// touch another's), measured in the same run, alternating:
//   stock    - the SDK as published
//   jsfix    - the pure-JS fix upstream suggests: _onnotification runs its handler
//              synchronously (zod type guards in connect() unchanged)
//   patched  - mcp-ordered-dispatch install()
//
//   node bench/dispatch.mjs [--calls=20000] [--rounds=5] [--sdk=1,2]
// Child mode: node bench/dispatch.mjs --child --variant=stock --sdk=1 --calls=N
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const CALLS = Number(args.calls ?? 20000);

async function child() {
  const generation = Number(args.sdk);
  const { loadSdk, callTool } = require('../test/support/sdk.cjs');
  const { ScriptedTransport } = require('../test/support/scripted-transport.cjs');
  const sdk = await loadSdk(generation, 'esm');
  if (args.variant === 'patched') require('../entries/index.cjs').install();
  if (args.variant === 'jsfix') applyJsFix(sdk.Protocol, generation);

  const transport = new ScriptedTransport();
  const client = new sdk.Client({ name: 'bench', version: '1.0.0' });
  let errors = 0;
  client.onerror = () => errors++;
  await client.connect(transport);

  // One warm-up round (JIT), then the measured one.
  let result;
  for (const measured of [false, true]) {
    let progress = 0;
    transport.sent.length = 0;
    const calls = [];
    for (let i = 0; i < CALLS; i++) {
      calls.push(callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: () => progress++, timeout: 600_000 }));
    }
    // 2.x sends after an await or two.
    for (let spins = 0; transport.sent.length < CALLS && spins < 100; spins++) await new Promise((resolve) => setImmediate(resolve));
    const requests = transport.sent.filter((m) => m.method === 'tools/call');
    if (requests.length !== CALLS) throw new Error(`expected ${CALLS} requests, saw ${requests.length}`);
    const messages = [];
    for (const r of requests) {
      const token = r.params._meta.progressToken;
      for (let p = 1; p <= 3; p++) messages.push({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: p, total: 3 } });
      messages.push({ jsonrpc: '2.0', id: r.id, result: { content: [{ type: 'text', text: 'done' }] } });
    }
    // The transport parses a fresh object per message; so do we, before the clock starts.
    const wire = messages.map((m) => JSON.stringify(m));
    const parsed = wire.map((w) => JSON.parse(w));
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    for (const m of parsed) transport.onmessage(m);
    await Promise.all(calls);
    await new Promise((resolve) => setImmediate(resolve));
    const ns = Number(process.hrtime.bigint() - t0);
    if (measured) result = { nsPerMessage: ns / parsed.length, progress, expected: CALLS * 3, errors };
  }
  await client.close();
  console.log(JSON.stringify(result));
}

/** The upstream issue's suggested fix: call the notification handler synchronously. */
function applyJsFix(Protocol, generation) {
  const proto = Protocol.prototype;
  if (generation === 1) {
    proto._onnotification = function (notification) {
      const handler = this._notificationHandlers.get(notification.method) ?? this.fallbackNotificationHandler;
      if (handler === undefined) return;
      try {
        Promise.resolve(handler(notification)).catch((error) => this._onerror(new Error(`Uncaught error in notification handler: ${error}`)));
      } catch (error) {
        this._onerror(new Error(`Uncaught error in notification handler: ${error}`));
      }
    };
  } else {
    // 2.x: the gates are module-private; for the benchmark's input (no _meta
    // envelope, no edge classification, a negotiated era that has the method)
    // they all pass, so the fix reduces to a synchronous handler call.
    proto._onnotification = function (notification, extra) {
      const handler = this._notificationHandlers.get(notification.method);
      const fallback = this.fallbackNotificationHandler;
      if (handler === undefined && fallback === undefined) return;
      try {
        const r = handler === undefined ? fallback(notification) : handler(notification, this._negotiatedWireCodec());
        Promise.resolve(r).catch((error) => this._onerror(new Error(`Uncaught error in notification handler: ${error}`)));
      } catch (error) {
        this._onerror(new Error(`Uncaught error in notification handler: ${error}`));
      }
    };
  }
}

function runChild(variant, sdk) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', `--variant=${variant}`, `--sdk=${sdk}`, `--calls=${CALLS}`], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${variant} sdk ${sdk} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function measureDispatch({ rounds = Number(args.rounds ?? 5), sdks = String(args.sdk ?? '1,2').split(',').map(Number) } = {}) {
  const rows = [];
  for (const sdk of sdks) {
    const samples = { stock: [], jsfix: [], patched: [] };
    const last = {};
    for (let i = 0; i < rounds; i++) {
      for (const variant of Object.keys(samples)) {
        const r = runChild(variant, sdk);
        samples[variant].push(r.nsPerMessage);
        last[variant] = r;
      }
    }
    rows.push({
      sdk,
      stock: median(samples.stock),
      jsfix: median(samples.jsfix),
      patched: median(samples.patched),
      progress: { stock: last.stock.progress, jsfix: last.jsfix.progress, patched: last.patched.progress, expected: last.patched.expected },
    });
  }
  return rows;
}

if (args.child) {
  await child();
} else if (process.argv[1] === fileURLToPath(import.meta.url) && args.json) {
  // For bench/run.mjs: one JSON line of table rows.
  const rows = measureDispatch().flatMap((r) => [
    { row: `(a) ns per inbound message, real ${r.sdk}.x Client, ${CALLS} calls in flight, 3 progress + 1 response each`, stock: r.stock, patched: r.patched, unit: 'ns', lowerIsBetter: true, note: `progress delivered: stock ${r.progress.stock}, patched ${r.progress.patched} of ${r.progress.expected}` },
    { row: `(a) same input, ${r.sdk}.x, against the pure-JS fix (synchronous _onnotification)`, stock: r.jsfix, patched: r.patched, unit: 'ns', lowerIsBetter: true, baseline: 'pure-JS fix', note: `pure-JS fix delivers ${r.progress.jsfix} of ${r.progress.expected}` },
  ]);
  console.log(JSON.stringify({ rows }));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = measureDispatch();
  console.log(`(a) ns per inbound message through a real Client, ${CALLS} calls in flight, 3 progress + 1 response each (median of ${args.rounds ?? 5} runs)`);
  console.log('| SDK | stock | pure-JS fix | patched | patched / stock | patched / pure-JS fix | progress delivered stock / fix / patched |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.sdk}.x | ${r.stock.toFixed(0)} ns | ${r.jsfix.toFixed(0)} ns | ${r.patched.toFixed(0)} ns | ${(r.patched / r.stock).toFixed(2)}× | ${(r.patched / r.jsfix).toFixed(2)}× | ${r.progress.stock} / ${r.progress.jsfix} / ${r.progress.patched} of ${r.progress.expected} |`,
    );
  }
}
