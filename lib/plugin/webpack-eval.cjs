'use strict';
// The plugin in webpack and rspack with an 'eval' devtool (webpack's
// development default, or its plugin added by hand: each module's code inside
// an eval string, where no output's classes can be reached), and where no
// runtime bundle can be made: each script through the plugin's own loader
// (lib/plugin/webpack-loader.cjs), put first for every script but this
// package's own files, which runs the first test on the bytes as read,
// undecoded, and hands a module holding an SDK class's marker names to the
// transform (lib/plugin/transform.cjs). The stable id BUILT_ID is an alias of
// lib/plugin/webpack-start.cjs, whose `__filename` webpack makes the output
// file's in either format, and RUNTIME_ID, which it requires, of the runtime
// (lib/plugin/runtime-bundle.cjs's runtimeFile). The addons are emitted as
// assets once the runtime is in the build.

const fs = require('node:fs');
const path = require('node:path');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');
const { PACKAGE_NAME } = require('../shape/globals.cjs');
const { transformModule, BUILT_ID, RUNTIME_ID, OWN_LIB } = require('./transform.cjs');
const { runtimeFile } = require('./runtime-bundle.cjs');

const WEBPACK_START = path.join(__dirname, 'webpack-start.cjs');
const WEBPACK_LOADER = path.join(__dirname, 'webpack-loader.cjs');
// The scripts the loader rule takes.
const SCRIPT_FILE = /\.[cm]?[jt]sx?$/;
/** Each plugin instance's hook, by the id its loader rule carries (loader options stay plain data). */
const LOADER_HOOKS = new Map();

/** @jridgewell/remapping (unplugin's own dependency: where a strict layout does not hoist it, from beside unplugin), or undefined. */
function remapping() {
  try {
    return require('@jridgewell/remapping');
  } catch {
    try {
      return require('node:module').createRequire(require.resolve('unplugin'))('@jridgewell/remapping');
    } catch {
      return undefined;
    }
  }
}

/**
 * What the loader calls for one plugin instance: may(source) (the first
 * test), transform(context, code, id, withMap) (lib/plugin/transform.cjs's
 * transformModule), chain(map, input) (the transform's map composed with the
 * one a previous loader handed on).
 */
function loaderHookOf(build) {
  return {
    may: (source) => mayDefineSdkClass(source, build.framing),
    transform: (context, code, id, withMap) => transformModule(build, context, code, id, withMap),
    chain(map, input) {
      if (!input) return map;
      const compose = remapping();
      return compose === undefined ? map : compose([map, typeof input === 'string' ? JSON.parse(input) : input], () => null);
    },
  };
}

/** The loader's hook of the plugin instance whose loader rule carries `id` (lib/plugin/webpack-loader.cjs). */
function loaderHook(id) {
  return LOADER_HOOKS.get(id);
}

/** BUILT_ID an alias of lib/plugin/webpack-start.cjs, RUNTIME_ID of the runtime's file. */
function aliasBuiltIds(compiler) {
  const resolve = (compiler.options.resolve ??= {});
  const runtime = runtimeFile();
  if (Array.isArray(resolve.alias)) {
    resolve.alias.push({ name: BUILT_ID, alias: WEBPACK_START, onlyModule: true }, { name: RUNTIME_ID, alias: runtime, onlyModule: true });
  } else {
    resolve.alias = { ...resolve.alias, [`${BUILT_ID}$`]: WEBPACK_START, [`${RUNTIME_ID}$`]: runtime };
  }
}

/** webpack's or rspack's setup for the loader; `build`: the plugin's BuildState (lib/plugin/build-state.cjs). */
function setupWebpackEval(compiler, build) {
  const { Compilation, sources } = compiler.webpack ?? compiler.rspack;
  aliasBuiltIds(compiler);
  // The loader, first for every script (this package's own files aside).
  const id = String(LOADER_HOOKS.size + 1);
  LOADER_HOOKS.set(id, loaderHookOf(build));
  const moduleOptions = (compiler.options.module ??= {});
  (moduleOptions.rules ??= []).unshift({
    test: SCRIPT_FILE,
    exclude: [OWN_LIB, /\.d\.[cm]?ts$/],
    enforce: 'pre',
    use: [{ loader: WEBPACK_LOADER, options: { id }, ident: `${PACKAGE_NAME}-${id}` }],
  });
  compiler.hooks.thisCompilation.tap(PACKAGE_NAME, (compilation) => {
    // webpack's "Critical dependency" about this package's own dynamic requires (the loader's
    // platform-package fallback, install()'s transport search): paths a built app never takes.
    compilation.hooks.processWarnings?.tap(PACKAGE_NAME, (warnings) =>
      warnings.filter((w) => !(String(w.module?.resource).startsWith(OWN_LIB) && /Critical dependency/.test(w.message))),
    );
    compilation.hooks.processAssets.tap({ name: PACKAGE_NAME, stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
      let built = build.changed;
      if (!built) {
        for (const m of compilation.modules) {
          if (m.resource === WEBPACK_START) {
            built = true;
            break;
          }
        }
      }
      if (!built) return;
      for (const { name, file } of build.addons()) {
        if (!compilation.getAsset(name)) compilation.emitAsset(name, new sources.RawSource(fs.readFileSync(file)));
      }
    });
  });
}

module.exports = { setupWebpackEval, loaderHook };
