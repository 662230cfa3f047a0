#!/usr/bin/env node
// A raw MCP server (no SDK) for bench/eventloop.mjs: it answers initialize
// and ping, and for tools/call writes as fast as the pipe takes them
//   name 'logs', arguments { count }: `count` log notifications
//                                     (workloads.mjs logNotifications), then the result;
//   name 'prepare', arguments { count }: builds what 'logs' of that count writes, and answers;
//   name 'big':                       one 9 MiB text result (workloads.mjs bigTextMessage).
// The bytes are built before the reply starts and written in 64 KiB pieces
// (stdout to a pipe is synchronous on Linux and macOS: the writes go as fast
// as the client reads). No SDK here, so the server's own speed is not what
// is measured. It exits when stdin closes.
import { bigTextMessage, logNotifications, BIG_SIZE } from './workloads.mjs';

const PIECE = 64 * 1024;
let bigLine;

const built = new Map();

function write(text) {
  writeBytes(Buffer.from(text, 'utf8'));
}

function writeBytes(bytes) {
  for (let i = 0; i < bytes.length; i += PIECE) process.stdout.write(bytes.subarray(i, Math.min(i + PIECE, bytes.length)));
}

function respond(id, result) {
  return `${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`;
}

function handle(message) {
  if (message.id === undefined) return; // notifications/initialized
  switch (message.method) {
    case 'initialize':
      return write(respond(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'flood', version: '1.0.0' } }));
    case 'ping':
      return write(respond(message.id, {}));
    case 'tools/call': {
      const { name, arguments: args = {} } = message.params;
      if (name === 'logs' || name === 'prepare') {
        const count = Math.min(Number(args.count) || 0, 1_000_000);
        // Built once per count and kept ('prepare' only builds): a call
        // after 'prepare' only writes, so that a hundred servers building
        // their output do not take the CPUs from the client being measured
        // (bench/servers.mjs).
        let lines = built.get(count);
        if (lines === undefined) built.set(count, (lines = Buffer.from(`${logNotifications(count).join('\n')}\n`, 'utf8')));
        if (name === 'logs') writeBytes(lines);
        return write(respond(message.id, { content: [{ type: 'text', text: `${count} lines` }] }));
      }
      if (name === 'big') {
        // The workload's own message, under this request's id.
        bigLine ??= bigTextMessage(BIG_SIZE)[0];
        return write(`${bigLine.replace(/^\{"jsonrpc":"2.0","id":1,/, `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},`)}\n`);
      }
      return write(respond(message.id, { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true }));
    }
    default:
      return write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })}\n`);
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) !== -1) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim() !== '') handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
