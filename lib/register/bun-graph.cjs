'use strict';
// register's way into Bun's module graph: the Bun.plugin() a preload
// installs (lib/register/bun.cjs). Its onResolve sees every import and hands
// each to one of two jobs:
//   - ES modules on disk: lib/register/bun-disk.cjs gives one that defines an
//     SDK class an onLoad of its own, which returns it patched;
//   - the chunks embedded in a Bun-compiled executable: one that defines an
//     SDK class is sent into register's namespace, whose onLoad (here)
//     returns it patched (lib/register/bun-embedded.cjs).
// What they share (the state, reading a file, the warning) is
// lib/register/bun-shared.cjs. Only a module whose source holds the
// prefilter's markers and defines an SDK class is changed; every other
// import costs a resolution cached per directory and specifier, and one read
// and prefilter per file.

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { isBunEmbeddedPath } = require('../native/platform.cjs');
const { NAMESPACE } = require('./bun-shared.cjs');
const { isOwnFile } = require('../shape/rewrite.cjs');
const disk = require('./bun-disk.cjs');
const embedded = require('./bun-embedded.cjs');

const NAMESPACE_PREFIX = `${NAMESPACE}:`;

/** Whether `specifier` is a relative one (`./`, `../`). */
function isRelative(specifier) {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

/**
 * The onResolve hook and the onLoad of register's namespace: { onResolve,
 * onLoad, resolvePath, diskJob }. `addLoad(file, contents)` adds an onLoad
 * for exactly `file`. onResolve returns undefined (Bun resolves as ever) for
 * every import but one of an embedded chunk that defines an SDK class, and,
 * for an import by such a chunk, a resolution against its own path.
 */
function createGraphHooks(addLoad) {
  const diskJob = disk.createDiskJob(addLoad);
  const embeddedJob = embedded.createEmbeddedJob();
  // `${dir}\0${specifier}` -> resolved path (or null: Bun's to resolve).
  const resolvedIn = new Map();
  let resolving = false;

  function resolvePath(specifier, dir) {
    const key = `${dir}\0${specifier}`;
    let file = resolvedIn.get(key);
    if (file === undefined) {
      // Bun.resolveSync() calls the plugins' onResolve again (with `dir` as the importer): this one stands aside.
      resolving = true;
      try {
        const resolved = globalThis.Bun.resolveSync(specifier, dir);
        file = path.isAbsolute(resolved) ? resolved : null;
      } catch {
        file = null;
      } finally {
        resolving = false;
      }
      resolvedIn.set(key, file);
    }
    return file;
  }

  /** The file an import of `specifier` by `from` names, or undefined (Bun's to resolve). */
  function fileOf(specifier, from) {
    if (isBunEmbeddedPath(specifier)) return specifier;
    if (isBunEmbeddedPath(from) && isRelative(specifier)) return path.resolve(path.dirname(from), specifier);
    if (specifier.startsWith('node:') || specifier.startsWith('bun:') || Module.isBuiltin(specifier)) return undefined;
    if (!path.isAbsolute(from)) return undefined;
    return resolvePath(specifier, path.dirname(from)) ?? undefined;
  }

  function onResolve({ path: specifier, importer }) {
    if (resolving) return undefined;
    try {
      const fromRedirected = importer.startsWith(NAMESPACE_PREFIX);
      const from = fromRedirected ? importer.slice(NAMESPACE_PREFIX.length) : importer;
      // This package's files importing each other: Bun's to resolve, unread.
      if (isRelative(specifier) && isOwnFile(from)) return undefined;
      const file = fileOf(specifier, from);
      // Undefined, and a chunk's exports facade importing the chunk itself (lib/register/bun-embedded.cjs): Bun's to resolve.
      if (file === undefined || (fromRedirected && file === from)) return undefined;
      if (isBunEmbeddedPath(file)) {
        if (embeddedJob.decide(file) !== null) return { path: file, namespace: NAMESPACE };
      } else {
        diskJob.decide(file);
      }
      // An import of a redirected chunk: resolved against its own path. An
      // embedded chunk left alone is left to Bun (Bun 1.3 reads a path
      // returned for it from disk: ENOENT, and opencode and cline's CLI died at start).
      return fromRedirected && !isBunEmbeddedPath(file) ? { path: file } : undefined;
    } catch {
      return undefined; // never into the application's module loading
    }
  }

  function onLoad({ path: file }) {
    // Only what onResolve redirected comes here.
    return { contents: embeddedJob.textOf(file) ?? fs.readFileSync(file, 'utf8'), loader: 'js' };
  }

  return { onResolve, onLoad, resolvePath, diskJob };
}

/** Install the graph hooks into `build` (a Bun.plugin() setup's builder). */
function setupGraph(build) {
  const addLoad = (file, contents) => {
    globalThis.Bun.plugin({ name: 'mcp-ordered-dispatch-file', setup: (fileBuild) => disk.loadExactly(fileBuild, file, contents) });
  };
  const { onResolve, onLoad, resolvePath, diskJob } = createGraphHooks(addLoad);
  build.onResolve({ filter: /.*/ }, onResolve);
  build.onLoad({ filter: /.*/, namespace: NAMESPACE }, onLoad);
  const main = globalThis.Bun?.main;
  if (isBunEmbeddedPath(main)) {
    // The exit check first: what it reads goes into the record saved after it.
    require('./bun-unreached.cjs').watchExit();
    require('./bun-index.cjs').openIndex();
    embedded.checkEntry(main);
  }
  disk.setupDisk(build, main, diskJob, resolvePath);
}

module.exports = { setupGraph, compiledByRequire: disk.compiledByRequire };
