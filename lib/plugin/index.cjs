'use strict';
// The bundler plugin: `mcp-ordered-dispatch/esbuild`, `/rollup`, `/vite`,
// `/webpack`, `/bun`, one implementation on unplugin. On every module the
// bundler loads (node_modules included, CommonJS and ES modules, chunks a
// dependency bundled already) it runs register's rewrite rule
// (lib/shape/reach.cjs's reachSource) with the build-time global
// (BUILT_GLOBAL): each SDK class gets a static block that hands it over as
// it is defined, and the module starts with a call of lib/plugin/runtime.cjs,
// which defines that global and tells the native loader where the build put
// the addon. A module without the SDK is returned unchanged; a module whose
// SDK class cannot be given its block is left as it was, with one build
// warning naming it (nothing at run time will patch it).
//
// The addon in the artifact: the `.node` of each platform in `platforms`
// (default: this machine's), from its platform package (or a clone's local
// build), is written beside the output (esbuild: the outdir; rollup and
// webpack: an asset; Vite: copied into its outDir) - or, with Bun, required statically so
// that `bun build` copies it and `bun build --compile` embeds it.

const fs = require('node:fs');
const path = require('node:path');
const platform = require('../native/platform.cjs');
const { reachSource, BUILT_GLOBAL } = require('../shape/reach.cjs');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');

