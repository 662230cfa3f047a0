'use strict';
// register's way into Bun's module graph, through a preload's Bun.plugin():
//   - ES modules on disk: onResolve (which Bun calls for relative and
//     absolute imports and for require() calls, not for an ES import of a
//     package by name) resolves the import, reads the file once, and when it
//     is an ES module that defines an SDK class, adds an onLoad for exactly
//     that file, which returns its source with the classes' static blocks
//     (lib/register/hooks.cjs's rewrittenSource). The entry module and the
//     SDK packages' own Protocol and stdio modules (as the entry's directory
//     resolves them) get theirs at start, and every `.mjs` file goes through
//     one onLoad (an ES module whoever imports it). The file stays itself: one
//     instance, its import.meta, its imports resolved as ever. A module's
//     format is decided as Node decides it (`.mjs`, `.cjs`, else the nearest
//     package.json's `type`, else its syntax), never from its path, and a
//     CommonJS file never goes through an onLoad (Bun would compile it as an
//     ES module: oven-sh/bun#39786): require() has lib/register/bun.cjs's
//     wrapper, so it keeps its exports whatever the application's
//     package.json says.
//   - the modules embedded in a Bun-compiled executable (`/$bunfs/root/...`):
//     Bun calls no onLoad for them, but onResolve for every import of one,
//     and fs.readFileSync() returns its source (bytecode beside it is
//     ignored by Bun once the source differs). A chunk that defines an SDK
//     class is sent into a namespace of register's own whose onLoad returns
//     it patched: one instance still (Bun keys it by the namespace and
//     path), its imports (absolute /$bunfs paths, as Bun's bundler writes
//     them, or relative ones) resolved against its own path, its
//     `import.meta` (url, dir, path, require, resolve) its own path's again;
//     a CommonJS chunk (`// @bun @bun-cjs`) runs as a CommonJS module, its
//     exports as require() returns them.
// Only a module whose source holds the prefilter's markers and defines an SDK
// class is changed; every other import costs a resolution cached per
// directory and specifier, and one read and prefilter per file.
// What it cannot reach: an executable's entry module, and a CommonJS entry
// script or a CommonJS module an ES module imports from disk (Bun compiles
// them through no hook): each holding an SDK class is named in one warning
// and stays stock.

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { pathToFileURL } = require('node:url');
const sdk = require('../adapters/modules.cjs');
const hooks = require('./hooks.cjs');
const { packageTypeOf, moduleTypeOf } = require('../discover/package-of.cjs');

