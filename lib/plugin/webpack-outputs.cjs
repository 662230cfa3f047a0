'use strict';
// The plugin in webpack and rspack, as they build by default: their output
// files patched (lib/plugin/outputs.cjs), not each module through a loader.
// A loader is a call into JavaScript for every module its rule matches, and
// a rule cannot ask for a module's content, so a loader that handed every
// script back unchanged still cost each build most of what the plugin costs
// (bench/plugin.mjs measures both bundlers' builds). So each JavaScript asset
// is patched once, after the minimizer (PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE)
// and before the source map is made (DEV_TOOLING) and the content hashed
// (OPTIMIZE_HASH): the insertions go in through webpack-sources'
// ReplaceSource, whose map the bundler composes into the output's; the
// addons are put beside each patched asset.
//
// An 'eval' devtool (webpack's development default: each module's code
// inside an eval string, where an output's classes cannot be reached), or its
// plugin added by hand, keeps the loader (lib/plugin/webpack-eval.cjs), as
// does a build where no runtime bundle can be made.

const fs = require('node:fs');
const path = require('node:path');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');
const { PACKAGE_NAME } = require('../shape/globals.cjs');
const { outputEdits, outputFormatOf, SCRIPT_OUTPUT } = require('./outputs.cjs');
const { runtimeBundle } = require('./runtime-bundle.cjs');
const { setupWebpackEval } = require('./webpack-eval.cjs');

/**
 * Whether the build puts each module into an eval string (the loader is needed then): an 'eval'
 * devtool, or the plugin behind it added by hand (with `devtool: false`, as webpack's docs show).
 */
function evalDevtool(compiler) {
  const { devtool, plugins = [] } = compiler.options;
  if (typeof devtool === 'string' && devtool.includes('eval')) return true;
  const { EvalSourceMapDevToolPlugin, EvalDevToolModulePlugin } = compiler.webpack ?? compiler.rspack;
  return plugins.some((p) => (EvalSourceMapDevToolPlugin && p instanceof EvalSourceMapDevToolPlugin) || (EvalDevToolModulePlugin && p instanceof EvalDevToolModulePlugin));
}

/** The plugin in webpack and rspack: its outputs patched, or the loader (decided once their defaults are in); `build`: its BuildState (lib/plugin/build-state.cjs). */
function webpackPlugin(build) {
  return (compiler) => {
    compiler.hooks.afterEnvironment.tap(PACKAGE_NAME, () => {
      if (evalDevtool(compiler) || runtimeBundle() === undefined) setupWebpackEval(compiler, build);
      else setupWebpackOutputs(compiler, build);
    });
  };
}

/** webpack's or rspack's setup for the plugin's output path; `build`: the plugin's BuildState. */
function setupWebpackOutputs(compiler, build) {
  const { Compilation, sources, WebpackError } = compiler.webpack ?? compiler.rspack;
  compiler.hooks.thisCompilation.tap(PACKAGE_NAME, (compilation) => {
    const stage = Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE + 1;
    compilation.hooks.processAssets.tap({ name: PACKAGE_NAME, stage }, () => {
      const warn = (text) => compilation.warnings.push(new WebpackError(text));
      const dirs = new Set();
      try {
        const format = compiler.options.output?.module === true ? 'esm' : 'cjs';
        const changed = [];
        // The chunks' own files only: an asset another plugin copied in as it was is not the bundler's output.
        const chunkFiles = new Set();
        for (const chunk of compilation.chunks) for (const name of chunk.files) chunkFiles.add(name);
        for (const asset of compilation.getAssets()) {
          if (!chunkFiles.has(asset.name) || !SCRIPT_OUTPUT.test(asset.name)) continue;
          const code = String(asset.source.source());
          if (!mayDefineSdkClass(code, build.framing)) continue;
          const file = path.join(compiler.options.output?.path ?? compiler.context, asset.name);
          const edits = outputEdits(code, file, outputFormatOf(asset.name, format, code), build, undefined, warn);
          if (edits !== undefined) changed.push({ asset, edits });
        }
        for (const { asset, edits } of changed) {
          const replaced = new sources.ReplaceSource(asset.source);
          for (const [offset, text] of edits) replaced.insert(offset, text);
          compilation.updateAsset(asset.name, replaced);
          dirs.add(path.posix.dirname(asset.name));
        }
        if (dirs.size === 0) return;
        const missing = build.missingWarning();
        if (missing !== undefined) warn(missing);
        for (const dir of dirs) {
          for (const { name, file } of build.addons()) {
            const at = dir === '.' ? name : path.posix.join(dir, name);
            if (!compilation.getAsset(at)) compilation.emitAsset(at, new sources.RawSource(fs.readFileSync(file)));
          }
        }
      } catch (error) {
        warn(`${PACKAGE_NAME}: the build's output could not be patched (${error?.message}); it is left as it was`);
      }
    });
  });
}

module.exports = { webpackPlugin };
