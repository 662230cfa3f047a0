#!/usr/bin/env node
// An SDK server over stdio for bench/roundtrip.mjs: the real Server class of
// the generation asked for (--sdk=1 or 2), with its StdioServerTransport,
// patched (install()) when --variant=patched, with the off-thread reader
// (install({ offThread: true })) when --variant=thread. It answers ping (the SDK's own
// handler) and exits when stdin closes.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const generation = Number(args.sdk ?? 1);
if (args.variant === 'patched') require('../index.cjs').install({ paths: [ROOT] }); // this checkout's SDK copies, whatever the working directory
if (args.variant === 'thread' || args.variant === 'tokio') require('../index.cjs').install({ paths: [ROOT], offThread: args.inline !== undefined ? { inlineMax: Number(args.inline) } : true });
const { Server } = await import(generation === 1 ? '@modelcontextprotocol/sdk/server/index.js' : '@modelcontextprotocol/server');
const { StdioServerTransport } = await import(generation === 1 ? '@modelcontextprotocol/sdk/server/stdio.js' : '@modelcontextprotocol/server/stdio');
const server = new Server({ name: 'bench-roundtrip', version: '1.0.0' }, { capabilities: {} });
const transport = new StdioServerTransport();
await server.connect(transport);
const expectedBuffer = { patched: 'NativeReadBuffer', thread: 'ThreadReadBuffer', tokio: 'ThreadReadBuffer' }[args.variant];
if (expectedBuffer && transport._readBuffer?.constructor?.name !== expectedBuffer) {
  // The comparison would mean nothing: say so rather than measure stock twice.
  process.stderr.write('bench/sdk-server.mjs: install() did not patch the server transport\n');
  process.exit(2);
}
process.stdin.on('end', () => process.exit(0));
