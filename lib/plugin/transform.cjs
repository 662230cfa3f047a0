'use strict';
// The transform: one module as the bundler loads it (node_modules included,
// CommonJS and ES modules, chunks a dependency bundled already) gets
// register's rewrite rule (lib/shape/rewrite.cjs's rewriteEdits) with the
// build-time global (BUILT_GLOBAL): each SDK class a static block that
// reports it to the class receiver as it is defined, and the module a call
// of the runtime at its head, by the stable id BUILT_ID, which each bundler's
// room resolves itself (no path of the build machine goes into the output).
// It returns the insertions' source map (lib/plugin/insert.cjs's
// insertionMap). A module without the SDK is returned unchanged; a module
// whose SDK class cannot be given its block is left as it was, with one
// build warning naming it.
//
// Who calls it: rollup, rolldown, Vite and Bun through unplugin's transform
// hook, whose filters (the id a script's, the code holding a marker name of
// an SDK class) rollup 4.40+, rolldown and Vite apply without calling
// JavaScript; webpack and rspack with an 'eval' devtool through their loader
// (lib/plugin/webpack-eval.cjs). The output paths (lib/plugin/outputs.cjs)
// name a file and tell its format as this file does.

const path = require('node:path');
const { rewriteEdits } = require('../shape/rewrite.cjs');
const { BUILT_GLOBAL, PACKAGE_NAME, START_BINDING } = require('../shape/globals.cjs');
const { mayDefineSdkClass, PROTOCOL_MARKERS, STDIO_MARKERS } = require('../adapters/modules.cjs');
const { HEAD, insertAll, insertionMap } = require('./insert.cjs');

/** The id a changed module imports the runtime by; each bundler's room resolves it (never a path). */
const BUILT_ID = `${PACKAGE_NAME}/built`;
/** The id lib/plugin/webpack-start.cjs requires the runtime by (webpack and rspack resolve it to the runtime's file). */
const RUNTIME_ID = `${BUILT_ID}/runtime`;
/** This package's own lib/ folder: none of its modules is transformed. */
const OWN_LIB = path.join(__dirname, '..') + path.sep;
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// A script, by its id (a query or hash after it allowed).
const SCRIPT = /\.[cm]?[jt]sx?(?:[?#].*)?$/;
const NOT_SCRIPT = [/^\0/, /\.d\.[cm]?ts(?:[?#].*)?$/, new RegExp(`^${escape(OWN_LIB)}`)];
// The first marker name of each SDK class kind: a module without one is never handed to the plugin.
const CODE_FILTER = (framing) => new RegExp((framing ? [PROTOCOL_MARKERS[0], STDIO_MARKERS[0]] : [PROTOCOL_MARKERS[0]]).join('|'));
// An ES module's own syntax: an import or export statement at the start of a line.
const ESM_SYNTAX = /(?:^|[\n;])[ \t]*(?:import[ \t]*[\w{*'"]|export[ \t]*[\w{*])/;

/** The filter of an id that matches `id` alone. */
function exactly(id) {
  return new RegExp(`^${escape(id)}$`);
}

/** A module id as a file path: without a query or a loader prefix. */
function fileOf(id) {
  const bare = id.replace(/[?#].*$/, '');
  return bare.slice(bare.lastIndexOf('!') + 1);
}

/** The name a block reports with its class: from the last node_modules/ on, else relative to the working directory, never an absolute path. */
function shownName(file) {
  const posix = file.split(path.sep).join('/');
  const at = posix.lastIndexOf('/node_modules/');
  if (at >= 0) return posix.slice(at + 1);
  const rel = path.relative(process.cwd(), file).split(path.sep).join('/');
  return rel.startsWith('../') || path.isAbsolute(rel) ? path.basename(file) : rel;
}

/** 'module' when the text has ES module syntax (or an .mjs/.mts name), else 'commonjs'. */
function formatBySyntax(code, file) {
  if (/\.m[jt]s$/.test(file)) return 'module';
  if (/\.c[jt]s$/.test(file)) return 'commonjs';
  return ESM_SYNTAX.test(code) ? 'module' : 'commonjs';
}

/** The call of the runtime a changed module starts with, in its format; `addons` (Bun): the addons, required statically. */
function runtimeCall(format, config, addons) {
  const spec = JSON.stringify(BUILT_ID);
  let args = JSON.stringify(config);
  if (addons !== undefined) {
    const embedded = addons.map(({ abi, file }) => `${JSON.stringify(abi)}:()=>require(${JSON.stringify(file.split(path.sep).join('/'))})`);
    args = `{...${args},embedded:{${embedded.join(',')}}}`;
  }
  return format === 'module'
    ? `import ${START_BINDING} from ${spec};${START_BINDING}(${args});`
    : `require(${spec})(${args});`;
}

/**
 * One module transformed: { code, map } (map null unless `withMap`), or null
 * when it is left as it was. `build`: the plugin's BuildState
 * (lib/plugin/build-state.cjs); `context` warns (`context.warn(text)`).
 */
function transformModule(build, context, code, id, withMap) {
  const file = fileOf(id);
  // The first test, before anything else: one scan for the marker names.
  if (!mayDefineSdkClass(code, build.framing)) return null;
  let reached;
  let format;
  try {
    format = formatBySyntax(code, file);
    reached = rewriteEdits(code, shownName(file), format, { global: BUILT_GLOBAL, framing: build.framing, skipSdkScope: false });
  } catch {
    reached = undefined;
  }
  if (reached === undefined) {
    if (build.unreached(code)) context.warn(`${PACKAGE_NAME}: ${file}: an MCP SDK class in it could not be patched at build time; the module is left as it was (nothing at run time will patch it)`);
    return null;
  }
  build.changed = true;
  const missingText = build.missingWarning();
  if (missingText !== undefined) context.warn(missingText);
  const config = build.config();
  const edits = [[HEAD.exec(code)[0].length, runtimeCall(format, config, build.framework === 'bun' ? build.addons() : undefined)], ...reached.edits];
  if (!withMap) return { code: insertAll(code, edits), map: null };
  // The map's source: beside the module (rollup, rolldown and Vite read it relative to the
  // module), the module's path for webpack and rspack (which name it relative to their context).
  const source = build.framework === 'webpack' || build.framework === 'rspack' ? file : path.basename(file);
  return { code: insertAll(code, edits), map: insertionMap(code, edits, source) };
}

/** unplugin's transform hook (rollup, rolldown, Vite, Bun): its filters, and the handler (`this`: the bundler's context, which warns). */
function transformHook(build) {
  return {
    filter: { id: { include: SCRIPT, exclude: NOT_SCRIPT }, code: { include: CODE_FILTER(build.framing) } },
    handler(code, id) {
      return transformModule(build, this, code, id, true);
    },
  };
}

module.exports = { transformModule, transformHook, shownName, formatBySyntax, exactly, BUILT_ID, RUNTIME_ID, OWN_LIB };
