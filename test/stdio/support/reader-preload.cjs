'use strict';
// Preloaded (`node --require`) by test/stdio/stdio-thread.test.mjs to run the
// transport-level fidelity suites (test/stdio/framing-fidelity.test.mjs,
// test/stdio/stdio-framing.test.mjs) again with the reader their default run does
// not use. READER_PRELOAD (the environment) says which:
// * pieces: the off-thread reader with tiny bounds and no inline framing, so
//   every chunk hops to the worker and comes back in pieces of a few lines;
// * main-thread: `offThread: false`, the main-thread reader.
// Every patchStdioTransport() of lib/patch/transports.cjs gets that option (unless the
// suite passes its own). At exit it reports how many transports took a
// buffer of that reader and how many chunks or pieces those took, so the
// caller can check that the path actually ran.
const stdio = require('../../../lib/patch/transports.cjs');
const { ThreadReadBuffer } = require('../../../lib/stdio/thread-read-buffer.cjs');

const MODES = {
  pieces: { offThread: { maxBatchBytes: 2048, maxBatchMessages: 5, inlineMax: 0 }, Buffer: ThreadReadBuffer, counted: '_deliver' },
  'main-thread': { offThread: false, Buffer: require('../../../lib/stdio/read-buffer.cjs').NativeReadBuffer, counted: 'append' },
};
const mode = MODES[process.env.READER_PRELOAD];
if (mode === undefined) throw new Error(`reader-preload: READER_PRELOAD must be one of ${Object.keys(MODES).join(', ')}`);

const original = stdio.patchStdioTransport;
stdio.patchStdioTransport = function patchStdioTransport(Transport, options = {}) {
  return original(Transport, { offThread: mode.offThread, ...options });
};

// Buffers of exactly that class that a patched transport took
// (lib/adapters/stdio.cjs setReadBuffer, which lib/patch/transports.cjs calls through
// the module object), and how many counted calls they had.
const adapter = require('../../../lib/adapters/stdio.cjs');
const counts = { buffers: 0, calls: 0 };
const taken = new WeakSet();
const setReadBuffer = adapter.setReadBuffer;
adapter.setReadBuffer = function (transport, buffer) {
  if (buffer?.constructor === mode.Buffer && !taken.has(buffer)) {
    taken.add(buffer);
    counts.buffers++;
  }
  return setReadBuffer.apply(this, arguments);
};
const counted = mode.Buffer.prototype[mode.counted];
mode.Buffer.prototype[mode.counted] = function (...args) {
  if (taken.has(this)) counts.calls++;
  return counted.apply(this, args);
};
process.on('exit', () => process.stderr.write(`\nreader-preload: ${JSON.stringify(counts)}\n`));
