'use strict';
const { Dispatcher, classify } = require('./lib/native.cjs');
const { patchProtocol, isPatched, dispatcherOf, UnsupportedSdkError } = require('./lib/patch.cjs');
const { install } = require('./lib/install.cjs');

module.exports = { install, patchProtocol, isPatched, dispatcherOf, Dispatcher, classify, UnsupportedSdkError };
