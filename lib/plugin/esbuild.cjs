'use strict';
// The plugin in esbuild (and tsup, which runs esbuild): the output files are
// rewritten once, as the build ends, instead of each module as esbuild loads
// it. esbuild calls a plugin's on-load callback in JavaScript for every
// module its filter (a path pattern: never the code) matches, so a per-module
// plugin costs every build a round trip per module; an output file is one
// scan for the marker names, and the rest only when it holds an SDK class.
//
// At the end of a build without errors, each JavaScript output file (from
// result.outputFiles with write: false, as tsup builds; else the `outfile`
// written, or the files written to `outdir`, named by the build's metafile,
// which the plugin then turns on: about 9% of a build) that holds an
// SDK class gets register's rewrite (lib/shape/rewrite.cjs's rewriteEdits:
// the same static blocks register inserts at load time into a bundled copy,
// calling BUILT_GLOBAL; each changed class proven alone, as in an ES module:
// compiling a CommonJS bundle whole, as register does at load time, would
// cost more than the build), and at its head the plugin's runtime
// (lib/plugin/runtime-bundle.cjs: lib/plugin/runtime.cjs as one module,
// in a closure that takes `require`), started with the output's own
// location: `import.meta.url` and a `require` made from it in an ES module
// output (none of `require`, `__filename` or `__dirname` is assumed there),
// `require` and `__filename` in a CommonJS one. A second chunk's head finds
// the global defined and does nothing. The insertions add no line, and the
// output's source map (a `.map` file, an inline one, or both) has its columns
// moved by what was inserted before them on the line (lib/plugin/insert.cjs):
// the rest of esbuild's map, which already carries each module's own map,
// stays as it was.

const fs = require('node:fs');
const path = require('node:path');
const { rewriteEdits } = require('../shape/rewrite.cjs');
const { BUILT_GLOBAL, START_BINDING } = require('../shape/globals.cjs');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');
const { insertAll, shiftMap, MAP_URL_COMMENT, HEAD } = require('./insert.cjs');
const { runtimeBundle, BUNDLE } = require('./runtime-bundle.cjs');

const NAME = 'mcp-ordered-dispatch';
// An output that runs as JavaScript.
const SCRIPT_OUTPUT = /\.[cm]?js$/;

/** The runtime's code (lib/plugin/runtime-bundle.cjs), made with the build's own esbuild if need be. */
function runtimeSource(esbuild) {
  const bundle = runtimeBundle(esbuild);
  if (bundle === undefined) throw new Error(`${NAME}: the plugin's runtime bundle (${BUNDLE}) is missing and no esbuild could make it`);
  return bundle.code;
}

/** The code an output starts with: the runtime started with where the output is, once per process, never throwing. */
function headOf(runtime, config, esm) {
  const madeRequire = esm
    ? 'globalThis.process?.getBuiltinModule?.("node:module")?.createRequire(import.meta.url)'
    : 'typeof require=="function"?require:void 0';
  const at = esm ? 'import.meta.url' : 'typeof __filename=="string"?__filename:void 0';
  const failed = JSON.stringify(`${NAME}: the runtime the bundler plugin built into this file did not start, so the MCP SDK in it runs stock: `);
  return `typeof globalThis.${BUILT_GLOBAL}!="function"&&(function(require){try{var ${START_BINDING}=function(module){var exports=module.exports;${runtime};return module.exports}({exports:{}});${START_BINDING}(${JSON.stringify(config)},${at})}` +
    `catch(e){globalThis.process?.emitWarning?.(${failed}+(e&&e.message),{type:"NativeAddonWarning",code:"MCP_ORDERED_DISPATCH_BUILT_START"})}})(${madeRequire});`;
}

/** 'module' or 'commonjs': what an output file is, by its name, else the build's format, else its syntax. */
function outputFormatOf(file, format, code, moduleFormatOf) {
  if (file.endsWith('.mjs')) return 'module';
  if (file.endsWith('.cjs')) return 'commonjs';
  if (format === 'esm') return 'module';
  if (format === 'cjs' || format === 'iife') return 'commonjs';
  return moduleFormatOf(code, file);
}

/** The bytes of a file esbuild made: Buffer over its contents (an output file of the result) or read from disk. */
function bytesView(contents) {
  return Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
}

/**
 * esbuild's setup for the plugin. `plugin`: framing, config() ({ platforms,
 * framing } for the runtime; looks the addons up), copyAddons(dirs),
 * missingWarning() (text once, or undefined), unreached(code) (whether an
 * unchanged output holds an SDK class it should have reached), shownName(file),
 * moduleFormatOf(code, file).
 */
