'use strict';
// mcp-ordered-dispatch/testing: helpers for tests that prove MCP messages are
// handled in wire order (the raw coalescing server, and the wire tap), and
// record/replay of real sessions under every coalescing mode (docs/record-replay.md).

const path = require('node:path');
const raw = require('./raw-server.cjs');
const { tapWire } = require('./wire-tap.cjs');
const { readCassette, redactCassette, CassetteError } = require('./cassette.cjs');
const { recordTransport } = require('./cassette-recorder.cjs');
const { replayServerCommand, replayTransport, REPLAY_SERVER_PATH, NO_RECORDED_MATCH } = require('./cassette-player.cjs');
const { COALESCING_MODES } = require('./coalesce.cjs');
const { forEachCoalescing } = require('./for-each-coalescing.cjs');

const RAW_SERVER_PATH = path.join(__dirname, 'raw-server.cjs');
/** The start of the message the SDK gives onerror when a progress notification finds no handler. */
const UNKNOWN_PROGRESS_TOKEN = 'Received a progress notification for an unknown token';

/**
 * The command line that starts the raw server: pass it to StdioClientTransport
 * (`new StdioClientTransport(rawServerCommand({ mode: 'all-in-one' }))`).
 */
function rawServerCommand(options = {}) {
  const { mode = 'separate', progress, gap } = options;
  if (!raw.MODES.includes(mode)) {
    throw new TypeError(`rawServerCommand: unknown mode ${JSON.stringify(mode)}; expected one of ${raw.MODES.join(', ')}`);
  }
  if (progress !== undefined && !(Number.isInteger(progress) && progress >= 0)) {
    throw new TypeError(`rawServerCommand: progress must be a non-negative integer, got ${progress}`);
  }
  if (gap !== undefined && !(gap === 'ping' || gap === 'immediate' || (Number.isInteger(gap) && gap >= 0))) {
    throw new TypeError(`rawServerCommand: gap must be 'ping', 'immediate' or a number of milliseconds, got ${gap}`);
  }
  const args = [RAW_SERVER_PATH, `--mode=${mode}`];
  if (progress !== undefined) args.push(`--progress=${progress}`);
  if (gap !== undefined) args.push(`--gap=${gap}`);
  return { command: process.execPath, args };
}

const { startRawServer, MODES: RAW_SERVER_MODES, FABRICATED_TOKEN } = raw;

// Names only (no `key: value`), so that Node finds them for testing.mjs's `export *`.
module.exports = {
  rawServerCommand,
  startRawServer,
  RAW_SERVER_PATH,
  RAW_SERVER_MODES,
  FABRICATED_TOKEN,
  UNKNOWN_PROGRESS_TOKEN,
  tapWire,
  readCassette,
  redactCassette,
  CassetteError,
  recordTransport,
  replayServerCommand,
  replayTransport,
  REPLAY_SERVER_PATH,
  NO_RECORDED_MATCH,
  COALESCING_MODES,
  forEachCoalescing,
};
