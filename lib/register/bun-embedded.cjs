'use strict';
// register's way into the modules embedded in a Bun-compiled executable
// (paths lib/native/platform.cjs's isBunEmbeddedPath() knows; the plugin
// itself is lib/register/bun-graph.cjs): Bun calls no onLoad for them, but
// onResolve for every import of one, and fs.readFileSync() returns its
// source (bytecode beside it is ignored by Bun once the source differs). A
// chunk that defines an SDK class is sent into a namespace of register's
// own whose onLoad returns it patched: one instance still (Bun keys it by
// the namespace and path), its imports (absolute embedded paths, as Bun's
// bundler writes them, or relative ones) resolved against its own path, its
// `import.meta` (url, dir, path, require, resolve) its own path's again; a
// CommonJS chunk (`// @bun @bun-cjs`) runs as a CommonJS module, its exports
// as require() returns them. What it cannot reach (the executable's entry
// module, which Bun loads through no hook; a `@bun-cjs` chunk wrapped
// otherwise than register knows, left alone) stays stock, and
// lib/register/bun-unreached.cjs says so in one line.

const path = require('node:path');
const Module = require('node:module');
const { pathToFileURL } = require('node:url');
/** The globals a redirected module's own text calls: its import.meta set right, its CommonJS body run. */
const { META_GLOBAL, CJS_GLOBAL, EXPORTS_GLOBAL } = require('../shape/globals.cjs');
const { BUN_PRAGMA, state, embeddedFormatOf, patchedClasses, definesSdkClass } = require('./bun-shared.cjs');
const { sayUnreached, sayUnreachedLater } = require('./bun-unreached.cjs');
const { readUnlessIndexed, noteRead, noteWalk, noteFacade, noteBytecode } = require('./bun-index.cjs');
const bytecode = require('./bun-bytecode.cjs');

/**
 * Where a statement may be put first without moving any line: after a
 * hashbang line and Bun's pragma line (which must stay first), else at the start.
 */
function firstStatementAt(text) {
  let at = 0;
  for (const first of ['#!', BUN_PRAGMA]) {
    if (!text.startsWith(first, at)) continue;
    const eol = text.indexOf('\n', at);
    at = eol < 0 ? text.length : eol + 1;
  }
  return at;
}

/** An ES module's patched text, its import.meta made its own path's again (when it reads import.meta at all). */
function esmText(changed, file) {
  if (changed.indexOf('import.meta') < 0) return changed;
  const at = firstStatementAt(changed);
  return `${changed.slice(0, at)}globalThis.${META_GLOBAL}(import.meta,${JSON.stringify(file)});${changed.slice(at)}`;
}

/** Give `meta` (a redirected module's import.meta) what it has at `file`. */
function setMeta(meta, file) {
  const dir = path.dirname(file);
  const url = pathToFileURL(file).href;
  Object.assign(meta, {
    url,
    path: file,
    dir,
    dirname: dir,
    file: path.basename(file),
    filename: file,
    require: Module.createRequire(file),
    resolve(specifier) {
      const resolved = globalThis.Bun.resolveSync(String(specifier), dir);
      return path.isAbsolute(resolved) ? pathToFileURL(resolved).href : resolved;
    },
  });
}

/** Run the redirected CommonJS chunk at `file` as a CommonJS module: its exports. */
function runCjs(file) {
  const text = state.cjsTexts.get(file);
  const module = new Module(file, undefined);
  module.filename = file;
  module.paths = Module._nodeModulePaths(path.dirname(file));
  // Bun's wrapper is a function expression: called with the module's own arguments.
  module._compile(`${text}\n.call(this, exports, require, module, __filename, __dirname);`, file);
  module.loaded = true;
  return module.exports;
}

/** The ES module a redirected CommonJS chunk loads as: require() returns its exports ('module.exports'), import its default. */
function cjsFacade(file) {
  return `const e = globalThis.${CJS_GLOBAL}(${JSON.stringify(file)});\nexport { e as 'module.exports', e as default };\n`;
}