const NAME = 'mcp-ordered-dispatch';
const OWN_ROOT = path.join(__dirname, '..', '..');
const OWN_LIB = path.join(OWN_ROOT, 'lib') + path.sep;
const RUNTIME = path.join(__dirname, 'runtime.cjs');
const SCRIPT = /\.[cm]?[jt]sx?$/;
// An ES module's own syntax: an import or export statement at the start of a line.
const ESM_SYNTAX = /(?:^|[\n;])[ \t]*(?:import[ \t]*[\w{*'"]|export[ \t]*[\w{*])/;
// A module's head: a hashbang, comments, and a "use strict" directive the call must stay behind.
const HEAD = /^(?:#![^\n]*\n)?(?:\s*(?:\/\/[^\n]*|\/\*[\s\S]*?\*\/))*\s*(?:(['"])use strict\1[ \t]*;?)?/;

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

/** 'module' when the text has ES module syntax (or an .mjs/.mts name), else 'commonjs'. */
function formatOf(code, file) {
  if (/\.m[jt]s$/.test(file)) return 'module';
  if (/\.c[jt]s$/.test(file)) return 'commonjs';
  return ESM_SYNTAX.test(code) ? 'module' : 'commonjs';
}

/** The call of the runtime a changed module starts with, in its format; `embedded`: Bun's static requires of the addons. */
function runtimeCall(format, config, addons) {
  const spec = JSON.stringify(RUNTIME.split(path.sep).join('/'));
  let args = JSON.stringify(config);
  if (addons !== undefined) {
    const embedded = addons.map(({ abi, file }) => `${JSON.stringify(abi)}:()=>require(${JSON.stringify(file.split(path.sep).join('/'))})`);
    args = `{...${args},embedded:{${embedded.join(',')}}}`;
  }
  return format === 'module'
    ? `import __mcpOrderedDispatchStart from ${spec};__mcpOrderedDispatchStart(${args});`
    : `require(${spec})(${args});`;
}

/** `code` with `call` after its hashbang, leading comments and "use strict" directive (on the same line: line numbers stay). */
function withCall(code, call) {
  const head = HEAD.exec(code)[0];
  return head + call + code.slice(head.length);
}

/**
 * The unplugin factory. `options`: platforms (see platformsOf), framing
 * (native stdio framing in the built app; default true).
 */
function factory(options = {}, meta = {}) {
  const platforms = platformsOf(options.platforms);
  const framing = options.framing !== false;
  const bun = meta.framework === 'bun';
  let addons; // [{ abi, name, file }] of the platforms found, looked up once
  let missing = [];
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

  /** Copy the addons into `dir` (esbuild's outdir). */
  function copyAddons(dir) {
    fs.mkdirSync(dir, { recursive: true });
    for (const { name, file } of findAddons()) fs.copyFileSync(file, path.join(dir, name));
  }

  function transform(code, id) {
    const file = fileOf(id);
    let changed;
    let format;
    try {
      format = formatOf(code, file);
      const rel = path.relative(process.cwd(), file).split(path.sep).join('/');
      changed = reachSource(code, rel, format, { global: BUILT_GLOBAL, framing, skipSdkScope: false });
    } catch {
      changed = undefined;
    }
    if (changed === undefined) {
      if (failedToReach(code, framing)) this.warn(`${NAME}: ${file}: an MCP SDK class in it could not be patched at build time; the module is left as it was (nothing at run time will patch it)`);
      return null;
    }
    changedAny = true;
    findAddons();
    if (missing.length > 0 && !warnedMissing) {
      warnedMissing = true;
      this.warn(
        `${NAME}: no addon for ${missing.join(', ')} to put in the build (looked for the platform package ` +
          `${missing.map((abi) => platform.platformPackageName(abi)).join(', ')} and a local build); the built app runs stock there. ` +
          'Install the platform package (npm install --force <name>) where the build runs, or leave the platform out.',
      );
    }
    return { code: withCall(changed, runtimeCall(format, { platforms: addons.map((a) => a.abi), framing }, bun ? addons : undefined)), map: null };
  }

  return {
    name: NAME,
    enforce: 'pre',
    transformInclude(id) {
      const file = fileOf(id);
      return SCRIPT.test(file) && !id.startsWith('\0') && !file.startsWith(OWN_LIB) && !file.endsWith('.d.ts');
    },
    transform,
    esbuild: {
      setup(build) {
        build.onEnd(() => {
          if (!changedAny) return;
          const { outdir, outfile, write } = build.initialOptions;
          if (write === false || (!outdir && !outfile)) return;
          copyAddons(outdir ? path.resolve(outdir) : path.dirname(path.resolve(outfile)));
        });
      },
    },
    rollup: { generateBundle: emitForRollup },
    // Vite: copied at write time (an SSR build, the one for Node, emits no assets unless build.ssrEmitAssets).
    vite: {
      writeBundle(outputOptions) {
        if (!changedAny && ![...this.getModuleIds()].some((id) => fileOf(id) === RUNTIME)) return;
        const dir = outputOptions.dir ?? (outputOptions.file && path.dirname(outputOptions.file));
        if (dir) copyAddons(path.resolve(dir));
      },
    },
    webpack(compiler) {
      const { Compilation, sources } = compiler.webpack;
      compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
        // webpack's "Critical dependency" about this package's own dynamic requires (the loader's
        // platform-package fallback, install()'s transport search): paths a built app never takes.
        compilation.hooks.processWarnings.tap(NAME, (warnings) =>
          warnings.filter((w) => !(String(w.module?.resource).startsWith(OWN_LIB) && /Critical dependency/.test(w.message))),
        );
        compilation.hooks.processAssets.tap({ name: NAME, stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
          const built = changedAny || [...compilation.modules].some((m) => m.resource === RUNTIME);
          if (!built) return;
          for (const { name, file } of findAddons()) {
            if (!compilation.getAsset(name)) compilation.emitAsset(name, new sources.RawSource(fs.readFileSync(file)));
          }
        });
      });
    },
  };

  /** rollup and Vite: the addons as assets, when the runtime is in the bundle. */
  function emitForRollup() {
    if (!changedAny && ![...this.getModuleIds()].some((id) => fileOf(id) === RUNTIME)) return;
    for (const { name, file } of findAddons()) this.emitFile({ type: 'asset', fileName: name, source: fs.readFileSync(file) });
  }
}

/**
 * Whether a module left unchanged holds an SDK class it should have had a
 * block in (a failure to warn about), not merely none or one patched at build time already.
 */
function failedToReach(code, framing) {
  try {
    if (!mayDefineSdkClass(code, framing) || code.includes(BUILT_GLOBAL)) return false;
    const found = require('../shape/sdk-classes.cjs').sdkClassesIn(code) ?? [];
    return found.some((cls) => framing || cls.kind === 'protocol');
  } catch {
    return false;
  }
}

let unplugin;

/** The plugin for `bundler` ('esbuild', 'rollup', 'vite', 'webpack', 'bun'): its factory, `mcpOrderedDispatch(options)`. */
function entry(bundler) {
  const make = (options) => {
    if (unplugin === undefined) {
      let createUnplugin;
      try {
        ({ createUnplugin } = require('unplugin'));
      } catch (cause) {
        throw new Error(`${NAME}/${bundler} needs the unplugin package (an optional peer dependency): install it beside your bundler, e.g. \`npm install --save-dev unplugin\`.`, { cause });
      }
      unplugin = createUnplugin(factory);
    }
    return unplugin[bundler](options);
  };
  Object.defineProperty(make, 'name', { value: 'mcpOrderedDispatch' });
  return make;
}

module.exports = { entry, factory, platformsOf, addonFileFor, RUNTIME };
