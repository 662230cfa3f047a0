'use strict';
// SDK copies found by shape, in any module: a bundle (esbuild, webpack,
// rollup, bun), a minified build, a host's own dist/ chunk. Bundlers rename
// the SDK's classes (`var Ao=class{`) and keep them nowhere a module's
// exports or a path would show; what they keep is the classes' property names.
//
// rewriteSdkClasses() is the one rule for rewriting a module's source, whoever
// asks: register's CommonJS and ES module hooks (lib/register/hooks.cjs,
// lib/register/esm-hooks.mjs) and the build-time paths. In order: this
// package's own files are never changed; modules under the SDK's scope are
// left to the caller's own path where it has one (options.skipSdkScope);
// the prefilter (lib/adapters/modules.cjs's mayDefineSdkClass: the
// Protocol's or a stdio transport's marker names) passes over nearly every
// module for the cost of one scan; a source already holding the global was
// changed already (a hook installed twice), or patched at build time
// (BUILT_GLOBAL). Only then is the text located
// (lib/shape/sdk-classes.cjs), each SDK class given a static block that
// reports it to the class receiver (lib/shape/blocks.cjs), and the result proven and cached
// per content (lib/shape/cache.cjs). Any failure or doubt returns
// undefined, and the module loads exactly as it was.
// Dependency-free but for the adapter: it also runs on a module.register()
// loader thread. What it loads past the prefilter, it loads then.

const path = require('node:path');
const { pathToFileURL } = require('node:url');
const sdk = require('../adapters/modules.cjs');

// This package's own lib/ (its files name the markers, and define no SDK class);
// none where this file is bundled (module.filename is Node's, where the
// module is a file: a bundle's ES module output has no __dirname, and Bun
// writes the build machine's directory for it).
const OWN_LIB = typeof module.filename === 'string' ? path.join(path.dirname(module.filename), '..') : undefined;
const OWN_LIB_URL = OWN_LIB === undefined ? undefined : pathToFileURL(OWN_LIB).href;

/** Whether `file` (a path or a file: URL) is one of this package's own lib/ files. */
function isOwnFile(file) {
  return OWN_LIB !== undefined && (file.startsWith(OWN_LIB + path.sep) || file.startsWith(`${OWN_LIB_URL}/`));
}

const { BUILT_GLOBAL } = require('./globals.cjs');

/**
 * A module source as a load hook may hand it over (string, Buffer, another
 * TypedArray or DataView, ArrayBuffer) as a string or a Buffer, undecoded.
 */
function bytesOf(source) {
  if (typeof source === 'string' || Buffer.isBuffer(source)) return source;
  return ArrayBuffer.isView(source) ? Buffer.from(source.buffer, source.byteOffset, source.byteLength) : Buffer.from(source);
}

/** The same source as text (UTF-8). */
function textOf(source) {
  const bytes = bytesOf(source);
  return typeof bytes === 'string' ? bytes : bytes.toString('utf8');
}

/**
 * `source` (any form bytesOf takes) of the module at `file` (a path or a
 * file: URL, reported with each class) with a static block in each SDK
 * class it defines, or undefined (none, or any doubt). `format`: 'module',
 * 'commonjs' (a CommonJS module must also compile whole), or undefined where
 * Node decides it by the module's syntax (a `.js` file whose package.json
 * names no `type`: the text is changed so that Node decides it alike and
 * either format runs it; lib/shape/blocks.cjs's verifyBlocks). `options`:
 *   global (required): the name of the global function the blocks call;
 *   framing (default true): whether stdio transports count;
 *   skipSdkScope (default false): leave modules under the SDK's scope alone;
 *   compileWhole (default true): a CommonJS module must also compile whole;
 *     false proves each changed class alone, as for an ES module (the bundler
 *     plugin's esbuild output files, which V8 compiles whole too slowly for
 *     a build, docs/performance.md; cached apart);
 *   perClass (default false): a text naming a global is not passed over
 *     whole (changed already: a hook installed twice, a build with the
 *     plugin); each class whose body starts with a block is (the plugin's
 *     output files, which may hold this package's own code beside the SDK).
 */
function rewriteSdkClasses(source, file, format, options) {
  return rewriteEdits(source, file, format, options)?.text;
}

