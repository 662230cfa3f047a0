#!/usr/bin/env node
// Child-process entry point: runs the progress-race reproduction against the
// ESM build of the MCP SDK and prints ONE line of JSON to stdout.
//
//   node test/support/repro-esm.mjs --sdk=1|2 --patched=0|1 [--apply=install|patchProtocol] --pairs=N \
//        --concurrency=N --mode=M --progress=N [--gap=immediate|ping|MS]

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { runRepro, parseReproArgs, PROTOCOL_SPECIFIERS } = require('./repro.cjs');

const args = parseReproArgs(process.argv.slice(2));

let Client;
let StdioClientTransport;
if (args.sdk === 1) {
  ({ Client } = await import('@modelcontextprotocol/sdk/client/index.js'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js'));
} else {
  ({ Client } = await import('@modelcontextprotocol/client'));
  ({ StdioClientTransport } = await import('@modelcontextprotocol/client/stdio'));
}

let installed;
if (args.patched) {
  const { install, patchProtocol } = await import('mcp-ordered-dispatch');
  if (args.apply === 'install') installed = install();
  else installed = { uninstall: patchProtocol((await import(PROTOCOL_SPECIFIERS[args.sdk])).Protocol) };
}

try {
  const result = await runRepro(
    { Client, StdioClientTransport, generation: args.sdk },
    {
      pairs: args.pairs,
      concurrency: args.concurrency,
      mode: args.mode,
      progress: args.progress,
      gap: args.gap,
    },
  );
  process.stdout.write(
    JSON.stringify({ sdk: args.sdk, build: 'esm', patched: args.patched, ...result }) + '\n',
  );
} finally {
  installed?.uninstall?.();
}