/** The plugin's namespace: a redirected module's key is `${NAMESPACE}:${path}`. */
const NAMESPACE = 'mcp-ordered-dispatch';
const NAMESPACE_PREFIX = `${NAMESPACE}:`;
/** Where Bun mounts a compiled executable's embedded modules. */
const BUNFS = process.platform === 'win32' ? 'B:\\~BUN\\' : '/$bunfs/';
/** The globals a redirected module's own text calls: its import.meta set right, its CommonJS body run. */
const { META_GLOBAL, CJS_GLOBAL } = require('../shape/globals.cjs');
/** Bun's first line of a module it bundled; `@bun-cjs` marks a CommonJS one, wrapped as below. */
const BUN_PRAGMA = '// @bun';
const BUN_CJS = /^\/\/ @bun[^\n]*@bun-cjs\r?\n\(function\(exports, require, module, __filename, __dirname\) \{/;
const UNREACHED = 'MCP_ORDERED_DISPATCH_UNREACHED';

/** Whether `file` is embedded in a Bun-compiled executable. */
function isEmbedded(file) {
  return file.startsWith(BUNFS);
}

/** How a CommonJS module body sets its exports. */
const CJS_EXPORTS = /\bmodule\.exports\b|\bexports\.[A-Za-z_$]/;

/** Whether `source` compiles as a CommonJS module body (Node's detection for a `.js` file no `type` decides). */
function compilesAsCommonJs(source) {
  try {
    require('node:vm').compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname']);
    return true;
  } catch {
    return false;
  }
}

/**
 * The format of the module at `file` with `source`, as Node decides it
 * (`.mjs`, `.cjs`, the nearest package.json's `type`, else whether it
 * compiles as CommonJS; and, as Bun does, a `.js` file that compiles as
 * CommonJS and sets module.exports is one whatever `type` says) or,
 * embedded, by Bun's own pragma: 'module',
 * 'commonjs', or undefined for a file that is not JavaScript of its own
 * (JSON, TypeScript, a .node). Asked only of sources that hold the markers.
 */
function moduleFormatOf(file, source) {
  if (isEmbedded(file)) return BUN_CJS.test(source) ? 'commonjs' : 'module';
  const byName = moduleTypeOf(file);
  if (byName === undefined || path.extname(file) !== '.js') return byName;
  const type = packageTypeOf(file);
  if (type === 'commonjs') return type;
  if (!compilesAsCommonJs(source)) return 'module';
  // Bun loads a `.js` file that sets module.exports as CommonJS even where `type` says
  // "module": so does register, so that its exports are kept.
  return type === null || CJS_EXPORTS.test(source) ? 'commonjs' : 'module';
}

// ---- what a redirected module's text becomes ----

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

// Embedded CommonJS chunks redirected: file -> their patched text.
const cjsTexts = new Map();

/** Run the redirected CommonJS chunk at `file` as a CommonJS module: its exports. */
function runCjs(file) {
  const text = cjsTexts.get(file);
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

function defineGlobal(name, fn) {
  if (Object.hasOwn(globalThis, name)) return;
  Object.defineProperty(globalThis, name, { value: fn, configurable: true, writable: false, enumerable: false });
}

// ---- warnings ----

const warned = new Set();

/** One warning per module `file` that holds an SDK class register cannot reach (`why`, `fix`). */
function warnUnreached(file, why, fix) {
  if (warned.has(file)) return;
  warned.add(file);
  process.emitWarning(`mcp-ordered-dispatch/register cannot reach the MCP SDK copy in ${why}, so it stays stock. ${fix}`, { type: 'RegisterWarning', code: UNREACHED });
}

/** Whether `source` of `file` defines an SDK class (the prefilter, then the locate step). */
function definesSdkClass(source, file, format) {
  return sdk.mayDefineSdkClass(source) && hooks.rewrittenSource(source, file, format, hooks.REWRITE_ALL_OPTIONS) !== undefined;
}

/**
 * The entry module (Bun.main), which Bun loads through no onResolve: an
 * embedded one holding an SDK class is warned about (the executable named);
 * one on disk is returned as { file, text } to be loaded patched by an
 * onLoad of its own (an ES module), or warned about (a CommonJS one).
 */
function entryModule(main = globalThis.Bun?.main) {
  if (typeof main !== 'string') return undefined;
  let source;
  try {
    source = fs.readFileSync(main, 'utf8');
  } catch {
    return undefined;
  }
  if (!sdk.mayDefineSdkClass(source)) return undefined;
  const format = moduleFormatOf(main, source);
  if (format === undefined) return undefined;
  if (isEmbedded(main)) {
    if (definesSdkClass(source, main, format)) {
      warnUnreached(main, `the entry module of the Bun-compiled executable ${process.execPath} (Bun loads it through no hook)`,
        "Build the fix in: add mcp-ordered-dispatch/bun (the bundler plugin) to the Bun.build() that compiles it, or build it with --splitting and the SDK imported lazily.");
    }
    return undefined;
  }
  if (format === 'commonjs') {
    if (definesSdkClass(source, main, format)) {
      warnUnreached(main, `the CommonJS entry module ${main} (Bun loads it through no hook)`,
        "Call install() from 'mcp-ordered-dispatch' before the application connects, or load the SDK from a module the entry requires.");
    }
    return undefined;
  }
  const changed = hooks.rewrittenSource(source, main, format, hooks.REWRITE_ALL_OPTIONS);
  return changed === undefined ? undefined : { file: main, text: changed };
}

// ---- the hooks ----

// CommonJS files from disk that define an SDK class, resolved but not yet
// compiled by the require() wrapper. Bun's onResolve does not say whether an
// import or a require() asks (its `kind` is undefined): a require() compiles
// the file in the same turn, so one still here a turn later was imported by
// an ES module, which Bun compiles through no hook.
const pendingRequired = new Set();

function expectRequired(file) {
  if (required.has(file)) return;
  pendingRequired.add(file);
  setTimeout(() => {
    if (!pendingRequired.delete(file)) return;
    warnUnreached(file, `the CommonJS module ${file}, which an ES module imports (Bun loads it through no hook)`,
      "Call install() from 'mcp-ordered-dispatch' before the application connects, or patchProtocol() on the Protocol class it exports.");
  }, 0).unref?.();
}

const required = new Set();

/** The require() wrapper compiled `file` (lib/register/bun.cjs). */
function compiledByRequire(file) {
  required.add(file);
  pendingRequired.delete(file);
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
 * The onResolve hook and the onLoad of register's namespace: { onResolve,
 * onLoad }. `addLoad(file, contents)` adds an onLoad for exactly `file`.
 * onResolve returns undefined (Bun resolves as ever) for every import but
 * one of an embedded chunk that defines an SDK class, and, for an import by
 * such a chunk, a resolution against its own path.
 */
function createGraphHooks(addLoad) {
  // Disk files decided (true: given an onLoad).
  const decidedOnDisk = new Map();
  // Embedded files -> { text } (redirected), or null (left as they are).
  const decidedEmbedded = new Map();
  // `${dir}\0${specifier}` -> resolved path (or null: Bun's to resolve).
  const resolvedIn = new Map();
  let globals = false;
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

  /** A file on disk, once: an ES module with SDK classes gets its onLoad; a CommonJS one is left to require(). */
  function decideOnDisk(file) {
    if (decidedOnDisk.has(file)) return;
    decidedOnDisk.set(file, false);
    const source = sourceWithMarkers(file);
    if (source === undefined) return;
    const format = moduleFormatOf(file, source);
    if (format === 'commonjs') {
      // require()d, the require() wrapper patches it; imported by an ES module, Bun compiles it itself.
      if (definesSdkClass(source, file, format)) expectRequired(file);
    } else if (format === 'module') {
      const changed = hooks.rewrittenSource(source, file, format, hooks.REWRITE_ALL_OPTIONS);
      if (changed !== undefined) {
        decidedOnDisk.set(file, true);
        addLoad(file, () => changed);
      }
    }
  }

  /** An embedded file, once: { text } when it is redirected, else null. */
  function decideEmbedded(file) {
    let entry = decidedEmbedded.get(file);
    if (entry !== undefined) return entry;
    entry = null;
    const source = sourceWithMarkers(file);
    if (source !== undefined) {
      const format = moduleFormatOf(file, source);
      const changed = hooks.rewrittenSource(source, file, format, hooks.REWRITE_ALL_OPTIONS);
      if (changed !== undefined) {
        if (!globals) {
          globals = true;
          defineGlobal(META_GLOBAL, setMeta);
          defineGlobal(CJS_GLOBAL, runCjs);
        }
        if (format === 'commonjs') {
          cjsTexts.set(file, changed);
          entry = { text: cjsFacade(file) };
        } else {
          entry = { text: esmText(changed, file) };
        }
      }
    }
    decidedEmbedded.set(file, entry);
    return entry;
  }

  function onResolve({ path: specifier, importer }) {
    if (resolving) return undefined;
    try {
      const fromRedirected = importer.startsWith(NAMESPACE_PREFIX);
      const from = fromRedirected ? importer.slice(NAMESPACE_PREFIX.length) : importer;
      let file;
      if (isEmbedded(specifier)) file = specifier;
      else if (isEmbedded(from) && (specifier.startsWith('./') || specifier.startsWith('../'))) file = path.resolve(path.dirname(from), specifier);
      else if (specifier.startsWith('node:') || specifier.startsWith('bun:') || Module.isBuiltin(specifier)) return undefined;
      else if (!path.isAbsolute(from)) return undefined;
      else file = resolvePath(specifier, path.dirname(from)) ?? undefined;
      if (file === undefined) return undefined;
      if (isEmbedded(file)) {
        if (decideEmbedded(file) !== null) return { path: file, namespace: NAMESPACE };
      } else {
        decideOnDisk(file);
      }
      // An import of a redirected chunk: resolved against its own path. An
      // embedded chunk left alone is left to Bun (Bun 1.3 reads a path
      // returned for it from disk: ENOENT, and opencode and cline's CLI died at start).
      return fromRedirected && !isEmbedded(file) ? { path: file } : undefined;
    } catch {
      return undefined; // never into the application's module loading
    }
  }

  function onLoad({ path: file }) {
    // Only what onResolve redirected comes here.
    return { contents: decidedEmbedded.get(file)?.text ?? fs.readFileSync(file, 'utf8'), loader: 'js' };
  }

  /** `file` has its onLoad already (given at start): onResolve leaves it be. */
  function loadsAlready(file) {
    decidedOnDisk.set(file, true);
  }

  return { onResolve, onLoad, resolvePath, loadsAlready };
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
    if (file !== null && !isEmbedded(file) && esmByPath(file) === 'module') files.add(file);
  }
  return [...files];
}

/** The source of the ES module `file`, patched as it loads, or as it is. */
function patchedOrAsIs(file) {
  const source = fs.readFileSync(file, 'utf8');
  return hooks.rewrittenSource(source, file, 'module', hooks.REWRITE_ALL_OPTIONS) ?? source;
}

/** Install the graph hooks into `build` (a Bun.plugin() setup's builder). */
function setupGraph(build) {
  const addLoad = (file, contents) => {
    globalThis.Bun.plugin({ name: 'mcp-ordered-dispatch-file', setup: (fileBuild) => loadExactly(fileBuild, file, contents) });
  };
  const { onResolve, onLoad, resolvePath, loadsAlready } = createGraphHooks(addLoad);
  build.onResolve({ filter: /.*/ }, onResolve);
  build.onLoad({ filter: /.*/, namespace: NAMESPACE }, onLoad);
  // `.mjs` files are ES modules whoever imports them, by name too: each read here, patched or as it is.
  build.onLoad({ filter: /\.mjs$/ }, ({ path: file }) => ({ contents: patchedOrAsIs(file), loader: 'js' }));
  const entry = entryModule();
  if (entry !== undefined) {
    loadsAlready(entry.file);
    loadExactly(build, entry.file, () => entry.text);
  }
  const main = globalThis.Bun?.main;
  if (typeof main !== 'string' || isEmbedded(main)) return;
  for (const file of sdkModulesFrom(path.dirname(main), resolvePath)) {
    if (file === entry?.file) continue;
    loadsAlready(file);
    loadExactly(build, file, () => patchedOrAsIs(file));
  }
}

module.exports = { setupGraph, compiledByRequire, createGraphHooks, entryModule, moduleFormatOf, isEmbedded, NAMESPACE, UNREACHED };
