'use strict';
const { Dispatcher, ProgressTokens, classify } = require('./lib/native.cjs');
const { patchProtocol, isPatched, dispatcherOf, UnsupportedSdkError } = require('./lib/patch.cjs');
const { configure, dispatchStats } = require('./lib/progress.cjs');
const { install } = require('./lib/install.cjs');
const { patchStdioTransport, isStdioPatched, NativeReadBuffer, StdioFramingError } = require('./lib/stdio.cjs');

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
};
