'use strict';
// forEachCoalescing(cassette, fn, options): run a test once per coalescing
// mode against a replay of the cassette and insist that every mode gives the
// result `separate` gives. Only promises and throws, so it works under
// node:test, vitest and jest alike.

const assert = require('node:assert');
const { DEFAULT_MODES, parseMode } = require('./coalesce.cjs');
const { replayServerCommand, replayTransport } = require('./cassette-player.cjs');
const { pathOf } = require('./cassette.cjs');

const BASELINE = 'separate';

/** `{ command, args }` for StdioClientTransport, with a non-enumerable `transport()` for the same replay in process. */
function serverParamsFor(cassette, mode, options) {
  const replayOptions = { coalesce: mode };
  if (options.gap !== undefined) replayOptions.gap = options.gap;
  if (options.timing !== undefined) replayOptions.timing = options.timing;
  const params = replayServerCommand(cassette, replayOptions);
  Object.defineProperty(params, 'transport', {
    value: () => replayTransport(cassette, replayOptions),
    enumerable: false,
  });
  return params;
}

/**
 * Resolves with `{ [mode]: result }` when every mode's result deep-equals
 * (node:assert's deepStrictEqual) that of `separate`; otherwise rejects with
 * an Error whose message names the first mode that differs, the other modes
 * that differ, and the difference.
 */
async function forEachCoalescing(cassette, fn, options = {}) {
  if (typeof fn !== 'function') throw new TypeError('forEachCoalescing(cassette, fn, options): fn must be a function');
  const file = pathOf(cassette);
  const modes = [...(options.modes ?? DEFAULT_MODES)];
  for (const mode of modes) parseMode(mode);
  if (!modes.includes(BASELINE)) modes.unshift(BASELINE);
  // The reference runs first.
  modes.sort((a, b) => (a === BASELINE ? -1 : b === BASELINE ? 1 : 0));
  const compare = options.compare ?? ((actual, expected) => assert.deepStrictEqual(actual, expected));

  const results = {};
  const failures = [];
  for (const mode of modes) {
    let result;
    try {
      result = await fn(serverParamsFor(file, mode, options), mode);
    } catch (error) {
      if (mode === BASELINE) {
        const wrapped = new Error(`forEachCoalescing: the test failed in mode "${BASELINE}", the reference (cassette ${file}): ${error?.message ?? error}`, { cause: error });
        wrapped.mode = BASELINE;
        throw wrapped;
      }
      failures.push({ mode, error, threw: true });
      continue;
    }
    results[mode] = result;
    if (mode === BASELINE) continue;
    try {
      compare(result, results[BASELINE]);
    } catch (error) {
      failures.push({ mode, error, threw: false });
    }
  }
  if (failures.length === 0) return results;
  const [first, ...rest] = failures;
  const others = rest.length > 0 ? ` (modes that differ too: ${rest.map((f) => f.mode).join(', ')})` : '';
  const how = first.threw
    ? `it threw: ${first.error?.stack ?? first.error}`
    : first.error instanceof assert.AssertionError
      ? first.error.message
      : String(first.error?.message ?? first.error);
  const error = new Error(
    `forEachCoalescing: in coalescing mode "${first.mode}" the result differs from mode "${BASELINE}" (cassette ${file})${others}:\n${how}`,
    { cause: first.error },
  );
  error.mode = first.mode;
  error.modes = failures.map((f) => f.mode);
  error.results = results;
  throw error;
}

module.exports = { forEachCoalescing };
