'use strict';
// register's way into Bun's module graph for ES modules on disk (the
// plugin itself is lib/register/bun-graph.cjs): onResolve (which Bun calls
// for relative and absolute imports and for require() calls, not for an ES
// import of a package by name) resolves the import, reads the file once, and
// when it is an ES module that defines an SDK class, adds an onLoad for
// exactly that file, which returns its source with the classes' static
// blocks. The entry module and the SDK packages' own Protocol and stdio
// modules (as the entry's directory resolves them) get theirs at start, and
// every `.mjs` file goes through one onLoad (an ES module whoever imports
// it). The file stays itself: one instance, its import.meta, its imports
// resolved as ever. A module's format is decided as Node decides it (`.mjs`,
// `.cjs`, else the nearest package.json's `type`, else its syntax), never
// from its path, and a CommonJS file never goes through an onLoad (Bun would
// compile it as an ES module: oven-sh/bun#39786): require() has
// lib/register/bun.cjs's wrapper, so it keeps its exports whatever the
// application's package.json says. What it cannot reach, a CommonJS entry
// script or a CommonJS module an ES module imports (Bun compiles them
// through no hook), is named in one warning and stays stock.

const fs = require('node:fs');
const path = require('node:path');
const sdk = require('../adapters/modules.cjs');
const { warn, FIX } = require('../warnings/warnings.cjs');
const { isBunEmbeddedPath } = require('../native/platform.cjs');
const { packageTypeOf, moduleTypeOf } = require('../discover/package-of.cjs');
const { state, sourceWithMarkers, patchedSource, definesSdkClass } = require('./bun-shared.cjs');
const { compilesAsCommonJs } = require('../shape/blocks.cjs');

/** How a CommonJS module body sets its exports. */
const CJS_EXPORTS = /\bmodule\.exports\b|\bexports\.[A-Za-z_$]/;

/**
 * The format of the module on disk at `file` with `source`, as Node decides
 * it (`.mjs`, `.cjs`, the nearest package.json's `type`, else whether it
 * compiles as CommonJS; and, as Bun does, a `.js` file that compiles as
 * CommonJS and sets module.exports is one whatever `type` says): 'module',
 * 'commonjs', or undefined for a file that is not JavaScript of its own
 * (JSON, TypeScript, a .node). Asked only of sources that hold the markers.
 */
function diskFormatOf(file, source) {
  const byName = moduleTypeOf(file);
  if (byName === undefined || path.extname(file) !== '.js') return byName;
  const type = packageTypeOf(file);
  if (type === 'commonjs') return type;
  if (!compilesAsCommonJs(source)) return 'module';
  // Bun loads a `.js` file that sets module.exports as CommonJS even where `type` says
  // "module": so does register, so that its exports are kept.
  return type === null || CJS_EXPORTS.test(source) ? 'commonjs' : 'module';
}

/** One warning per module `file` that holds an SDK class register cannot reach (`why`; `fix`: a FIX sentence). */
function warnUnreached(file, why, fix) {
  warn('UNREACHED', `mcp-ordered-dispatch/register cannot reach the MCP SDK copy in ${why}, so it stays stock. ${fix}`, file);
}

// Bun's onResolve does not say whether an import or a require() asks (its
// `kind` is undefined): a require() compiles the file in the same turn, so
// one still pending a turn later was imported by an ES module, which Bun
// compiles through no hook.
function expectRequired(file) {
  if (state.required.has(file)) return;
  state.pendingRequired.add(file);
  setTimeout(() => {
    if (!state.pendingRequired.delete(file)) return;
    warnUnreached(file, `the CommonJS module ${file}, which an ES module imports (Bun loads it through no hook)`, FIX.INSTALL_OR_PATCH);
  }, 0).unref?.();
}

/** The require() wrapper compiled `file` (lib/register/bun.cjs). */
function compiledByRequire(file) {
  state.required.add(file);
  state.pendingRequired.delete(file);
}

/** Where an ES module on disk is known to be one by its path and package.json alone ('module'), else undefined. */
function esmByPath(file) {
  const ext = path.extname(file);
  if (ext === '.mjs') return 'module';
  return ext === '.js' && packageTypeOf(file) === 'module' ? 'module' : undefined;
}

