'use strict';
const { Dispatcher, ProgressTokens, classify } = require('./lib/native.cjs');
const { patchProtocol, isPatched, dispatcherOf, UnsupportedSdkError } = require('./lib/patch.cjs');
const { configure, dispatchStats } = require('./lib/progress.cjs');
const { install } = require('./lib/install.cjs');

module.exports = {
  install,
  patchProtocol,
  isPatched,
  configure,
  dispatchStats,
  dispatcherOf,
  Dispatcher,
  ProgressTokens,
  classify,
  UnsupportedSdkError,
};