function setupEsbuild(build, plugin) {
  const options = build.initialOptions;
  // The names of the files a build writes to a directory: its metafile (turned on here; kept in the result only if asked for).
  const askedMetafile = options.metafile === true;
  if (options.write !== false && !options.outfile) options.metafile = true;
  const workingDir = options.absWorkingDir ?? process.cwd();
  const browser = options.platform === 'browser';

  build.onEnd(async (result) => {
    const warnings = [];
    try {
      if (result.errors.length > 0) return undefined;
      const files = outputsOf(result, options, workingDir);
      const changed = [];
      for (const output of files.filter((f) => SCRIPT_OUTPUT.test(f.path))) {
        const bytes = output.contents === undefined ? await fs.promises.readFile(output.path) : bytesView(output.contents);
        if (!mayDefineSdkClass(bytes, plugin.framing)) continue;
        const code = bytes.toString('utf8');
        if (browser) {
          if (plugin.unreached(code)) warnings.push({ text: `${NAME}: ${output.path}: a browser build is left as it was (the fix runs on Node, Bun and Deno: build for platform 'node')` });
          continue;
        }
        const format = outputFormatOf(output.path, options.format, code, plugin.moduleFormatOf);
        const reached = rewriteEdits(code, plugin.shownName(output.path), format, { global: BUILT_GLOBAL, framing: plugin.framing, skipSdkScope: false, compileWhole: false, perClass: true });
        if (reached === undefined) {
          if (plugin.unreached(code)) warnings.push({ text: `${NAME}: ${output.path}: an MCP SDK class in it could not be patched at build time; the output is left as it was (nothing at run time will patch it)` });
          continue;
        }
        const head = headOf(runtimeSource(build.esbuild), plugin.config(), format === 'module');
        const edits = [[HEAD.exec(code)[0].length, head], ...reached.edits];
        changed.push({ output, code, edits, text: insertAll(code, edits) });
      }
      if (changed.length === 0) return undefined;
      const missing = plugin.missingWarning();
      if (missing !== undefined) warnings.push({ text: missing });
      for (const { output, code, edits, text } of changed) await replaceOutput(output, code, edits, text, files, result, workingDir);
      plugin.copyAddons(changed.map(({ output }) => path.dirname(output.path)));
      return undefined;
    } catch (error) {
      warnings.push({ text: `${NAME}: the build's output could not be patched (${error?.message}); it is left as it was` });
      return undefined;
    } finally {
      if (!askedMetafile) delete result.metafile;
      if (warnings.length > 0) report(build, warnings);
      result.warnings.push(...warnings.map((w) => ({ id: '', pluginName: NAME, location: null, notes: [], detail: undefined, ...w })));
    }
  });
}

/** The build's output files: [{ path, contents? }] (contents: the result's own, with write: false). */
function outputsOf(result, options, workingDir) {
  if (result.outputFiles !== undefined) return result.outputFiles;
  if (options.outfile) {
    const file = path.resolve(workingDir, options.outfile);
    return [{ path: file }, ...(fs.existsSync(`${file}.map`) ? [{ path: `${file}.map` }] : [])];
  }
  return Object.keys(result.metafile?.outputs ?? {}).map((rel) => ({ path: path.resolve(workingDir, rel), rel }));
}

/** Put `text` (`code` with `edits`) in place of the output, and move the columns of its source maps (a `.map` beside it, an inline one). */
async function replaceOutput(output, code, edits, text, files, result, workingDir) {
  let out = text;
  const inline = MAP_URL_COMMENT.exec(out);
  if (inline !== null && inline[1].startsWith('data:')) {
    const data = /^data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]*)$/.exec(inline[1]);
    if (data !== null) {
      const map = shiftMap(JSON.parse(Buffer.from(data[1], 'base64').toString('utf8')), code, edits);
      const url = `data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;
      out = out.slice(0, inline.index) + inline[0].replace(inline[1], url) + out.slice(inline.index + inline[0].length);
    }
  }
  await write(output, out, result, workingDir);
  const mapFile = files.find((f) => f.path === `${output.path}.map`);
  if (mapFile !== undefined) {
    const bytes = mapFile.contents === undefined ? await fs.promises.readFile(mapFile.path) : bytesView(mapFile.contents);
    const map = shiftMap(JSON.parse(bytes.toString('utf8')), code, edits);
    await write(mapFile, JSON.stringify(map), result, workingDir);
  }
}

/** Write `text` as `file`: into the result's output file (its hash made anew from the new bytes), or to disk (and its size into the metafile). */
async function write(file, text, result, workingDir) {
  const bytes = Buffer.from(text, 'utf8');
  if (file.contents !== undefined) {
    file.contents = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if ('hash' in file) file.hash = require('node:crypto').createHash('sha256').update(bytes).digest('base64url').slice(0, 11);
    return;
  }
  await fs.promises.writeFile(file.path, bytes);
  const meta = result.metafile?.outputs?.[file.rel ?? path.relative(workingDir, file.path)];
  if (meta !== undefined) meta.bytes = bytes.length;
}

/** Print the plugin's warnings as esbuild prints its own, at its log level (warnings returned from an end callback are not printed by esbuild). */
function report(build, warnings) {
  const level = build.initialOptions.logLevel ?? 'warning';
  if (!['verbose', 'debug', 'info', 'warning'].includes(level)) return;
  try {
    const formatted = build.esbuild.formatMessagesSync(warnings.map((w) => ({ ...w, pluginName: NAME })), { kind: 'warning', color: build.initialOptions.color ?? process.stderr.isTTY });
    process.stderr.write(formatted.join(''));
  } catch {
    for (const w of warnings) process.stderr.write(`▲ [WARNING] ${w.text}\n`);
  }
}

module.exports = { setupEsbuild };
