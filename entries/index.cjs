'use strict';
// The addon loads on first use: requiring the package never throws for a missing binary.
const { lazyBinding } = require('../lib/native/lazy.cjs');
const { NativeAddonError } = require('../lib/native/load-error.cjs');
const { Dispatcher } = require('../lib/classify/dispatch.cjs');
const ProgressTokens = lazyBinding('ProgressTokens');
const classify = lazyBinding('classify');
const { patchProtocol, isPatched, dispatcherOf, UnsupportedSdkError } = require('../lib/patch/protocol.cjs');
const { configure, dispatchStats } = require('../lib/progress/tokens.cjs');
const { install } = require('../lib/patch/install.cjs');
const { patchStdioTransport, isStdioPatched } = require('../lib/patch/transports.cjs');
const { NativeReadBuffer, StdioFramingError } = require('../lib/stdio/read-buffer.cjs');

// Names only (no `key: value`), so that Node finds them for index.mjs's `export *`.
module.exports = {
  install,
  patchProtocol,
  isPatched,
  configure,
  dispatchStats,
  dispatcherOf,
  patchStdioTransport,
  isStdioPatched,
  NativeReadBuffer,
  StdioFramingError,
  Dispatcher,
  ProgressTokens,
  classify,
  UnsupportedSdkError,
  NativeAddonError,
};
