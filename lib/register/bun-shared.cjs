'use strict';
// What register's two ways into Bun's module graph share
// (lib/register/bun-disk.cjs: ES modules on disk; lib/register/bun-embedded.cjs:
// the chunks embedded in a Bun-compiled executable): the plugin's namespace,
// the one state object, an embedded chunk's format by Bun's pragma, a
// module's source read only when it holds the prefilter's markers, and its
// SDK classes' static blocks.

const fs = require('node:fs');
const sdk = require('../adapters/modules.cjs');
const hooks = require('./hooks.cjs');

/** The plugin's namespace: a redirected module's key is `${NAMESPACE}:${path}`. */
const { PACKAGE_NAME: NAMESPACE } = require('../shape/globals.cjs');

/** An embedded chunk's format by Bun's pragma line: one rule, doctor's too. */
const { BUN_PRAGMA, embeddedFormatOf } = require('../discover/bun-pragma.cjs');

/** Everything the Bun path keeps for the life of the process, in one place. */
const state = {
  // Embedded CommonJS chunks redirected: file -> their patched text (lib/register/bun-embedded.cjs).
  cjsTexts: new Map(),
  // CommonJS files from disk that define an SDK class, resolved but not yet
  // compiled by the require() wrapper (lib/register/bun-disk.cjs).
  pendingRequired: new Set(),
  // CommonJS files from disk the require() wrapper compiled (lib/register/bun.cjs).
  required: new Set(),
  // Embedded chunks decided: file -> { text } (redirected, patched), or null (left as they are).
  embedded: new Map(),
  // Embedded chunks whose patched text Bun loaded (lib/register/bun-unreached.cjs: register reached the SDK).
  served: new Set(),
};

/** The source of `file` when it holds the prefilter's markers (looked for in its undecoded bytes), else undefined. */
function sourceWithMarkers(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  return sdk.mayDefineSdkClass(bytes) ? bytes.toString('utf8') : undefined;
}

/** `source` of `file` (`format`: 'module' or 'commonjs') with its SDK classes' static blocks, or undefined. */
function patchedSource(source, file, format) {
  return hooks.rewrittenSource(source, file, format, hooks.REWRITE_ALL_OPTIONS);
}

/** patchedSource(), with the classes found: { text, at } (lib/register/hooks.cjs's rewrittenClasses()), or undefined. */
function patchedClasses(source, file, format) {
  return hooks.rewrittenClasses(source, file, format, hooks.REWRITE_ALL_OPTIONS);
}

/** Whether `source` of `file` defines an SDK class (the prefilter, then the locate step). */
function definesSdkClass(source, file, format) {
  return sdk.mayDefineSdkClass(source) && patchedSource(source, file, format) !== undefined;
}

module.exports = { NAMESPACE, BUN_PRAGMA, state, embeddedFormatOf, sourceWithMarkers, patchedSource, patchedClasses, definesSdkClass };
