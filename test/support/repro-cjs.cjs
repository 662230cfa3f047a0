#!/usr/bin/env node
'use strict';
// Child-process entry point: runs the progress-race reproduction against the
// CJS build of the MCP SDK and prints ONE line of JSON to stdout.
//
//   node test/support/repro-cjs.cjs --sdk=1|2 --patched=0|1 [--apply=install|patchProtocol] --pairs=N \
//        --concurrency=N --mode=M --progress=N [--gap=immediate|ping|MS]

const { runRepro, parseReproArgs, PROTOCOL_SPECIFIERS } = require('./repro.cjs');

async function main() {
  const args = parseReproArgs(process.argv.slice(2));

  let Client;
  let StdioClientTransport;
  if (args.sdk === 1) {
    ({ Client } = require('@modelcontextprotocol/sdk/client/index.js'));
    ({ StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js'));
  } else {
    ({ Client } = require('@modelcontextprotocol/client'));
    ({ StdioClientTransport } = require('@modelcontextprotocol/client/stdio'));
  }

  let installed;
  if (args.patched) {
    const { install, patchProtocol } = require('mcp-ordered-dispatch');
    if (args.apply === 'install') installed = install();
    else installed = { uninstall: patchProtocol(require(PROTOCOL_SPECIFIERS[args.sdk]).Protocol) };
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
      JSON.stringify({ sdk: args.sdk, build: 'cjs', patched: args.patched, ...result }) + '\n',
    );
  } finally {
    if (installed && typeof installed.uninstall === 'function') installed.uninstall();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error && error.stack) || error}\n`);
  process.exitCode = 1;
});
