#!/usr/bin/env node
// An SDK server over stdio for bench/roundtrip.mjs: the real Server class of
// the generation asked for (--sdk=1 or 2), with its StdioServerTransport,
// patched as bench/workloads.mjs installVariant() does for --variant (stock:
// not at all). It answers ping (the SDK's own handler) and exits when stdin
// closes.
import { fileURLToPath } from 'node:url';
import { installVariant } from './workloads.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const generation = Number(args.sdk ?? 1);
const checkReadBuffer = await installVariant(args.variant ?? 'stock', ROOT, args.inline !== undefined ? { inlineMax: Number(args.inline) } : undefined);
const { Server } = await import(generation === 1 ? '@modelcontextprotocol/sdk/server/index.js' : '@modelcontextprotocol/server');
const { StdioServerTransport } = await import(generation === 1 ? '@modelcontextprotocol/sdk/server/stdio.js' : '@modelcontextprotocol/server/stdio');
const server = new Server({ name: 'bench-roundtrip', version: '1.0.0' }, { capabilities: {} });
const transport = new StdioServerTransport();
await server.connect(transport);
try {
  checkReadBuffer(transport);
} catch (error) {
  // The comparison would mean nothing: say so rather than measure stock twice.
  process.stderr.write(`bench/sdk-server.mjs: ${error.message}\n`);
  process.exit(2);
}
process.stdin.on('end', () => process.exit(0));
