'use strict';
// Preloaded (`node --require`) by test/stdio-thread.test.mjs to run the
// existing fidelity suites (test/framing-fidelity.test.mjs,
// test/stdio-framing.test.mjs) against the off-thread reader: every
// patchStdioTransport() of lib/stdio.cjs gets `offThread` with tiny bounds
// and no inline framing, so every chunk hops to the worker and comes back in
// pieces of a few lines. At exit it reports how many thread buffers were
// made and how many pieces they received, so the caller can check that the
// off-thread path actually ran.
const stdio = require('../../lib/stdio.cjs');
const { ThreadReadBuffer } = require('../../lib/stdio-thread.cjs');

const OFF_THREAD = { maxBatchBytes: 2048, maxBatchMessages: 5, inlineMax: 0 };
const original = stdio.patchStdioTransport;
stdio.patchStdioTransport = function patchStdioTransport(Transport, options = {}) {
  return original(Transport, { offThread: OFF_THREAD, ...options });
};

const counts = { buffers: 0, pieces: 0 };
const use = ThreadReadBuffer.prototype._use;
ThreadReadBuffer.prototype._use = function (out) {
  counts.pieces++;
  return use.call(this, out);
};
const watch = ThreadReadBuffer.prototype._watchEnd;
ThreadReadBuffer.prototype._watchEnd = function () {
  if (this._counted === undefined) {
    this._counted = true;
    counts.buffers++;
  }
  return watch.call(this);
};
process.on('exit', () => process.stderr.write(`\noffthread-preload: ${JSON.stringify(counts)}\n`));