/** What a chunk's facade calls once the chunk has run (lib/register/bun-bytecode.cjs): its SDK classes patched, or the one line where its exports hold none after all. */
function classesExported(file, classes) {
  const found = bytecode.classesExported(classes);
  if (found === false) {
    state.served.delete(file);
    sayUnreached(`its chunk ${file} exports no SDK class where its text shows one`);
    return;
  }
  bytecode.receive(file, found);
}

function defineGlobal(name, fn) {
  if (Object.hasOwn(globalThis, name)) return;
  Object.defineProperty(globalThis, name, { value: fn, configurable: true, writable: false, enumerable: false });
}

/** The embedded chunks, each decided once (in state.embedded): { decide(file) -> { text } (redirected) or null, textOf(file) }. */
function createEmbeddedJob() {
  const decided = state.embedded;
  let globals = false;

  function decide(file) {
    let entry = decided.get(file);
    if (entry !== undefined) return entry;
    entry = null;
    const { known, source, facade } = readUnlessIndexed(file);
    if (facade !== undefined) {
      entry = facadeEntry(file, facade);
      decided.set(file, entry);
      return entry;
    }
    const format = source === undefined ? undefined : embeddedFormatOf(source);
    if (source !== undefined && format === undefined && definesSdkClass(source, file, 'commonjs')) {
      sayUnreached(`its CommonJS chunk ${file} is not wrapped as register knows Bun wraps one`);
    } else if (known !== false) {
      const patched = format === undefined ? undefined : patchedClasses(source, file, format);
      noteRead(file, source, patched === undefined ? undefined : format, known);
      if (patched !== undefined) entry = redirected(file, source, patched, format, known);
    }
    decided.set(file, entry);
    return entry;
  }

  /**
   * What an import of `file` (holding SDK classes: `patched`,
   * patchedClasses()'s; `known`, what the record said of it) is redirected
   * to: { text }. An ES chunk runs from its bytecode behind a facade where
   * it may (lib/register/bun-bytecode.cjs); any other, patched in its text.
   */
  function redirected(file, source, patched, format, known) {
    defineGlobals();
    const plan = format === 'module' ? bytecode.facadePlanOf(file, source, patched.at, known?.walk, (allowed) => noteWalk(file, allowed)) : undefined;
    if (plan !== undefined) {
      noteFacade(file, plan);
      return facadeEntry(file, plan);
    }
    if (format === 'commonjs') {
      state.cjsTexts.set(file, patched.text);
      return { text: cjsFacade(file) };
    }
    return { text: esmText(patched.text, file) };
  }

  /** What an import of chunk `file`, run from its bytecode, is redirected to: its facade, made from `plan` (lib/register/bun-bytecode.cjs's). */
  function facadeEntry(file, plan) {
    defineGlobals();
    noteBytecode();
    return { text: bytecode.facadeText(file, plan) };
  }

  function defineGlobals() {
    if (globals) return;
    globals = true;
    defineGlobal(META_GLOBAL, setMeta);
    defineGlobal(CJS_GLOBAL, runCjs);
    defineGlobal(EXPORTS_GLOBAL, classesExported);
  }

  /** The text a redirected chunk loads as (Bun loads it now: register reached its SDK classes), or undefined. */
  function textOf(file) {
    const text = decided.get(file)?.text;
    if (text !== undefined) state.served.add(file);
    return text;
  }

  return { decide, textOf };
}

/** The executable's entry module `main`, which Bun loads through no hook: one holding an SDK class is warned about (the executable named). */
function checkEntry(main) {
  const { known, source } = readUnlessIndexed(main);
  if (source === undefined) {
    if (known === undefined) noteRead(main, source, undefined, known);
    return;
  }
  const format = embeddedFormatOf(source) ?? 'commonjs';
  const holds = definesSdkClass(source, main, format);
  noteRead(main, source, holds ? format : undefined, known);
  if (!holds) return;
  // Said once it is known: Bun serves an entry named as a JavaScript file
  // (Kilo's) through register's hooks (lib/discover/bun-graph.cjs's
  // ENTRY_THROUGH_HOOKS), which happens before any of its code runs.
  sayUnreachedLater(`its entry module ${main} (Bun loads it through no hook)`);
}

module.exports = { createEmbeddedJob, checkEntry };
