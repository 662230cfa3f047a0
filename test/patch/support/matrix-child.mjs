#!/usr/bin/env node
// Child-process entry point of the version matrix (test/patch/matrix.test.mjs):
// loads one matrix entry (test/support/matrix.cjs) in one build, patches its
// Protocol classes with patchProtocol() when --patched=1, runs the Client
// reproduction over real stdio (raw server, test/support/repro.cjs) and the
// Server reproduction (test/support/server-repro.cjs), and prints ONE line of
// JSON: both results, and the MCP packages whose files were loaded.
//
//   node test/patch/support/matrix-child.mjs --entry=1.0.0 --build=esm --patched=1 \
//        [--pairs=N --concurrency=N --mode=M --progress=N]
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

// Record what the ES module loader loads (require() shows in require.cache).
const loadedUrls = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loadedUrls.add(url));
port1.unref();
register(new URL('./trace-loads-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });

const { entry, loadEntry, sdkPackagesOf } = require('../../support/matrix.cjs');
const { runRepro } = require('../../support/repro.cjs');
const { runServerRepro } = require('../../support/server-repro.cjs');

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const m = /^--([^=]+)=(.*)$/.exec(arg);
    if (!m) throw new Error(`unexpected argument ${arg}`);
    return [m[1], m[2]];
  }),
);
const e = entry(args.entry);
const build = args.build ?? 'esm';
const patched = args.patched === '1';
const options = {
  pairs: Number(args.pairs ?? 4),
  concurrency: Number(args.concurrency ?? 3),
  mode: args.mode ?? 'last-with-response',
  progress: Number(args.progress ?? 3),
};

const load = build === 'esm' ? (s) => import(s) : async (s) => require(s);
const sdk = await loadEntry(e, load);

let patchedClasses = 0;
if (patched) {
  const { patchProtocol, isPatched } = require('mcp-ordered-dispatch');
  for (const Protocol of sdk.Protocols) {
    patchProtocol(Protocol);
    if (isPatched(Protocol)) patchedClasses++;
  }
}

const client = await runRepro({ Client: sdk.Client, StdioClientTransport: sdk.StdioClientTransport, generation: e.generation }, options);
const server = await runServerRepro(sdk, options);

// Let the loader thread's last messages arrive.
await new Promise((resolve) => setTimeout(resolve, 20));
const files = [...Object.keys(require.cache), ...[...loadedUrls].map((u) => fileURLToPath(u))];
process.stdout.write(
  JSON.stringify({
    entry: e.id,
    build,
    patched,
    patchedClasses,
    protocolClasses: sdk.Protocols.length,
    packages: sdkPackagesOf(files),
    client,
    server,
  }) + '\n',
);
