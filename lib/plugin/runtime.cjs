'use strict';
// What a bundle built with the bundler plugin (lib/plugin/) runs
// before its first SDK class is defined: each module the plugin changed
// calls start(config) first thing. It tells the native loader where this
// build's addon is (lib/native/opened.cjs's provideAddon), then defines the
// global the build-time static blocks call (BUILT_GLOBAL), handing each SDK
// class to the same patcher register uses (lib/patch/receiver.cjs). Where the
// addon comes from, first found:
//   - a Node single executable application's asset named
//     `<binaryName>.<platform>.node` (sea-config.json `assets`), written once
//     to a per-user cache directory named by its content hash;
//   - the `.node` a Bun build required statically (`bun build --compile`
//     embeds it; a plain `bun build` copies it beside the output);
//   - the `.node` the plugin put beside the output: looked for beside the
//     output file (`at`, handed over by the module the plugin resolves its
//     stable id to: the output's `import.meta.url` or its `__filename`), the
//     main module, the entry script and the executable. A directory inside an Electron asar
//     archive is looked for in its `.asar.unpacked` twin (asarUnpack: a
//     `.node` cannot be opened from inside the archive).
// Nothing here reads `__dirname` or `__filename` (an ES module output defines
// neither, and Bun writes the build machine's directory for them).
// When none is there (a platform the build did not include), the loader's
// error names what the artifact lacks and how to fix the build; the first
// SDK class prints it once as a NativeAddonWarning and the app runs stock.

const fs = require('node:fs');
const path = require('node:path');
const platform = require('../native/platform.cjs');
const { provideAddon } = require('../native/opened.cjs');
const { BUILT_GLOBAL, PACKAGE_NAME, defineClassReceiver } = require('../shape/globals.cjs');
const { createClassReceiver } = require('../patch/receiver.cjs');

const FROM = 'the mcp-ordered-dispatch bundler plugin';

let started = false;

/**
 * `config` (written by the plugin into each changed module): platforms (the
 * napi-rs platform names whose addon the build includes), framing (native
 * stdio framing, default true), embedded ({ [platform]: () => addon exports },
 * Bun builds only). `at`: the output file, as a file: URL or a path, when
 * the bundle can say.
 */
function start(config = {}, at = undefined) {
  if (started) return;
  started = true;
  try {
    provide(config, at);
  } catch {
    // The loader then looks where it always does (MCP_ORDERED_DISPATCH_NATIVE, the platform package).
  }
  const patcher = createClassReceiver({
    framing: config.framing !== false,
    sourceOf: (file) => ({ name: `${file} (built in)`, file, builtIn: true }),
  });
  defineClassReceiver(BUILT_GLOBAL, patcher.classDefined);
}

/** How to fix a build that lacks this platform's addon. */
function fixFor(abi, name, platforms) {
  if (!platforms.includes(abi)) {
    const has = platforms.length > 0 ? `the addon for ${platforms.join(', ')} only` : 'no native addon';
    return `This build includes ${has}, not ${abi}'s: add '${abi}' to the mcp-ordered-dispatch ` +
      `plugin's platforms option (with its package ${platform.platformPackageName(abi)} installed where the build ` +
      `runs) and rebuild; or set ${platform.ENV_OVERRIDE} to a ${name}.`;
  }
  return `Ship ${name} (written by the build beside its output) with the bundle, in the same directory; ` +
    `or set ${platform.ENV_OVERRIDE} to it.`;
}

function provide({ platforms = [], embedded }, at) {
  const abi = platform.platformArchABI();
  const name = platform.binaryFileName(abi);
  const fix = fixFor(abi, name, platforms);
  const sea = seaAddon(name);
  if (sea !== undefined) {
    provideAddon({ file: sea, from: `this single executable application (its asset ${name})`, fix });
    return;
  }
  const embed = embedded?.[abi];
  if (typeof embed === 'function') {
    provideAddon({ addon: embed(), from: FROM, fix });
    return;
  }
  provideAddon({ file: addonIn(candidateDirs(at), name), from: FROM, fix });
}

/** The first of `dirs` holding `name` (a directory inside an asar archive: its `.asar.unpacked` twin), else where the first would hold it. */
function addonIn(dirs, name) {
  const files = dirs.map((dir) => path.join(dir, name));
  return files.find((f) => fs.existsSync(f)) ?? files[0];
}

/** The directory of `at` (a file: URL or a path), or undefined. */
function dirOf(at) {
  if (typeof at !== 'string' || at === '') return undefined;
  try {
    const file = at.startsWith('file:') ? (process.getBuiltinModule?.('node:url') ?? require('node:url')).fileURLToPath(at) : at;
    return path.isAbsolute(file) ? path.dirname(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a bundle's addon may be: beside the output file, the main module, the entry script, the executable. */
function candidateDirs(at) {
  const dirs = [];
  const own = dirOf(at);
  if (own !== undefined) dirs.push(own);
  // eslint-disable-next-line no-undef
  const main = typeof require === 'function' ? require.main?.filename : undefined;
  if (typeof main === 'string') dirs.push(path.dirname(main));
  if (typeof process.argv[1] === 'string') dirs.push(path.dirname(path.resolve(process.argv[1])));
  dirs.push(path.dirname(process.execPath));
  // An Electron app packed into an asar archive: the addon is in its .unpacked twin (asarUnpack).
  return [...new Set(dirs.map(unpackedTwin))];
}

/** `dir` with its `.asar` archive segment as the `.asar.unpacked` directory beside it (asarUnpack), else `dir`. */
function unpackedTwin(dir) {
  return dir.replace(/\.asar(?=[\\/]|$)/, '.asar.unpacked');
}

/** A single executable application's addon asset, written out once per content: its file, or undefined (not a SEA, or no such asset). */
function seaAddon(name) {
  const sea = platform.seaModule();
  if (sea === undefined) return undefined;
  let bytes;
  try {
    bytes = Buffer.from(sea.getRawAsset(name));
  } catch {
    return undefined; // no such asset: the other places, then the loader's message
  }
  const hash = require('node:crypto').createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const dir = path.join(userCacheDir(), PACKAGE_NAME, 'sea', hash);
  const file = path.join(dir, name);
  if (!(fs.existsSync(file) && fs.statSync(file).size === bytes.length)) {
    fs.mkdirSync(dir, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, bytes, { mode: 0o755 });
    fs.renameSync(temporary, file);
  }
  return file;
}

/** The per-user cache directory: $XDG_CACHE_HOME or ~/.cache (Linux), ~/Library/Caches (macOS), %LOCALAPPDATA% (Windows). */
function userCacheDir() {
  const os = require('node:os');
  if (process.platform === 'win32') return process.env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches');
  return process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
}

module.exports = start;
module.exports.default = start;
