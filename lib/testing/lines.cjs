'use strict';
// Newline-delimited JSON as it arrives from a stream: chunks in, complete
// lines out. raw-server.cjs and cassette-player.cjs also run as child processes of
// their own (`node <file>`), so this requires nothing.

const NEWLINE = 0x0a;

/**
 * A splitter for one stream: each call takes a chunk (bytes or text) and
 * returns the lines it completed, as UTF-8 text without their "\n" (or
 * "\r\n"); an incomplete last line waits for the next chunk. Bytes are
 * joined before they are decoded, so a character cut between chunks stays whole.
 */
function lineSplitter() {
  let pending = Buffer.alloc(0);
  return function linesOf(chunk) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    pending = pending.length === 0 ? bytes : Buffer.concat([pending, bytes]);
    const lines = [];
    let start = 0;
    let newline;
    while ((newline = pending.indexOf(NEWLINE, start)) !== -1) {
      const end = newline > start && pending[newline - 1] === 0x0d ? newline - 1 : newline;
      lines.push(pending.toString('utf8', start, end));
      start = newline + 1;
    }
    pending = pending.subarray(start);
    return lines;
  };
}

/**
 * A stream's 'data' handler for newline-delimited JSON: each line that
 * parses goes to `onMessage`, each other line but a blank one to `onBad`.
 */
function jsonLines(onMessage, onBad) {
  const linesOf = lineSplitter();
  return (chunk) => {
    for (const text of linesOf(chunk)) {
      if (text.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(text);
      } catch {
        onBad(text);
        continue;
      }
      onMessage(message);
    }
  };
}

module.exports = { lineSplitter, jsonLines };
