'use strict';
// Shared reproduction of the MCP SDK progress-notification race.
//
// For each "pair" a fresh Client + StdioClientTransport is spawned against
// test/fixtures/raw-server.mjs (a raw, SDK-free server whose write grouping
// is chosen by `mode`), `concurrency` concurrent `callTool('progress')` calls
// are made with an `onprogress` callback, and every progress value and every
// `client.onerror` message is recorded.
//
// CommonJS so both the ESM and the CJS runners can load it. It never loads
// the SDK itself: the caller passes the Client / StdioClientTransport classes
// (from whichever build it wants to exercise). The server runs on this
// process's own runtime, or on RAW_SERVER_NODE where that is not a Node
// (a Bun-compiled executable, a Node single executable application).

const path = require('node:path');

// undefined where this file is bundled (an ES module output has no __dirname, and
// Bun writes the build machine's for it): bundled apps name their server.
const SERVER_PATH = typeof module.filename === 'string' ? path.join(path.dirname(module.filename), '..', 'fixtures', 'raw-server.mjs') : undefined;
const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token';

/** True if `values` is exactly 1, 2, ..., values.length. */
function isInOrder(values) {
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== i + 1) return false;
  }
  return true;
}

function resultText(result) {
  const first = result && Array.isArray(result.content) ? result.content[0] : undefined;
  return first && first.type === 'text' ? first.text : undefined;
}

/**
 * @param {{ Client: Function, StdioClientTransport: Function, generation: 1 | 2 }} sdk
 * @param {{ pairs?: number, concurrency?: number, mode?: string, progress?: number,
 *           timeout?: number, settleMs?: number, serverPath?: string }} [options]
 */
async function runRepro(sdk, options = {}) {
  const { Client, StdioClientTransport, generation } = sdk;
  const {
    pairs = 20,
    concurrency = 1,
    mode = 'last-with-response',
    progress = 3,
    // Per-request timeout. The response always arrives, so this only guards
    // against a wedged run; it must not fire in normal runs.
    timeout = 30_000,
    // Grace period after the calls settle, before close, so that messages the
    // server writes after the response (mode `terminal-after-result`) reach
    // the client and show up in onerrors.
    settleMs = mode === 'terminal-after-result' ? 50 : 0,
    // How the raw server paces its separate writes (--gap=): 'immediate',
    // 'ping', or milliseconds. Undefined leaves the server's default.
    gap,
    serverPath = SERVER_PATH,
    // Called with (client, transport) after each pair's calls, before close; the last value it returns is `inspected`.
    inspect,
  } = options;
  if (generation !== 1 && generation !== 2) {
    throw new TypeError(`generation must be 1 or 2, got ${generation}`);
  }

  const started = process.hrtime.bigint();
  const onerrorMessages = [];
  let calls = 0;
  let progressReceived = 0;
  let lost = 0;
  let callsOutOfOrder = 0;
  let callsFailed = 0;
  const failures = [];
  let inspected;

  for (let pair = 0; pair < pairs; pair++) {
    const client = new Client(
      { name: 'mcp-ordered-dispatch-repro', version: '0.0.0' },
      { capabilities: {} },
    );
    client.onerror = (error) => {
      onerrorMessages.push(error && error.message !== undefined ? error.message : String(error));
    };
    const transport = new StdioClientTransport({
      command: process.env.RAW_SERVER_NODE || process.execPath,
      args: [
        serverPath,
        `--mode=${mode}`,
        `--progress=${progress}`,
        ...(gap === undefined ? [] : [`--gap=${gap}`]),
      ],
      stderr: 'inherit',
    });

    try {
      await client.connect(transport);

      const received = [];
      const tasks = [];
      for (let c = 0; c < concurrency; c++) {
        const values = [];
        received.push(values);
        const params = { name: 'progress', arguments: { count: progress } };
        const requestOptions = {
          timeout,
          onprogress: (p) => {
            values.push(p.progress);
          },
        };
        calls++;
        tasks.push(
          generation === 1
            ? client.callTool(params, undefined, requestOptions)
            : client.callTool(params, requestOptions),
        );
      }
      const settled = await Promise.allSettled(tasks);

      if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));

      settled.forEach((outcome, i) => {
        const values = received[i];
        progressReceived += values.length;
        for (let step = 1; step <= progress; step++) {
          if (!values.includes(step)) lost++;
        }
        if (!isInOrder(values)) callsOutOfOrder++;
        if (outcome.status === 'rejected') {
          callsFailed++;
          if (failures.length < 5) failures.push(String(outcome.reason && outcome.reason.message || outcome.reason));
        } else if (resultText(outcome.value) !== 'done') {
          callsFailed++;
          if (failures.length < 5) failures.push(`unexpected result: ${JSON.stringify(outcome.value)}`);
        }
      });
      if (inspect) inspected = inspect(client, transport);
    } finally {
      await client.close().catch(() => {});
    }
  }

  return {
    pairs,
    calls,
    progressExpected: calls * progress,
    progressReceived,
    lost,
    callsOutOfOrder,
    callsFailed,
    onerrors: onerrorMessages.slice(0, 5),
    onerrorCount: onerrorMessages.length,
    unknownTokenErrors: onerrorMessages.filter((m) => m.startsWith(UNKNOWN_TOKEN)).length,
    failures,
    mode,
    progress,
    concurrency,
    gap: gap === undefined ? null : gap,
    generation,
    durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
    inspected,
  };
}

