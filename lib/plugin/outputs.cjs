'use strict';
// An output file patched after the bundler made it, instead of each module as
// the bundler loads it: the plugin's way in esbuild (lib/plugin/esbuild.cjs)
// and in webpack and rspack (lib/plugin/webpack-outputs.cjs), whose
// per-module callbacks into JavaScript cost more than the rest of the
// plugin (bench/plugin.mjs measures it). The output gets
// register's rewrite (lib/shape/rewrite.cjs's rewriteEdits: the static blocks
// register inserts at load time into a bundled copy, calling BUILT_GLOBAL;
// each changed class proven alone, as in an ES module: compiling a CommonJS
// bundle whole, as register does at load time, would cost more than the
// build), and at its head the plugin's runtime (lib/plugin/runtime-bundle.cjs:
// lib/plugin/runtime.cjs as one module, in a closure that takes `require`),
// started with the output's own location: `import.meta.url` and a `require`
// made from it in an ES module output (none of `require`, `__filename` or
// `__dirname` is assumed there), `require` and `__filename` in a CommonJS
// one. A second chunk's head finds the global defined and does nothing. The
// insertions add no line.

const { rewriteEdits } = require('../shape/rewrite.cjs');
const { BUILT_GLOBAL, PACKAGE_NAME, START_BINDING } = require('../shape/globals.cjs');
const { warnSource } = require('../warnings/warnings.cjs');
const { HEAD } = require('./insert.cjs');
const { runtimeBundle, BUNDLE } = require('./runtime-bundle.cjs');
const { shownName, formatBySyntax } = require('./transform.cjs');
// An output that runs as JavaScript.
const SCRIPT_OUTPUT = /\.[cm]?js$/;

/** The runtime's code (lib/plugin/runtime-bundle.cjs), made with `esbuild` (the build's own, esbuild builds) if need be. */
function runtimeSource(esbuild) {
  const bundle = runtimeBundle(esbuild);
  if (bundle === undefined) throw new Error(`${PACKAGE_NAME}: the plugin's runtime bundle (${BUNDLE}) is missing and no esbuild could make it`);
  return bundle.code;
}

/** The code an output starts with: the runtime started with where the output is, once per process, never throwing. */
function headOf(runtime, config, esm) {
  const madeRequire = esm
    ? 'globalThis.process?.getBuiltinModule?.("node:module")?.createRequire(import.meta.url)'
    : 'typeof require=="function"?require:void 0';
  const at = esm ? 'import.meta.url' : 'typeof __filename=="string"?__filename:void 0';
  const failed = JSON.stringify(`${PACKAGE_NAME}: the runtime the bundler plugin built into this file did not start, so the MCP SDK in it runs stock: `);
  return `typeof globalThis.${BUILT_GLOBAL}!="function"&&(function(require){try{var ${START_BINDING}=function(module){var exports=module.exports;${runtime};return module.exports}({exports:{}});${START_BINDING}(${JSON.stringify(config)},${at})}` +
    `catch(e){${warnSource('BUILT_START', `${failed}+(e&&e.message)`)}}})(${madeRequire});`;
}

/** 'module' or 'commonjs': what an output file is, by its name, else the build's format ('esm', 'cjs', 'iife'), else its syntax. */
function outputFormatOf(file, format, code) {
  if (file.endsWith('.mjs')) return 'module';
  if (file.endsWith('.cjs')) return 'commonjs';
  if (format === 'esm') return 'module';
  if (format === 'cjs' || format === 'iife') return 'commonjs';
  return formatBySyntax(code, file);
}

/**
 * The insertions that patch one output's SDK classes, the runtime's head
 * first: [[offset, text], ...] in order; undefined when no class can be
 * given its block (`warn` told when one should have been). `build`: the
 * plugin's BuildState (lib/plugin/build-state.cjs); `esbuild`: the build's
 * own, or undefined.
 */
function outputEdits(code, file, format, build, esbuild, warn) {
  const reached = rewriteEdits(code, shownName(file), format, { global: BUILT_GLOBAL, framing: build.framing, skipSdkScope: false, compileWhole: false, perClass: true });
  if (reached === undefined) {
    if (build.unreached(code)) warn(`${PACKAGE_NAME}: ${file}: an MCP SDK class in it could not be patched at build time; the output is left as it was (nothing at run time will patch it)`);
    return undefined;
  }
  const head = headOf(runtimeSource(esbuild), build.config(), format === 'module');
  return [[HEAD.exec(code)[0].length, head], ...reached.edits];
}

module.exports = { outputEdits, outputFormatOf, SCRIPT_OUTPUT };
