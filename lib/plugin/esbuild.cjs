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
// which the plugin then turns on: a cost of its own, in bench/plugin.mjs's
// esbuild rows) that holds an SDK class is patched as lib/plugin/outputs.cjs
// patches an output. The output's
// source map (a `.map` file, an inline one, or both) has its columns moved by
// what was inserted before them on the line (lib/plugin/insert.cjs): the rest
// of esbuild's map, which already carries each module's own map, stays as it
// was.

const fs = require('node:fs');
const path = require('node:path');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');
const { insertAll, shiftMap, MAP_URL_COMMENT } = require('./insert.cjs');
const { PACKAGE_NAME } = require('../shape/globals.cjs');
const { outputEdits, outputFormatOf, SCRIPT_OUTPUT } = require('./outputs.cjs');

/** The bytes of a file esbuild made: Buffer over its contents (an output file of the result) or read from disk. */
function bytesView(contents) {
  return Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength);
}

/** esbuild's setup for the plugin; `state`: the plugin's BuildState (lib/plugin/build-state.cjs). */
function setupEsbuild(build, state) {
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
        if (!mayDefineSdkClass(bytes, state.framing)) continue;
        const code = bytes.toString('utf8');
        if (browser) {
          if (state.unreached(code)) warnings.push({ text: `${PACKAGE_NAME}: ${output.path}: a browser build is left as it was (the fix runs on Node, Bun and Deno: build for platform 'node')` });
          continue;
        }
        const format = outputFormatOf(output.path, options.format, code);
        const edits = outputEdits(code, output.path, format, state, build.esbuild, (text) => warnings.push({ text }));
        if (edits === undefined) continue;
        changed.push({ output, code, edits, text: insertAll(code, edits) });
      }
      if (changed.length === 0) return undefined;
      const missing = state.missingWarning();
      if (missing !== undefined) warnings.push({ text: missing });
      for (const { output, code, edits, text } of changed) await replaceOutput(output, code, edits, text, files, result, workingDir);
      state.copyAddons(changed.map(({ output }) => path.dirname(output.path)));
      return undefined;
    } catch (error) {
      warnings.push({ text: `${PACKAGE_NAME}: the build's output could not be patched (${error?.message}); it is left as it was` });
      return undefined;
    } finally {
      if (!askedMetafile) delete result.metafile;
      if (warnings.length > 0) report(build, warnings);
      result.warnings.push(...warnings.map((w) => ({ id: '', pluginName: PACKAGE_NAME, location: null, notes: [], detail: undefined, ...w })));
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
    const formatted = build.esbuild.formatMessagesSync(warnings.map((w) => ({ ...w, pluginName: PACKAGE_NAME })), { kind: 'warning', color: build.initialOptions.color ?? process.stderr.isTTY });
    process.stderr.write(formatted.join(''));
  } catch {
    for (const w of warnings) process.stderr.write(`▲ [WARNING] ${w.text}\n`);
  }
}

module.exports = { setupEsbuild };
