'use strict';
// The bundler plugin: `mcp-ordered-dispatch/esbuild`, `/rollup`, `/rolldown`,
// `/vite`, `/webpack`, `/rspack`, `/bun`, one implementation on unplugin. On
// every module the bundler loads (node_modules included, CommonJS and ES
// modules, chunks a dependency bundled already) it runs register's rewrite
// rule (lib/shape/rewrite.cjs's rewriteEdits) with the build-time global
// (BUILT_GLOBAL): each SDK class gets a static block that reports it to the class receiver as
// it is defined, and the module starts with a call of the runtime
// (lib/plugin/runtime.cjs, which the build takes as one prebuilt module:
// lib/plugin/runtime-bundle.cjs), which defines that global and tells the
// native loader where the build put the addon. The transform returns the
// insertions' source map (lib/plugin/insert.cjs's insertionMap). A module without the
// SDK is returned unchanged; a module whose SDK class cannot be given its
// block is left as it was, with one build warning naming it.
//
// What a bundler calls JavaScript for: the transform hook carries filters
// (the id a script's, the code holding a marker name of an SDK class) that
// rollup 4.40+, rolldown and Vite apply without calling the plugin. esbuild,
// which can filter by path only, and webpack and rspack, whose loader rules
// cannot look at the code, call no JavaScript per module: the plugin patches
// their output files once (lib/plugin/outputs.cjs; lib/plugin/esbuild.cjs as
// the build ends, lib/plugin/webpack-outputs.cjs after the minimizer), with
// the runtime at each patched output's head. Only webpack and rspack with an
// 'eval' devtool (modules inside eval strings) take the transform through
// their loader (lib/plugin/webpack-loader.cjs), for each script, where the
// first test is one scan of the bytes as read, undecoded.
//
// The runtime is reached through one stable id, BUILT_ID, which the plugin
// resolves itself (no path of the build machine goes into the output): in
// rollup, rolldown and Vite to a virtual module that hands the runtime the
// output file's own `import.meta.url` (the bundler rewrites it for a
// CommonJS output); in webpack's and rspack's loader (an alias) to
// lib/plugin/webpack-start.cjs, whose `__filename` webpack makes the output
// file's in either format (and RUNTIME_ID, which it requires, to the
// runtime); in Bun to the runtime (the addon is embedded).
//
// The addon in the artifact: the `.node` of each platform in `platforms`
// (default: this machine's), from its platform package (or a clone's local
// build), is written beside every output (esbuild: each output file's
// directory, written or not - tsup writes them itself; rollup, rolldown: an
// asset; webpack, rspack: an asset beside each patched output; Vite: copied
// into its outDir at write time) -
// or, with Bun, required statically so that `bun build` copies it and
// `bun build --compile` embeds it.

const fs = require('node:fs');
const path = require('node:path');
const platform = require('../native/platform.cjs');
const { rewriteEdits } = require('../shape/rewrite.cjs');
const { BUILT_GLOBAL, START_BINDING } = require('../shape/globals.cjs');
const { mayDefineSdkClass, PROTOCOL_MARKERS, STDIO_MARKERS } = require('../adapters/modules.cjs');
const { HEAD, insertAll, insertionMap } = require('./insert.cjs');
const { setupEsbuild } = require('./esbuild.cjs');
const { setupWebpackOutputs, evalDevtool } = require('./webpack-outputs.cjs');
const { runtimeFile, runtimeBundle } = require('./runtime-bundle.cjs');

