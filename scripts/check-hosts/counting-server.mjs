#!/usr/bin/env node
// The coalescing stdio server the hosts call (lib/testing/raw-server.cjs,
// --mode=all-in-one: each call's progress notifications in the result's
// write), counting what it writes: it appends to --log=FILE one line at
// start ({ event: 'server', pid, runVariables: which of run's variables it
// was given, patched: whether register loaded in it }) and one per progress
// notification and per result it writes. What a host delivered is what this
// sent less what it lost ("unknown token").
//
//   node counting-server.mjs --log=FILE [--progress=N]
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const raw = require('../../lib/testing/raw-server.cjs');
const log = process.argv.find((a) => a.startsWith('--log='))?.slice(6);
const progress = Number(process.argv.find((a) => a.startsWith('--progress='))?.slice(11) ?? 3);
const note = (line) => log && fs.appendFileSync(log, JSON.stringify({ ...line, pid: process.pid }) + '\n');
const RUN = ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN'];
const runVariables = RUN.filter((n) => /mcp-ordered-dispatch|register\.(mjs|cjs)|^\{/.test(process.env[n] ?? ''));
note({ event: 'server', runVariables, patched: Object.keys(require.cache).some((f) => /[\\/]lib[\\/]register[\\/]/.test(f)) });
const write = process.stdout.write.bind(process.stdout);
const stdout = Object.create(process.stdout);
stdout.write = (text, ...rest) => {
  for (const l of String(text).split('\n')) {
    if (l.includes('"notifications/progress"')) note({ event: 'progress' });
    else if (l.includes('"result"') && l.includes('"done"')) note({ event: 'result' });
  }
  return write(text, ...rest);
};
raw.startRawServer({ stdout, mode: 'all-in-one', progress }).then(() => process.exit(0));
