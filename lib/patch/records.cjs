'use strict';
// What patching an SDK class takes, for `Protocol` (lib/patch/protocol.cjs) and the
// stdio transports (lib/patch/transports.cjs) alike: the error for a class of a shape no
// adapter knows, how an SDK build is named in messages, the record a patched
// prototype carries, replacing methods on a prototype (and restoring them),
// and the warning load-time patching gives instead of throwing.

const { patchDeferred } = require('./deferred.cjs');

class UnsupportedSdkError extends Error {
  constructor(message) {
    super(message);
    this.name = 'UnsupportedSdkError';
  }
}

/** `name@version (ESM build)` for an SDK build's { name, version, build }, or `fallback` when there is none. */
function describeSource(source, fallback) {
  if (!source?.name) return fallback;
  return `${source.name}@${source.version ?? '?'}${source.build ? ` (${source.build.toUpperCase()} build)` : ''}`;
}

/** The patch record `Class.prototype` carries under `key` (its own property), or undefined; a deferred patch (lib/patch/deferred.cjs) is made first. */
function patchRecordOf(Class, key) {
  patchDeferred(Class);
  const proto = Class?.prototype;
  return proto && Object.prototype.hasOwnProperty.call(proto, key) ? proto[key] : undefined;
}

/**
 * Replace `methods` ({ name: function }) on `proto` (non-enumerable, as class
 * methods are) and mark it with a record under `key`: `{ ...fields, unpatch }`.
 * unpatch() restores each method's own descriptor as it was (or removes the
 * method where the prototype had none of its own), once, and only while this
 * record is the one in place.
 */
// Whether this thread has patched an SDK class (register's UNREACHED line asks).
let patchedAny = false;

/** Whether any SDK class was patched in this thread. */
function anyPatched() {
  return patchedAny;
}

/** With the report on, this thread writes its record though it patched nothing (its warnings say why: UNREACHED). */
function reportUnpatched() {
  const progress = require('../progress/tokens.cjs');
  if (progress.reporting) progress.reportRecorder();
}

function replaceMethods(proto, key, methods, fields = {}) {
  patchedAny = true;
  const saved = {};
  for (const name of Object.keys(methods)) saved[name] = Object.getOwnPropertyDescriptor(proto, name);
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(proto, name, { value, writable: true, configurable: true, enumerable: false });
  }
  const record = {
    ...fields,
    unpatch() {
      if (proto[key] !== record) return;
      for (const [name, descriptor] of Object.entries(saved)) {
        if (descriptor) Object.defineProperty(proto, name, descriptor);
        else delete proto[name];
      }
      delete proto[key];
    },
  };
  Object.defineProperty(proto, key, { value: record, configurable: true, enumerable: false });
  // The report, when it is on (lib/progress/tokens.cjs): this copy's class was patched.
  const progress = require('../progress/tokens.cjs');
  if (progress.reporting) progress.reportRecorder().patched(proto, fields, require('../discover/package-of.cjs').packageOf);
  debugPatched(fields.source);
  return record;
}

// The SDK copies NODE_DEBUG=mcp-ordered-dispatch has named in this thread.
const named = new Set();

/** One line per SDK copy patched (its first class), with NODE_DEBUG=mcp-ordered-dispatch, on Node and Bun alike. */
function debugPatched(source) {
  if (!process.env.NODE_DEBUG) return; // the common case, with nothing more loaded
  const log = require('../warnings/warnings.cjs').debugLog();
  if (log === undefined) return;
  const copy = source?.name === undefined ? 'an SDK copy' : `${source.name}${source.version === undefined ? '' : `@${source.version}`}`;
  if (named.has(copy)) return;
  named.add(copy);
  log('patched %s%s', copy, typeof source?.file === 'string' && source.file !== source.name ? ` (${source.file})` : '');
}

/**
 * Load-time patching (`register`): a class no adapter supports is left stock
 * with one warning rather than failing the application's import. Any other
 * error is thrown on.
 */
function warnUnsupported(error) {
  if (error?.name !== 'UnsupportedSdkError') throw error;
  require('../warnings/warnings.cjs').warn('UNSUPPORTED', `${error.message} It runs unpatched.`);
}

module.exports = { UnsupportedSdkError, describeSource, patchRecordOf, replaceMethods, warnUnsupported, anyPatched, reportUnpatched };