const NAME = 'mcp-ordered-dispatch';
const OWN_ROOT = path.join(__dirname, '..', '..');
const OWN_LIB = path.join(OWN_ROOT, 'lib') + path.sep;
const WEBPACK_START = path.join(__dirname, 'webpack-start.cjs');
const WEBPACK_LOADER = path.join(__dirname, 'webpack-loader.cjs');
/** Each webpack or rspack plugin instance's transform, by the id its loader rule carries (loader options stay plain data). */
const LOADER_HOOKS = new Map();
/** The id a changed module imports the runtime by; the plugin resolves it (never a path). */
const BUILT_ID = `${NAME}/built`;
/** The id lib/plugin/webpack-start.cjs requires the runtime by (webpack and rspack resolve it to the runtime's file). */
const RUNTIME_ID = `${BUILT_ID}/runtime`;
const VIRTUAL = `\0${BUILT_ID}`;
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const BUILT_ID_FILTER = new RegExp(`^${escape(BUILT_ID)}$`);
const VIRTUAL_FILTER = new RegExp(`^${escape(VIRTUAL)}$`);
// A script, by its id (a query or hash after it allowed).
const SCRIPT = /\.[cm]?[jt]sx?(?:[?#].*)?$/;
const NOT_SCRIPT = [/^\0/, /\.d\.[cm]?ts(?:[?#].*)?$/, new RegExp(`^${escape(OWN_LIB)}`)];
// The first marker name of each SDK class kind: a module without one is never handed to the plugin.
const CODE_FILTER = (framing) => new RegExp((framing ? [PROTOCOL_MARKERS[0], STDIO_MARKERS[0]] : [PROTOCOL_MARKERS[0]]).join('|'));
// An ES module's own syntax: an import or export statement at the start of a line.
const ESM_SYNTAX = /(?:^|[\n;])[ \t]*(?:import[ \t]*[\w{*'"]|export[ \t]*[\w{*])/;
// The scripts webpack's and rspack's loader rule takes.
const SCRIPT_FILE = /\.[cm]?[jt]sx?$/;

/** The platform names (napi-rs's platformArchABI) the build includes: `platforms` as given, 'all' (every release target), default this machine's. */
function platformsOf(option) {
  if (option === undefined) return [platform.platformArchABI()];
  if (option === 'all') return platform.targets().map(platform.tripleToAbi);
  if (!Array.isArray(option) || option.some((p) => typeof p !== 'string')) {
    throw new TypeError(`${NAME}: the platforms option is 'all' or an array of platform names such as 'linux-x64-gnu', got ${JSON.stringify(option)}`);
  }
  return [...new Set(option)];
}

/** The `.node` file of platform `abi` where the build runs (MCP_ORDERED_DISPATCH_NATIVE for this machine, a clone's local build, the platform package), or undefined. */
function addonFileFor(abi) {
  if (abi === platform.platformArchABI() && process.env[platform.ENV_OVERRIDE]) return path.resolve(process.env[platform.ENV_OVERRIDE]);
  const local = platform.localBuildPath(abi);
  if (fs.existsSync(local)) return local;
  try {
    const pkg = require.resolve(`${platform.platformPackageName(abi)}/package.json`, { paths: [OWN_ROOT, process.cwd()] });
    const file = path.join(path.dirname(pkg), platform.binaryFileName(abi));
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
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
function moduleFormatOf(code, file) {
  if (/\.m[jt]s$/.test(file)) return 'module';
  if (/\.c[jt]s$/.test(file)) return 'commonjs';
  return ESM_SYNTAX.test(code) ? 'module' : 'commonjs';
}

/** The call of the runtime a changed module starts with, in its format; `embedded`: Bun's static requires of the addons. */
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

/** The virtual module BUILT_ID resolves to (rollup, rolldown, Vite): the runtime's start, handed the output file's `import.meta.url`. */
function virtualModule() {
  const runtime = JSON.stringify(runtimeFile().split(path.sep).join('/'));
  return `import start from ${runtime};\nexport default function built(config) { start(config, import.meta.url); }\n`;
}

/**
 * The unplugin factory. `options`: platforms (see platformsOf), framing
 * (native stdio framing in the built app; default true).
 */
function factory(options = {}, meta = {}) {
  const platforms = platformsOf(options.platforms);
  const framing = options.framing !== false;
  const framework = meta.framework;
  const bun = framework === 'bun';
  let addons; // [{ abi, name, file }] of the platforms found, looked up once
  const missing = [];
  let changedAny = false;
  let warnedMissing = false;

  function findAddons() {
    if (addons !== undefined) return addons;
    addons = [];
    for (const abi of platforms) {
      const file = addonFileFor(abi);
      if (file === undefined) missing.push(abi);
      else addons.push({ abi, name: platform.binaryFileName(abi), file });
    }
    return addons;
  }

  /** Copy the addons into each of `dirs` (an output's directory). */
  function copyAddons(dirs) {
    for (const dir of new Set(dirs)) {
      fs.mkdirSync(dir, { recursive: true });
      for (const { name, file } of findAddons()) fs.copyFileSync(file, path.join(dir, name));
    }
  }

  /** The build warning about platforms without an addon: its text the first time (once the addons are looked up), else undefined. */
  function missingWarning() {
    findAddons();
    if (missing.length === 0 || warnedMissing) return undefined;
    warnedMissing = true;
    return `${NAME}: no addon for ${missing.join(', ')} to put in the build (looked for the platform package ` +
      `${missing.map((abi) => platform.platformPackageName(abi)).join(', ')} and a local build); the built app runs stock there. ` +
      'Install the platform package (npm install --force <name>) where the build runs, or leave the platform out.';
  }

  /** What a changed module (or output) hands the runtime: the platforms the build includes, framing. */
  function runtimeConfig() {
    return { platforms: findAddons().map((a) => a.abi), framing };
  }

  /** The transform (unplugin's, rollup's `this`): { code, map } or null. */
  function transform(code, id) {
    return change(this, code, id, true);
  }

  /** { code, map } (map null unless `withMap`) or null; `context` warns. */
  function change(context, code, id, withMap) {
    const file = fileOf(id);
    // The first test, before anything else: one scan for the marker names.
    if (!mayDefineSdkClass(code, framing)) return null;
    let reached;
    let format;
    try {
      format = moduleFormatOf(code, file);
      reached = rewriteEdits(code, shownName(file), format, { global: BUILT_GLOBAL, framing, skipSdkScope: false });
    } catch {
      reached = undefined;
    }
    if (reached === undefined) {
      if (failedToReach(code, framing)) context.warn(`${NAME}: ${file}: an MCP SDK class in it could not be patched at build time; the module is left as it was (nothing at run time will patch it)`);
      return null;
    }
    changedAny = true;
    const missingText = missingWarning();
    if (missingText !== undefined) context.warn(missingText);
    const edits = [[HEAD.exec(code)[0].length, runtimeCall(format, runtimeConfig(), bun ? addons : undefined)], ...reached.edits];
    if (!withMap) return { code: insertAll(code, edits), map: null };
    // The map's source: beside the module (rollup, rolldown and Vite read it relative to the
    // module), the module's path for webpack and rspack (which name it relative to their context).
    const source = framework === 'webpack' || framework === 'rspack' ? file : path.basename(file);
    return { code: insertAll(code, edits), map: insertionMap(code, edits, source) };
  }

  /** What patching an output file takes (esbuild, webpack, rspack: lib/plugin/outputs.cjs). */
  const outputPatching = {
    framing,
    config: runtimeConfig,
    missingWarning,
    unreached: (code) => failedToReach(code, framing),
    shownName,
    moduleFormatOf,
  };

  /** rollup, rolldown and Vite: BUILT_ID as the virtual module, the addons as assets when the runtime is in the bundle. */
  const rollupLike = {
    resolveId: { filter: { id: BUILT_ID_FILTER }, handler: (id) => (id === BUILT_ID ? VIRTUAL : null) },
    load: { filter: { id: VIRTUAL_FILTER }, handler: (id) => (id === VIRTUAL ? virtualModule() : null) },
  };

  function builtHere(context) {
    return changedAny || [...context.getModuleIds()].some((id) => id === VIRTUAL);
  }

  return {
    name: NAME,
    enforce: 'pre',
    // esbuild, webpack and rspack: their outputs patched, or the loader (the first test on the file's bytes, undecoded).
    transform: framework === 'esbuild' || framework === 'webpack' || framework === 'rspack' ? undefined : {
      filter: { id: { include: SCRIPT, exclude: NOT_SCRIPT }, code: { include: CODE_FILTER(framing) } },
      handler: transform,
    },
    // esbuild: the output files rewritten once, as the build ends (lib/plugin/esbuild.cjs).
    esbuild: {
      setup(build) {
        setupEsbuild(build, { ...outputPatching, copyAddons });
      },
    },
    rollup: { ...rollupLike, generateBundle: emitForRollup },
    rolldown: { ...rollupLike, generateBundle: emitForRollup },
    // Vite: copied at write time (an SSR build, the one for Node, emits no assets unless build.ssrEmitAssets).
    vite: {
      ...rollupLike,
      writeBundle(outputOptions) {
        if (!builtHere(this)) return;
        const dir = outputOptions.dir ?? (outputOptions.file && path.dirname(outputOptions.file));
        if (dir) copyAddons([path.resolve(dir)]);
      },
    },
    bun: {
      setup(build) {
        build.onResolve({ filter: BUILT_ID_FILTER }, () => ({ path: runtimeFile() }));
      },
    },
    webpack: webpackOrRspack,
    rspack: webpackOrRspack,
  };

  /** rollup and rolldown: the addons as assets, when the runtime is in the bundle. */
  function emitForRollup() {
    if (!builtHere(this)) return;
    for (const { name, file } of findAddons()) this.emitFile({ type: 'asset', fileName: name, source: fs.readFileSync(file) });
  }

  /** webpack and rspack: their outputs patched (lib/plugin/webpack-outputs.cjs), but for an 'eval' devtool (decided once their defaults are in). */
  function webpackOrRspack(compiler) {
    compiler.hooks.afterEnvironment.tap(NAME, () => {
      if (evalDevtool(compiler) || runtimeBundle() === undefined) webpackLoader(compiler);
      else setupWebpackOutputs(compiler, { ...outputPatching, addons: findAddons });
    });
  }

  /** webpack and rspack with an 'eval' devtool: the loader; BUILT_ID an alias of lib/plugin/webpack-start.cjs; the addons as assets. */
  function webpackLoader(compiler) {
    const { Compilation, sources } = compiler.webpack ?? compiler.rspack;
    const resolve = (compiler.options.resolve ??= {});
    const runtime = runtimeFile();
    if (Array.isArray(resolve.alias)) {
      resolve.alias.push({ name: BUILT_ID, alias: WEBPACK_START, onlyModule: true }, { name: RUNTIME_ID, alias: runtime, onlyModule: true });
    } else {
      resolve.alias = { ...resolve.alias, [`${BUILT_ID}$`]: WEBPACK_START, [`${RUNTIME_ID}$`]: runtime };
    }
    // The loader, first for every script (this package's own files aside).
    const id = String(LOADER_HOOKS.size + 1);
    LOADER_HOOKS.set(id, {
      change,
      may: (source) => mayDefineSdkClass(source, framing),
      chain(map, input) {
        if (!input) return map;
        const compose = remapping();
        return compose === undefined ? map : compose([map, typeof input === 'string' ? JSON.parse(input) : input], () => null);
      },
    });
    const moduleOptions = (compiler.options.module ??= {});
    (moduleOptions.rules ??= []).unshift({
      test: SCRIPT_FILE,
      exclude: [OWN_LIB, /\.d\.[cm]?ts$/],
      enforce: 'pre',
      use: [{ loader: WEBPACK_LOADER, options: { id }, ident: `${NAME}-${id}` }],
    });
    compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
      // webpack's "Critical dependency" about this package's own dynamic requires (the loader's
      // platform-package fallback, install()'s transport search): paths a built app never takes.
      compilation.hooks.processWarnings?.tap(NAME, (warnings) =>
        warnings.filter((w) => !(String(w.module?.resource).startsWith(OWN_LIB) && /Critical dependency/.test(w.message))),
      );
      compilation.hooks.processAssets.tap({ name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
        let built = changedAny;
        if (!built) {
          for (const m of compilation.modules) {
            if (m.resource === WEBPACK_START) {
              built = true;
              break;
            }
          }
        }
        if (!built) return;
        for (const { name, file } of findAddons()) {
          if (!compilation.getAsset(name)) compilation.emitAsset(name, new sources.RawSource(fs.readFileSync(file)));
        }
      });
    });
  }
}

/**
 * Whether a module left unchanged holds an SDK class it should have had a
 * block in (a failure to warn about), not merely none or one patched at build time already.
 */
function failedToReach(code, framing) {
  try {
    const { hasBlock } = require('../shape/blocks.cjs');
    const found = require('../shape/sdk-classes.cjs').sdkClassesIn(code) ?? [];
    return found.some((cls) => (framing || cls.kind === 'protocol') && !hasBlock(code, cls.open, [BUILT_GLOBAL]));
  } catch {
    return false;
  }
}

let unplugin;

/**
 * A build-time package the plugin needs (an optional peer dependency:
 * nothing a user of register downloads), or a thrown error saying what to
 * install; `load: false`: only found, not loaded.
 */
function peer(name, bundler, { load = true } = {}) {
  try {
    return load ? require(name) : require.resolve(name);
  } catch (cause) {
    throw new Error(
      `${NAME}/${bundler} needs the ${name} package (an optional peer dependency of ${NAME}, used at build time only): ` +
        'install it beside your bundler, e.g. `npm install --save-dev unplugin magic-string`.',
      { cause },
    );
  }
}

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

/** The plugin for `bundler` ('esbuild', 'rollup', 'rolldown', 'vite', 'webpack', 'rspack', 'bun'): its factory, `mcpOrderedDispatch(options)` (unplugin's, but for esbuild). */
function entry(bundler) {
  const make = (options) => {
    // esbuild's plugin is its setup alone (lib/plugin/esbuild.cjs): unplugin, whose adapter would only
    // wrap it, is not loaded (loading it measured 33 ms of each build's process, 10% of the bench's build).
    if (bundler === 'esbuild') return { name: NAME, setup: factory(options, { framework: 'esbuild' }).esbuild.setup };
    if (unplugin === undefined) {
      const { createUnplugin } = peer('unplugin', bundler);
      // Its source map codec writes the transform's maps (lib/plugin/insert.cjs).
      peer('magic-string', bundler, { load: false });
      unplugin = createUnplugin(factory);
    }
    return unplugin[bundler](options);
  };
  Object.defineProperty(make, 'name', { value: 'mcpOrderedDispatch' });
  return make;
}

/** The transform of the webpack or rspack plugin instance whose loader rule carries `id` (lib/plugin/webpack-loader.cjs). */
function loaderHook(id) {
  return LOADER_HOOKS.get(id);
}

module.exports = { entry, factory, loaderHook, platformsOf, addonFileFor, shownName, BUILT_ID };
