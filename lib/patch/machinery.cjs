'use strict';
// What the class receiver (lib/patch/receiver.cjs) loads at the first patch
// of an SDK class, in one module: the Protocol and stdio patchers, what
// names a class's SDK copy, the addon's loader and run's environment rule.
// One module, so that register loads it, and through it every file it
// requires at once or later, from its V8 code cache
// (lib/register/code-cache.cjs); a bundler plugin's runtime requires it.

const { patchProtocol, isPatched, beforeConnect } = require('./protocol.cjs');
const { patchStdioExports, patchStdioTransport, isStdioPatched } = require('./transports.cjs');
const { warnUnsupported } = require('./records.cjs');
const { sourceOfFile } = require('../discover/package-of.cjs');
const { takeOutOnce } = require('./fix-env.cjs');
const addon = require('../native/addon.cjs');

module.exports = {
  patchProtocol,
  isPatched,
  beforeConnect,
  patchStdioExports,
  patchStdioTransport,
  isStdioPatched,
  warnUnsupported,
  sourceOfFile,
  takeOutOnce,
  /** The addon, loaded now: a NativeAddonError where none loads. */
  loadAddon: () => addon.load(),
};