function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** An onLoad for exactly `file` (in Bun's file namespace) on `build`, returning `contents()`. */
function loadExactly(build, file, contents) {
  build.onLoad({ filter: new RegExp(`^${escapeRegExp(file)}$`) }, () => ({ contents: contents(), loader: 'js' }));
}

/**
 * The files on disk, each decided once: { decide(file), loadsAlready(file) }.
 * `addLoad(file, contents)` adds an onLoad for exactly `file`.
 */
function createDiskJob(addLoad) {
  // Files decided (true: given an onLoad).
  const decided = new Map();

  /** An ES module with SDK classes gets its onLoad; a CommonJS one is left to require(). */
  function decide(file) {
    if (decided.has(file)) return;
    decided.set(file, false);
    const source = sourceWithMarkers(file);
    if (source === undefined) return;
    const format = diskFormatOf(file, source);
    if (format === 'commonjs') {
      // require()d, the require() wrapper patches it; imported by an ES module, Bun compiles it itself.
      if (definesSdkClass(source, file, format)) expectRequired(file);
    } else if (format === 'module') {
      const changed = patchedSource(source, file, format);
      if (changed !== undefined) {
        decided.set(file, true);
        addLoad(file, () => changed);
      }
    }
  }

  /** `file` has its onLoad already (given at start): decide() leaves it be. */
  function loadsAlready(file) {
    decided.set(file, true);
  }

  return { decide, loadsAlready };
}

/**
 * The entry module on disk (Bun.main), which Bun loads through no
 * onResolve: { file, text } to be loaded patched by an onLoad of its own
 * (an ES module), or undefined (a CommonJS one with an SDK class is warned about).
 */
function entryModule(main) {
  const source = sourceWithMarkers(main);
  if (source === undefined) return undefined;
  const format = diskFormatOf(main, source);
  if (format === undefined) return undefined;
  if (format === 'commonjs') {
    if (definesSdkClass(source, main, format)) warnUnreached(main, `the CommonJS entry module ${main} (Bun loads it through no hook)`, FIX.INSTALL_OR_PATCH);
    return undefined;
  }
  const changed = patchedSource(source, main, format);
  return changed === undefined ? undefined : { file: main, text: changed };
}

/**
 * The SDK packages' Protocol and stdio modules that an ES import from the
 * entry's directory loads (a package imported by name passes no onResolve):
 * the ES module files among them.
 */
function sdkModulesFrom(dir, resolvePath) {
  const files = new Set();
  for (const { name, subpath } of [...sdk.SDK_PACKAGES, ...sdk.STDIO_MODULES]) {
    const file = resolvePath(subpath === '.' ? name : `${name}${subpath.slice(1)}`, dir);
    if (file !== null && !isBunEmbeddedPath(file) && esmByPath(file) === 'module') files.add(file);
  }
  return [...files];
}

/** The source of the ES module `file`, patched as it loads, or as it is. */
function patchedOrAsIs(file) {
  const source = fs.readFileSync(file, 'utf8');
  return patchedSource(source, file, 'module') ?? source;
}

/**
 * What goes onto `build` at start for the files on disk: one onLoad for
 * every `.mjs` file, and, where the entry module `main` is on disk, one each
 * for it and the SDK modules its directory resolves (marked in `job`, createDiskJob()'s).
 */
function setupDisk(build, main, job, resolvePath) {
  // `.mjs` files are ES modules whoever imports them, by name too: each read here, patched or as it is.
  build.onLoad({ filter: /\.mjs$/ }, ({ path: file }) => ({ contents: patchedOrAsIs(file), loader: 'js' }));
  if (typeof main !== 'string' || isBunEmbeddedPath(main)) return;
  const entry = entryModule(main);
  if (entry !== undefined) {
    job.loadsAlready(entry.file);
    loadExactly(build, entry.file, () => entry.text);
  }
  for (const file of sdkModulesFrom(path.dirname(main), resolvePath)) {
    if (file === entry?.file) continue;
    job.loadsAlready(file);
    loadExactly(build, file, () => patchedOrAsIs(file));
  }
}

module.exports = { createDiskJob, setupDisk, loadExactly, compiledByRequire };
