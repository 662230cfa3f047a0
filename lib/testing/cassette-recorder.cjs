'use strict';
// Recording a session into a cassette (cassette.cjs):
//
//   npx mcp-ordered-dispatch record --out session.ndjson -- <server command> [args…]
//
// is a transparent stdio proxy: it starts the server, passes every byte
// through unchanged in both directions (stderr goes straight through, signals
// are forwarded) and exits with the server's exit code, writing each chunk it
// passed on to the cassette. recordTransport(transport, file) records an SDK
// Transport's messages in process, for transports that are not stdio.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { CassetteWriter, pathOf } = require('./cassette.cjs');

const FORWARDED_SIGNALS = process.platform === 'win32' ? ['SIGINT', 'SIGTERM', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

const RECORD_USAGE = 'record --out FILE [--] COMMAND [ARGS…]';

function parseRecordArgs(argv) {
  let out;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      i++;
      break;
    }
    const match = /^--out(?:=(.*))?$/.exec(arg);
    if (match) {
      out = match[1] ?? argv[++i];
      if (!out) throw new Error(`--out needs a file: ${RECORD_USAGE}`);
      continue;
    }
    if (arg.startsWith('--')) throw new Error(`unknown option ${arg}: ${RECORD_USAGE}`);
    break;
  }
  const [command, ...args] = argv.slice(i);
  if (out === undefined) throw new Error(`record needs --out FILE: ${RECORD_USAGE}`);
  if (command === undefined) throw new Error(`record needs the server command after --: ${RECORD_USAGE}`);
  return { out, command, args };
}

/**
 * What to spawn for the server `command args`: as given, but on Windows,
 * where Node starts no .cmd without a shell, an npm shim is read through to
 * what it starts (as `run` does: lib/discover/shims.cjs), with no shell in
 * between to read the arguments again (a `node -e` script's `=>` is a
 * redirection to cmd.exe). [command, args, options].
 */
function startOf(command, args) {
  if (process.platform !== 'win32') return [command, args];
  const found = require('../discover/shims.cjs').commandFound(command, process.env, process.cwd());
  // A .cmd or .bat that is no npm shim only runs through cmd.exe.
  if (found.file === undefined || /\.(cmd|bat)$/i.test(found.file)) return [command, args, { shell: true }];
  return [found.file, [...found.args, ...args]];
}

/**
 * Run the proxy on this process's stdio. Resolves with the server's exit
 * code; when the server died of a signal, this process kills itself with
 * the same signal first.
 */
function recordStdio({ out, command, args }) {
  const writer = new CassetteWriter(out, { level: 'bytes', command, args });
  const [file, fileArgs, options] = startOf(command, args);
  const child = spawn(file, fileArgs, { ...options, stdio: ['pipe', 'pipe', 'inherit'] });
  const forwarders = new Map();
  for (const signal of FORWARDED_SIGNALS) {
    const forward = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    forwarders.set(signal, forward);
    process.on(signal, forward);
  }

  // host -> server
  const onInput = (chunk) => {
    writer.chunk('client', chunk);
    if (!child.stdin.destroyed && !child.stdin.write(chunk)) {
      process.stdin.pause();
      child.stdin.once('drain', () => process.stdin.resume());
    }
  };
  process.stdin.on('data', onInput);
  process.stdin.once('end', () => child.stdin.end());
  child.stdin.on('error', () => {}); // the server went away: its exit says the rest

  // server -> host
  child.stdout.on('data', (chunk) => {
    writer.chunk('server', chunk);
    if (!process.stdout.write(chunk)) {
      child.stdout.pause();
      process.stdout.once('drain', () => child.stdout.resume());
    }
  });
  process.stdout.on('error', () => {}); // the host went away

  return new Promise((resolve) => {
    let spawnError;
    child.once('error', (error) => {
      spawnError = error;
      process.stderr.write(`mcp-ordered-dispatch record: cannot start ${JSON.stringify(command)}: ${error.message}\n`);
    });
    child.once('close', (code, signal) => {
      const exitCode = spawnError ? 127 : code;
      writer.exit(exitCode, signal);
      writer.close();
      process.stdin.off('data', onInput);
      process.stdin.pause();
      process.stdin.unref?.();
      for (const [name, forward] of forwarders) process.off(name, forward);
      const finish = () => {
        if (signal) {
          process.kill(process.pid, signal);
          // A signal that does not end this process (ignored here): 128 + its number.
          const number = os.constants.signals[signal] ?? 0;
          resolve(128 + number);
          return;
        }
        resolve(exitCode ?? 1);
      };
      if (process.stdout.writableLength > 0) process.stdout.once('drain', finish);
      else finish();
    });
  });
}

/** The CLI: `record --out FILE -- COMMAND ARGS…`; exits the process with the server's code. */
async function main(argv) {
  const options = parseRecordArgs(argv);
  const code = await recordStdio(options);
  process.exit(code);
}

/**
 * Record an SDK Transport's messages into `file`. Wraps `transport` in place
 * (its `send` and `onmessage`) and returns it. `side` says which end it is:
 * 'client' (default: what it sends is from the client) or 'server'.
 */
function recordTransport(transport, file, options = {}) {
  if (!transport || typeof transport.send !== 'function' || typeof transport.start !== 'function') {
    throw new TypeError('recordTransport(transport, file): expected an MCP SDK Transport (with start and send)');
  }
  const side = options.side ?? 'client';
  if (side !== 'client' && side !== 'server') throw new TypeError(`recordTransport: side must be 'client' or 'server', got ${JSON.stringify(side)}`);
  const other = side === 'client' ? 'server' : 'client';
  const writer = new CassetteWriter(pathOf(file), {
    level: 'messages',
    transport: transport.constructor?.name ?? 'Transport',
    side,
    ...(options.header ?? {}),
  });
  // One write per event and the file closed in between, so nothing is left
  // open when the transport is never closed.
  writer.close();
  const append = (from, message) => {
    fs.appendFileSync(writer.path, JSON.stringify({ t: Math.round(writer.now() * 1000) / 1000, from, message }) + '\n');
  };

  const send = transport.send;
  transport.send = function recordedSend(message, ...rest) {
    append(side, message);
    return send.call(this, message, ...rest);
  };
  let onmessage = transport.onmessage;
  const recorded = function recordedOnMessage(message, ...rest) {
    append(other, message);
    return onmessage?.call(this, message, ...rest);
  };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get() {
      return onmessage === undefined ? undefined : recorded;
    },
    set(value) {
      onmessage = value;
    },
  });
  return transport;
}

module.exports = { recordTransport, main };

// `node lib/testing/cassette-recorder.cjs --out FILE -- COMMAND…` works too.
if (require.main === module) main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`mcp-ordered-dispatch record: ${error?.message ?? error}\n`);
  process.exit(2);
});