/**
 * Parse runner argv: --sdk=1|2 --patched=0|1 --apply=install|patchProtocol
 * --pairs=N --concurrency=N --mode=M --progress=N. Unknown or malformed
 * arguments throw. --apply says how a patched run applies the fix: install()
 * (every copy) or patchProtocol() of the generation's Protocol class alone.
 */
function parseReproArgs(argv) {
  const args = {
    sdk: 1,
    patched: false,
    apply: 'install',
    pairs: 20,
    concurrency: 1,
    mode: 'last-with-response',
    progress: 3,
    gap: undefined,
  };
  const integer = (key, value, min) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${key} must be an integer >= ${min}, got ${value}`);
    return n;
  };
  for (const arg of argv) {
    const match = /^--([^=]+)=(.*)$/.exec(arg);
    if (!match) throw new Error(`unexpected argument: ${arg}`);
    const [, key, value] = match;
    switch (key) {
      case 'sdk':
        if (value !== '1' && value !== '2') throw new Error(`--sdk must be 1 or 2, got ${value}`);
        args.sdk = Number(value);
        break;
      case 'patched':
        if (!['0', '1', 'true', 'false'].includes(value)) throw new Error(`--patched must be 0 or 1, got ${value}`);
        args.patched = value === '1' || value === 'true';
        break;
      case 'apply':
        if (value !== 'install' && value !== 'patchProtocol') throw new Error(`--apply must be install or patchProtocol, got ${value}`);
        args.apply = value;
        break;
      case 'pairs':
        args.pairs = integer(key, value, 1);
        break;
      case 'concurrency':
        args.concurrency = integer(key, value, 1);
        break;
      case 'progress':
        args.progress = integer(key, value, 0);
        break;
      case 'mode':
        args.mode = value;
        break;
      case 'gap':
        args.gap = /^\d+$/.test(value) ? Number(value) : value;
        break;
      default:
        throw new Error(`unknown argument: --${key}`);
    }
  }
  return args;
}

/** Where each generation's Protocol class is exported (what --apply=patchProtocol patches). */
const PROTOCOL_SPECIFIERS = { 1: '@modelcontextprotocol/sdk/shared/protocol.js', 2: '@modelcontextprotocol/client' };

module.exports = { runRepro, parseReproArgs, isInOrder, SERVER_PATH, UNKNOWN_TOKEN, PROTOCOL_SPECIFIERS };