/**
 * What rewriteSdkClasses() does, with what it inserted: { text, edits, at }
 * where edits are [[offset in the source text, inserted text]] (a bundler
 * plugin records them for its source map) and at the classes found
 * ([[offset of the body past its `{`, kind, generation]]), or undefined.
 */
function rewriteEdits(source, file, format, options) {
  try {
    const { global, framing = true, skipSdkScope = false, compileWhole = true, perClass = false } = options;
    if (isOwnFile(file)) return undefined;
    if (skipSdkScope && (file.includes(sdk.SDK_URL_SEGMENT) || file.includes(sdk.SDK_PATH))) return undefined;
    const bytes = bytesOf(source);
    if (!sdk.mayDefineSdkClass(bytes, framing)) return undefined;
    const proven = compileWhole ? format : 'module';
    if (!perClass && bytes.length >= FILE_CACHE_MIN) {
      // A large file seen before: its classes by its path and identity, without the content hash.
      let decoded;
      const text = () => (decoded ??= typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
      const kept = require('./file-cache.cjs').keptClasses(file, bytes, text, PROOF[proven] ?? PROOF.undecided, global);
      if (kept !== undefined) return withKept(text(), kept, file, global);
    }
    // The globals' names are ASCII: found in the bytes exactly where they are in the text.
    if (!perClass && (bytes.indexOf(global) >= 0 || bytes.indexOf(BUILT_GLOBAL) >= 0)) return undefined;
    const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
    return withBlocks(text, bytes, file, proven, global, perClass);
  } catch {
    return undefined;
  }
}

/** The proof a module's cached insertions had, by the format it was proven for (part of its cache key). */
const PROOF = { commonjs: 'compiled whole', module: '', undecided: 'compiled whole where the original does' };
/** Sources this large are looked up by file first (lib/shape/file-cache.cjs); smaller ones hash for less than that costs. */
const FILE_CACHE_MIN = 256 * 1024;

/** The rewrite's result for `text` with blocks at `at` (found and proven before). */
function withKept(text, at, file, global) {
  const { insertBlocks, blocksAt } = require('./blocks.cjs');
  return { text: insertBlocks(text, at, global, file), edits: blocksAt(at, global, file), at };
}

/**
 * `text` with its SDK classes' blocks, proven the first time and cached;
 * undefined when it has none or fails the proof. `bytes`: the source as the
 * caller had it, `text` itself or the bytes it was decoded from, which the
 * cache key is the hash of: the same key as the text's UTF-8 (for valid
 * UTF-8), without encoding a decoded text back to hash it.
 */
function withBlocks(text, bytes, file, format, global, perClass) {
  const cache = require('./cache.cjs');
  const key = cache.keyOf(bytes, PROOF[format] ?? PROOF.undecided);
  let at = cache.readCache(key, text);
  const cached = at !== undefined;
  let found;
  if (!cached) {
    found = require('./sdk-classes.cjs').sdkClassesIn(text) ?? [];
    at = found.map((cls) => [cls.open, cls.kind, cls.generation]);
    if (perClass) {
      const { hasBlock } = require('./blocks.cjs');
      at = at.filter(([open]) => !hasBlock(text, open, [global, BUILT_GLOBAL]));
    }
  }
  if (at.length === 0) {
    if (!cached) cache.writeCache(key, at);
    return undefined;
  }
  const { insertBlocks, blocksAt, verifyBlocks } = require('./blocks.cjs');
  const changed = insertBlocks(text, at, global, file);
  if (!cached) {
    // Cached only once proven; proven with this module's file name, the same shape for any.
    if (!verifyBlocks(found, changed, at, global, file, format, text)) {
      cache.writeCache(key, []);
      return undefined;
    }
    cache.writeCache(key, at);
  }
  if (!perClass && bytes.length >= FILE_CACHE_MIN) require('./file-cache.cjs').keepClasses(file, bytes, text, at, PROOF[format] ?? PROOF.undecided, global);
  return { text: changed, edits: blocksAt(at, global, file), at };
}

module.exports = { rewriteSdkClasses, rewriteEdits, isOwnFile, bytesOf, textOf };
