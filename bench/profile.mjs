#!/usr/bin/env node
// Not part of `npm run bench`: a fixed, repeatable load for a profiler, so
// that the next change to the native stdio path can see where its time goes.
// It runs one workload of bench/workloads.mjs through one part of the native
// path, a bounded number of rounds, and prints the time per round.
//
//   node bench/profile.mjs [--workload=small|mixed|text] [--part=reader|push|transport] [--rounds=10]
//
//   reader     NativeReadBuffer append/readMessage (what bench/framing.mjs times)
//   push       the framer's push alone (Rust framing, validation, JS strings)
//   transport  a patched SDK 1.x StdioClientTransport's processReadBuffer loop
//
// JavaScript frames:  node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.mjs
// Native frames:      perf record -F 499 -g node --perf-basic-prof bench/profile.mjs --part=push
//                     perf report --no-children --sort dso,sym
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { smallMessages, bigMessage, bigTextMessage, BIG_SIZE } from './workloads.mjs';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const workload = String(args.workload ?? 'small');
const part = String(args.part ?? 'reader');
const rounds = Math.min(Number(args.rounds ?? 10), 1000);

const { _useNativeReadBuffer } = require('../lib/patch/transports.cjs');
const { NativeReadBuffer } = require('../lib/stdio/read-buffer.cjs');
const { StdioFramer } = require('../lib/native/addon.cjs');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const lines = { small: () => smallMessages(200_000), mixed: () => bigMessage(BIG_SIZE), text: () => bigTextMessage(BIG_SIZE) }[workload]?.();
if (!lines) throw new Error(`--workload must be small, mixed or text (got ${workload})`);
const stream = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
const chunks = [];
for (let i = 0; i < stream.length; i += 64 * 1024) chunks.push(stream.subarray(i, Math.min(i + 64 * 1024, stream.length)));

const PARTS = {
  reader() {
    const rb = new NativeReadBuffer({ sdk: 1 });
    let n = 0;
    for (const chunk of chunks) {
      rb.append(chunk);
      while (rb.readMessage() !== null) n++;
    }
    return n;
  },
  push() {
    // As NativeReadBuffer makes it (bodies left to its JSON.parse).
    const framer = new StdioFramer({ sdk: 1, checkBodies: false });
    let n = 0;
    for (const chunk of chunks) n += framer.push(chunk)?.[1] ?? 0;
    return n;
  },
  transport() {
    const t = new StdioClientTransport({ command: process.execPath });
    _useNativeReadBuffer(t, { sdk: 1 });
    let n = 0;
    t.onmessage = () => n++;
    for (const chunk of chunks) {
      t._readBuffer.append(chunk);
      t.processReadBuffer();
    }
    return n;
  },
};
const run = PARTS[part];
if (!run) throw new Error(`--part must be reader, push or transport (got ${part})`);
const times = [];
for (let r = 0; r < rounds; r++) {
  const t0 = performance.now();
  const n = run();
  times.push(performance.now() - t0);
  if (n !== lines.length) throw new Error(`${part}: ${n} messages, expected ${lines.length}`);
}
times.sort((a, b) => a - b);
console.log(`${part} × ${workload} (${(stream.length / 1e6).toFixed(1)} MB, ${lines.length} messages): best ${times[0].toFixed(1)} ms, median ${times[times.length >> 1].toFixed(1)} ms over ${rounds} rounds`);
