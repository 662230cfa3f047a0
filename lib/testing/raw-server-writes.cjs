'use strict';
// How the raw server (lib/testing/raw-server.cjs) writes its `progress`
// tool's messages: N `notifications/progress` for the request's
// progressToken, then the result, grouped into `write` calls by `--mode=`,
// separate writes kept apart by `--gap=`.
//
// `--mode=` selects the grouping:
//
//   separate               every message in its own write, with a gap
//   last-with-response     notifications 1..N-1 separately (gaps), then the
//                          last notification AND the response in one write
//   all-in-one             every notification and the response in one write
//   terminal-after-result  notifications separately, the response in one
//                          write, then one more progress notification
//                          (N+1, "terminal") in a later write
//   never-issued           like `separate`, plus one progress notification
//                          with a token that was never issued
//                          ("fabricated-token"), before the response
//
// `--gap=` sets how two separate writes are kept apart:
//
//   ping (default)  send a server->client `ping` request and wait for its
//                   answer. The client answers only after it has read and
//                   dispatched everything written before, so the next write
//                   can never land in the same read. Deterministic.
//   immediate       a setImmediate gap. NOT enough: the client usually reads
//                   several such writes in one chunk, so even `separate`
//                   loses progress with the stock SDK.
//   <ms>            a setTimeout gap of that many milliseconds.

const { PROGRESS_METHOD } = require('../adapters/common.cjs');

const MODES = Object.freeze([
  'separate',
  'last-with-response',
  'all-in-one',
  'terminal-after-result',
  'never-issued',
]);

const FABRICATED_TOKEN = 'fabricated-token';
const GAP_DEFAULT = 'ping';
const PING_TIMEOUT_MS = 2000;

const immediate = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const line = (message) => JSON.stringify(message) + '\n';

function progressNotification(progressToken, progress, total, message) {
  return {
    jsonrpc: '2.0',
    method: PROGRESS_METHOD,
    params: { progressToken, progress, total, message },
  };
}

/**
 * The pause between two separate writes (`--gap=`): `gap()` resolves when the
 * next write may go; `answered(message)` takes the client's answer to one of
 * the pings (true when it was one); `endInput()` says no answer can come any
 * more, so paced writers continue.
 */
function pacer(gapOption, write, stderr) {
  const awaitingPing = new Map();
  let pingSeq = 0;
  let inputEnded = false;

  // Server -> client ping; resolves once the client has answered, i.e. once
  // it has read (and dispatched) everything written before the ping. A
  // client that never answers only slows us down (warning on stderr).
  function pingClient() {
    const id = `raw-server-ping-${++pingSeq}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (!awaitingPing.delete(id)) return;
        stderr.write(`raw-server: no answer to ping ${id} after ${PING_TIMEOUT_MS} ms; continuing\n`);
        resolve();
      }, PING_TIMEOUT_MS);
      awaitingPing.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      write(line({ jsonrpc: '2.0', id, method: 'ping' }));
    });
  }

  return {
    gap() {
      if (gapOption === 'immediate') return immediate();
      if (gapOption === 'ping') return inputEnded ? immediate() : pingClient();
      return sleep(gapOption);
    },
    answered(message) {
      if (message.method !== undefined || !awaitingPing.has(message.id)) return false;
      const resolve = awaitingPing.get(message.id);
      awaitingPing.delete(message.id);
      resolve();
      return true;
    },
    endInput() {
      inputEnded = true;
      for (const resolve of awaitingPing.values()) resolve();
      awaitingPing.clear();
    },
  };
}

/**
 * Answer one `progress` tools/call: its notifications and its result,
 * through `write`, grouped as `mode` says, `gap()` between separate writes.
 */
async function callProgressTool(request, { mode, defaultCount, write, gap }) {
  const { id, params = {} } = request;
  const token = params._meta?.progressToken;
  const argCount = params.arguments?.count;
  const count = Number.isInteger(argCount) && argCount >= 0 ? argCount : defaultCount;
  const response = line({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: 'done' }] },
  });
  // No progressToken: no progress, just the result.
  if (token === undefined || token === null) {
    write(response);
    return;
  }
  const notes = [];
  for (let i = 1; i <= count; i++) {
    notes.push(line(progressNotification(token, i, count, `step ${i}`)));
  }

  switch (mode) {
    case 'separate':
    case 'never-issued':
      for (const note of notes) {
        write(note);
        await gap();
      }
      if (mode === 'never-issued') {
        write(line(progressNotification(FABRICATED_TOKEN, 1, 1, 'never issued')));
        await gap();
      }
      write(response);
      break;
    case 'last-with-response': {
      const last = notes.pop();
      for (const note of notes) {
        write(note);
        await gap();
      }
      write((last ?? '') + response);
      break;
    }
    case 'all-in-one':
      write(notes.join('') + response);
      break;
    case 'terminal-after-result':
      for (const note of notes) {
        write(note);
        await gap();
      }
      write(response);
      await gap();
      write(line(progressNotification(token, count + 1, count, 'terminal')));
      break;
  }
}

module.exports = { MODES, FABRICATED_TOKEN, GAP_DEFAULT, line, pacer, callProgressTool };
