// The session test/testing/record-replay.test.mjs records against
// @modelcontextprotocol/server-everything and replays: a few tool calls, two
// of them with progress. As a script it runs forEachCoalescing over a
// cassette and prints a JSON summary (the test runs it with and without
// `--import mcp-ordered-dispatch/register`):
//
//   node [--import mcp-ordered-dispatch/register] session.mjs CASSETTE [MODE,MODE,…]
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { forEachCoalescing, UNKNOWN_PROGRESS_TOKEN } from 'mcp-ordered-dispatch/testing';

const require = createRequire(import.meta.url);
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
export const EVERYTHING_DIR = path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
export const EVERYTHING_VERSION = require('@modelcontextprotocol/server-everything/package.json').version;
export const EVERYTHING = { command: process.execPath, args: [path.join(EVERYTHING_DIR, 'dist', 'index.js'), 'stdio'] };
/** The everything server's tool that sends progress (as of 2026.8.31). */
export const LONG_RUNNING = 'trigger-long-running-operation';
export const STEPS = 5;
export const LONG_CALLS = 2;
export const ECHO = 'héllo ✓ 𝄞 secret-4242';

/** The session: what it returns is the result forEachCoalescing compares. */
export async function session(client, { extraPing = false } = {}) {
  if (extraPing) await client.ping();
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const echo = await client.callTool({ name: 'echo', arguments: { message: ECHO } });
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  const long = [];
  for (let i = 0; i < LONG_CALLS; i++) {
    const progress = [];
    const result = await client.callTool(
      { name: LONG_RUNNING, arguments: { duration: 0.05 * STEPS, steps: STEPS } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 60_000 },
    );
    long.push({ result, progress });
  }
  return { tools, echo, sum, long };
}

/**
 * Connect a stock (or, under register, patched) SDK Client to `transport`,
 * run the session, close. `lost` counts the SDK's unknown-token errors.
 */
export async function runSession(transport, options = {}) {
  const client = new Client({ name: 'record-replay-test', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(String(error?.message ?? error));
  options.onClient?.(client);
  try {
    await client.connect(transport);
    const result = await session(client, options);
    result.lost = errors.filter((e) => e.startsWith(UNKNOWN_PROGRESS_TOKEN)).length;
    if (options.keepClient) return { result, client, errors };
    return result;
  } finally {
    if (!options.keepClient) await client.close();
  }
}

/** A StdioClientTransport whose stderr is kept (not mixed into the test's output). */
export function stdio(params) {
  const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (c) => (stderr += c));
  Object.defineProperty(transport, 'stderrText', { get: () => stderr });
  return transport;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [cassette, modes] = process.argv.slice(2);
  try {
    const results = await forEachCoalescing(cassette, (params) => runSession(stdio(params)), modes ? { modes: modes.split(',') } : {});
    process.stdout.write(JSON.stringify({ ok: true, modes: Object.keys(results), results }) + '\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, mode: error.mode, modes: error.modes, message: error.message }) + '\n');
  }
}
