'use strict';
// Replay a cassette as an MCP server, on stdio (replayServerCommand, and this
// file as a command) or in process (replayTransport): the session that cuts
// the cassette into answers and matches the live client's messages to them is
// lib/testing/replay-session.cjs; this file carries its bytes, through a
// child's stdin and stdout or an SDK Transport's send() and onmessage.
//
//   node lib/testing/cassette-player.cjs CASSETTE [--coalesce=MODE] [--gap=ping|immediate|MS] [--timing[=SCALE]]

const path = require('node:path');
const { loadCassette, pathOf } = require('./cassette.cjs');
const { parseMode } = require('./coalesce.cjs');
const { lineSplitter, jsonLines } = require('./lines.cjs');
const { NO_RECORDED_MATCH, ReplaySession } = require('./replay-session.cjs');

const REPLAY_SERVER_PATH = __filename;

function checkOptions(options, who) {
  const { coalesce = 'separate', gap, timing } = options;
  parseMode(coalesce);
  if (gap !== undefined && !(gap === 'ping' || gap === 'immediate' || (Number.isInteger(gap) && gap >= 0))) {
    throw new TypeError(`${who}: gap must be 'ping', 'immediate' or a number of milliseconds, got ${JSON.stringify(gap)}`);
  }
  if (timing !== undefined && !(typeof timing === 'boolean' || (typeof timing === 'number' && timing >= 0))) {
    throw new TypeError(`${who}: timing must be a boolean or a non-negative scale, got ${JSON.stringify(timing)}`);
  }
  return { coalesce, gap, timing };
}

/**
 * The `{ command, args }` that starts a stdio server replaying `cassette`
 * (a path or file: URL) for StdioClientTransport. Over stdio the gap
 * between separate writes is a ping by default, as only the client's answer
 * proves it has read what came before.
 */
function replayServerCommand(cassette, options = {}) {
  const { coalesce, gap, timing } = checkOptions(options, 'replayServerCommand');
  const args = [REPLAY_SERVER_PATH, path.resolve(pathOf(cassette)), `--coalesce=${coalesce}`];
  if (gap !== undefined) args.push(`--gap=${gap}`);
  if (timing) args.push(timing === true ? '--timing' : `--timing=${timing}`);
  return { command: process.execPath, args };
}

/**
 * An in-process SDK Transport replaying `cassette` (a path, file: URL, or
 * what readCassette returned). Each write is delivered as one read would
 * be: its complete messages one after another in one macrotask, a
 * macrotask (or, with `timing`, the recorded pause) between writes.
 */
function replayTransport(cassette, options = {}) {
  const checked = checkOptions(options, 'replayTransport');
  const loaded = loadCassette(cassette);
  let session;
  const linesOf = lineSplitter();
  let closed = false;
  const transport = {
    onmessage: undefined,
    onclose: undefined,
    onerror: undefined,
    async start() {
      if (session) throw new Error('replayTransport: already started');
      session = new ReplaySession(loaded, { ...checked, gap: typeof checked.gap === 'number' ? checked.gap : 'immediate' }, {
        write(bytes) {
          for (const text of linesOf(bytes)) {
            if (closed) break;
            let message;
            try {
              message = JSON.parse(text);
            } catch (error) {
              transport.onerror?.(new Error(`replayTransport: a recorded line is not JSON (${error.message}): ${text.slice(0, 200)}`));
              continue;
            }
            transport.onmessage?.(message);
          }
        },
        turn: () => new Promise((resolve) => setImmediate(resolve)),
        error: (error) => transport.onerror?.(error),
        warn: (text) => transport.onerror?.(new Error(`replayTransport: ${text}`)),
      });
    },
    async send(message) {
      if (closed) throw new Error('replayTransport: closed');
      if (!session) throw new Error('replayTransport: not started');
      // A copy, as a real transport would serialize it.
      session.receive(JSON.parse(JSON.stringify(message)));
    },
    async close() {
      if (closed) return;
      closed = true;
      await session?.close();
      transport.onclose?.();
    },
  };
  return transport;
}

function parseArgs(argv) {
  const options = {};
  let cassette;
  for (const arg of argv) {
    const match = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (!match) {
      if (cassette !== undefined) throw new Error(`unexpected argument: ${arg}`);
      cassette = arg;
      continue;
    }
    const [, key, value] = match;
    if (key === 'coalesce') options.coalesce = value;
    else if (key === 'cassette') cassette = value;
    else if (key === 'gap') options.gap = /^\d+$/.test(value ?? '') ? Number(value) : value;
    else if (key === 'timing') options.timing = value === undefined ? true : Number(value);
    else throw new Error(`unknown option --${key}`);
  }
  if (cassette === undefined) throw new Error('replay needs a cassette: replay CASSETTE [--coalesce=MODE] [--gap=ping|immediate|MS] [--timing[=SCALE]]');
  return { cassette, options };
}

/** Serve the replay on this process's stdin and stdout. Resolves when stdin has ended and everything queued is sent. */
function serveStdio(cassette, options = {}) {
  const checked = checkOptions(options, 'replay');
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const session = new ReplaySession(cassette, { ...checked, gap: checked.gap ?? 'ping' }, {
    write: (bytes) =>
      new Promise((resolve) => {
        if (!stdout.write(bytes)) stdout.once('drain', resolve);
        else resolve();
      }),
    turn: () => new Promise((resolve) => setImmediate(resolve)),
    error: (error) => stderr.write(`mcp-ordered-dispatch replay: ${error?.stack ?? error}\n`),
    warn: (text) => stderr.write(`mcp-ordered-dispatch replay: ${text}\n`),
  });
  const onData = jsonLines(
    (message) => session.receive(message),
    (text) => stderr.write(`mcp-ordered-dispatch replay: ignored a line from the client that is not JSON: ${text.slice(0, 200)}\n`),
  );
  return new Promise((resolve) => {
    let ended = false;
    const end = async () => {
      if (ended) return;
      ended = true;
      stdin.off('data', onData);
      session.endInput();
      await session.drain();
      await session.close();
      resolve();
    };
    stdin.on('data', onData);
    stdin.once('end', end);
    stdin.once('close', end);
    stdin.resume?.();
  });
}

function main(argv = process.argv.slice(2)) {
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return Promise.resolve()
    .then(() => {
      const { cassette, options } = parseArgs(argv);
      return serveStdio(cassette, options);
    })
    .catch((error) => {
      process.stderr.write(`mcp-ordered-dispatch replay: ${error?.message ?? error}\n`);
      process.exitCode = 2;
    });
}

module.exports = {
  REPLAY_SERVER_PATH,
  NO_RECORDED_MATCH,
  replayServerCommand,
  replayTransport,
  main,
};

if (require.main === module) main();
