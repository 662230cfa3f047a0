'use strict';
// The one hand-over of every off-thread stdio reader in this thread (the
// addon's hub, crates/napi/src/stdio_hub.rs): whichever transports have
// pieces ready, the main thread is woken once, and one budget of main-thread
// time per turn of the event loop is shared among them, round-robin: each
// ready reader delivers ONE piece (at most maxBatchBytes / maxBatchMessages)
// in its turn, then goes to the back. When the budget is spent the rest
// waits for the next turn (setImmediate), so timers, I/O and every other
// server's response get the event loop between budgets, however many
// servers flood at once (bench/servers.mjs).
//
// A reader stays in the round while it has pieces (its onready() returns
// true); when its take() finds none, the addon lists it again with its next
// piece. The round holds the native readers only while they have pieces;
// the addon's list holds them weakly.

const { performance } = require('node:perf_hooks');

/**
 * Main-thread time a turn of the event loop gives the pieces of all
 * readers (ms): a turn is a piece or two, and a timer or a ping waits about
 * this long behind them (how it was chosen: docs/performance.md).
 */
const TURN_BUDGET_MS = 2;

/**
 * Bytes read and not yet delivered, of every off-thread transport together
 * (StdioThreadReader.backlogAll()), above which a stream that reads more is
 * paused, as each stream is above its own highWater; they are resumed once
 * the total is below a quarter of it. So memory is bounded overall, and in
 * one poll phase of the event loop only a few of a hundred flooding
 * streams deliver their chunks (bench/servers.mjs).
 */
const OVERALL_HIGH_WATER = 4 * 1024 * 1024;

// Readers with pieces, in turn order.
const round = [];
let running = false;
let Reader;

function run() {
  running = true;
  const start = performance.now();
  let more = true;
  try {
    let reader;
    while ((reader = Reader.nextReady()) !== undefined) round.push(reader);
    while (round.length > 0) {
      reader = round.shift();
      let again = true;
      try {
        // A reader made without a ThreadReadBuffer has no onready: nothing takes its pieces.
        again = typeof reader.onready === 'function' && reader.onready() === true;
      } finally {
        // Also when a handler threw (reported as uncaught, as from a
        // 'data' listener): the reader keeps its turn.
        if (again) round.push(reader);
      }
      if (performance.now() - start >= TURN_BUDGET_MS) break;
    }
    more = round.length > 0;
  } finally {
    if (more) setImmediate(run);
    else running = false;
  }
}

// Read buffers whose stream is paused on the overall bound, and the timer
// that resumes them (unref'd: the streams' own handles keep the process up).
const held = new Set();
let release;

function releaseHeld() {
  release = undefined;
  if (Reader.backlogAll() > OVERALL_HIGH_WATER >> 2) {
    release = setTimeout(releaseHeld, 1).unref();
    return;
  }
  for (const buffer of held) buffer.resumeHeld();
  held.clear();
}

/**
 * Pauses the stream of `buffer` (a ThreadReadBuffer that just read a chunk)
 * when the overall backlog is over its bound; whether it did.
 */
function holdIfOver(buffer, stream) {
  if (Reader.backlogAll() <= OVERALL_HIGH_WATER) return false;
  stream.pause();
  held.add(buffer);
  release ??= setTimeout(releaseHeld, 1).unref();
  return true;
}

function pump() {
  if (!running) run();
}

/** Registers this thread's pump with the addon's StdioThreadReader (once). */
function useHub(StdioThreadReader) {
  if (Reader === undefined) {
    StdioThreadReader.hub(pump);
    Reader = StdioThreadReader;
  }
}

module.exports = { useHub, holdIfOver };
