'use strict';
// A raw stdio MCP server written WITHOUT the SDK, used to reproduce the
// progress-notification race in the MCP TypeScript SDK. Part of
// `mcp-ordered-dispatch/testing` (see rawServerCommand / startRawServer there).
//
// Reads newline-delimited JSON-RPC from stdin, writes to stdout. The only
// interesting tool is `progress`, which sends N `notifications/progress`
// for the request's progressToken and then the result. How those messages
// are grouped into `write` calls is selected with `--mode=` (separate,
// last-with-response, all-in-one, terminal-after-result, never-issued), and
// how two separate writes are kept apart with `--gap=` (ping, the default,
// immediate, or a number of milliseconds): lib/testing/raw-server-writes.cjs
// says what each does.
//
// `--progress=N` is the default notification count (3); a tools/call
// argument `count` overrides it. A request without a progressToken gets no
// progress at all.
//
// Usage: node lib/testing/raw-server.cjs --mode=all-in-one --progress=5
//    or: npx mcp-ordered-dispatch raw-server --mode=all-in-one --progress=5

const { jsonLines } = require('./lines.cjs');
const { MODES, FABRICATED_TOKEN, GAP_DEFAULT, line, pacer, callProgressTool } = require('./raw-server-writes.cjs');

const SUPPORTED_PROTOCOL_VERSIONS = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
]);
const DEFAULT_PROTOCOL_VERSION = '2025-03-26';

const PROGRESS_TOOL = {
  name: 'progress',
  description: 'Sends `count` progress notifications, then returns "done".',
  inputSchema: {
    type: 'object',
    properties: { count: { type: 'integer' } },
  },
};

function parseArgs(argv) {
  const options = {};
  for (const arg of argv) {
    const match = /^--([^=]+)=(.*)$/.exec(arg);
    if (!match) continue;
    const [, key, value] = match;
    if (key === 'mode') options.mode = value;
    else if (key === 'progress') options.progress = Number(value);
    else if (key === 'gap') options.gap = /^\d+$/.test(value) ? Number(value) : value;
  }
  return options;
}

/**
 * Serve MCP over the given streams.
 * @param {{ stdin?: NodeJS.ReadableStream, stdout?: NodeJS.WritableStream,
 *           stderr?: NodeJS.WritableStream, mode?: string, progress?: number,
 *           gap?: 'ping' | 'immediate' | number }} [options]
 * @returns {Promise<void>} resolves when stdin ends and pending work is done
 */
function startRawServer(options = {}) {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const mode = options.mode ?? 'separate';
  const defaultCount = options.progress ?? 3;
  const gapOption = options.gap ?? GAP_DEFAULT;
  if (!MODES.includes(mode)) {
    throw new Error(`unknown --mode=${mode}; expected one of ${MODES.join(', ')}`);
  }
  if (!Number.isInteger(defaultCount) || defaultCount < 0) {
    throw new Error(`--progress must be a non-negative integer, got ${defaultCount}`);
  }

  if (!(gapOption === 'immediate' || gapOption === 'ping' || (Number.isInteger(gapOption) && gapOption >= 0))) {
    throw new Error(`--gap must be 'immediate', 'ping' or a number of milliseconds, got ${gapOption}`);
  }

  const pending = new Set();

  const write = (text) => {
    stdout.write(text);
  };
  const pace = pacer(gapOption, write, stderr);

  function respond(id, result) {
    write(line({ jsonrpc: '2.0', id, result }));
  }

  function respondError(id, code, message) {
    write(line({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  function handleRequest(request) {
    const { id, method, params = {} } = request;
    switch (method) {
      case 'initialize': {
        const requested = params.protocolVersion;
        const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
          ? requested
          : DEFAULT_PROTOCOL_VERSION;
        respond(id, {
          protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'raw-progress-server', version: '1.0.0' },
        });
        return;
      }
      case 'ping':
        respond(id, {});
        return;
      case 'tools/list':
        respond(id, { tools: [PROGRESS_TOOL] });
        return;
      case 'tools/call': {
        if (params.name !== 'progress') {
          respondError(id, -32602, `Unknown tool: ${params.name}`);
          return;
        }
        const task = callProgressTool(request, { mode, defaultCount, write, gap: pace.gap }).catch((error) => {
          respondError(id, -32603, String(error?.message ?? error));
        });
        pending.add(task);
        task.finally(() => pending.delete(task));
        return;
      }
      default:
        respondError(id, -32601, `Method not found: ${method}`);
    }
  }

  function handleMessage(message) {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      write(line({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }));
      return;
    }
    const isRequest = typeof message.method === 'string' && message.id !== undefined && message.id !== null;
    if (isRequest) {
      handleRequest(message);
      return;
    }
    // Responses to our own pings (gap=ping).
    if (pace.answered(message)) return;
    // Notifications (notifications/initialized, notifications/cancelled, ...)
    // and other responses are ignored.
  }

  const onData = jsonLines(handleMessage, () => write(line({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })));

  return new Promise((resolve) => {
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      stdin.off('data', onData);
      // Nobody can answer a ping any more; let paced writers continue.
      pace.endInput();
      await Promise.allSettled([...pending]);
      resolve();
    };
    stdin.on('data', onData);
    stdin.once('end', finish);
    stdin.once('close', finish);
    if (typeof stdin.resume === 'function') stdin.resume();
  });
}

/** Run as a command: parse `argv` (--mode= --progress= --gap=) and serve on stdin/stdout. */
function main(argv = process.argv.slice(2)) {
  const options = parseArgs(argv);
  // The client may close our stdout before we are done writing.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  // Exit naturally once stdin has ended and pending tool calls are done;
  // process.exit() could cut off a write still queued on stdout.
  return Promise.resolve()
    .then(() => startRawServer(options))
    .catch((error) => {
      process.stderr.write(`raw-server: ${error?.stack ?? error}\n`);
      process.exitCode = 1;
    });
}

module.exports = {
  MODES,
  FABRICATED_TOKEN,
  startRawServer,
  main,
};

if (require.main === module) main();
