// Test helper: a 1.x and a 2.x client application, bundled by real bundlers
// (esbuild, webpack, rollup, and bun where its platform binary installed;
// each CommonJS and ES module output, minified and not, with and without
// keep-names), into a directory the caller owns.
// Each bundle holds the SDK (Client, Protocol, StdioClientTransport, zod,
// ajv, ...) and test/support/repro.cjs, and when run prints one line of
// JSON: { lost, expected, onerrors, failed } of one connection's call whose
// `PROGRESS` progress notifications all arrive in the response's read
// (the raw server's all-in-one mode; its path in RAW_SERVER).
// With `{ plugin }` (the bundler plugin's options) each bundler runs with
// mcp-ordered-dispatch's plugin (its entry by the package's own name:
// `mcp-ordered-dispatch/esbuild`, ...); `{ separate: true }` gives each bundle a
// directory of its own (the output alone: the bundle and what the build put
// beside it); `{ extended: true }` adds the bundlers and variants only the
// plugin's suites build: Vite 8 (SSR for Node: an app build and a library
// build), tsup 9, rolldown, rspack, and webpack development with devtool 'eval'.
import { RUNTIMES } from './runtimes.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
export const PROGRESS = 60;
const require = createRequire(import.meta.url);
const NODE_MODULES = path.join(ROOT, 'node_modules');

export const APPS = {
  sdk1: { client: '@modelcontextprotocol/sdk/client/index.js', stdio: '@modelcontextprotocol/sdk/client/stdio.js', generation: 1 },
  sdk2: { client: '@modelcontextprotocol/client', stdio: '@modelcontextprotocol/client/stdio', generation: 2 },
};

export function appSource({ client, stdio, generation }) {
  return `import { Client } from ${JSON.stringify(client)};
import { StdioClientTransport } from ${JSON.stringify(stdio)};
import { runRepro } from ${JSON.stringify(path.join(ROOT, 'test', 'support', 'repro.cjs'))};
// What register did to the bundled classes, read by the keys it marks them with.
function inspect(client, transport) {
  let patched = false;
  for (let p = Object.getPrototypeOf(client); p !== null; p = Object.getPrototypeOf(p)) {
    if (Object.hasOwn(p, Symbol.for('mcp-ordered-dispatch.patch'))) patched = true;
  }
  return {
    patched,
    framing: Object.hasOwn(StdioClientTransport.prototype, Symbol.for('mcp-ordered-dispatch.stdio-patch')),
    readBuffer: transport._readBuffer?.constructor?.name ?? null,
    fastProgress: client[Symbol.for('mcp-ordered-dispatch.state')]?.fastProgress ?? 0,
  };
}
(async () => {
  const r = await runRepro({ Client, StdioClientTransport, generation: ${generation} }, { pairs: 1, progress: ${PROGRESS}, mode: 'all-in-one', serverPath: process.env.RAW_SERVER, inspect });
  console.log(JSON.stringify({ lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount, failed: r.callsFailed, ...r.inspected }));
})();
`;
}

// An ES module bundle of CommonJS dependencies needs require (their require()s
// of Node's modules): the usual banner, defining only that, as esbuild's and
// tsup's users write it. Nothing in a bundle may need __dirname or __filename.
export const ESM_BANNER = "import { createRequire as __odCreateRequire } from 'node:module'; const require = __odCreateRequire(import.meta.url);\n";

/** The bundler plugin's entry for `bundler` (by the package's own name). */
export function pluginFor(bundler) {
  return require(`mcp-ordered-dispatch/${bundler}`);
}

async function esbuildAll(dir, entries, keep, { plugin, separate }) {
  const esbuild = require('esbuild');
  const out = [];
  for (const [app, entry] of entries) {
    for (const format of ['cjs', 'esm']) {
      for (const [variant, options] of [
        ['plain', {}],
        ['minify', { minify: true }],
        ['minify-keep-names', { minify: true, keepNames: true }],
      ]) {
        if (!keep({ app, bundler: 'esbuild', format, variant })) continue;
        const file = outFile(dir, `${app}.esbuild-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
        await esbuild.build({
          entryPoints: [entry],
          bundle: true,
          platform: 'node',
          format,
          outfile: file,
          nodePaths: [NODE_MODULES],
          logLevel: 'silent',
          banner: format === 'esm' ? { js: ESM_BANNER } : undefined,
          plugins: plugin === undefined ? [] : [pluginFor('esbuild')(plugin)],
          ...options,
        });
        out.push({ app, bundler: 'esbuild', format, variant, file });
      }
    }
  }
  return out;
}

function webpackRun(config) {
  const webpack = require('webpack');
  return new Promise((resolve, reject) => {
    webpack(config, (error, stats) => {
      if (error) return reject(error);
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
      resolve(stats.compilation.getWarnings().map((w) => w.message));
    });
  });
}

async function webpackAll(dir, entries, keep, { plugin, separate, extended }) {
  const built = [];
  for (const [app, entry] of entries) {
    for (const [variant, mode, format, devtool = false] of [
      ['development', 'development', 'cjs'],
      ['production-terser', 'production', 'cjs'],
      ['production-terser', 'production', 'esm'],
      ...(extended ? [['development-eval', 'development', 'cjs', 'eval']] : []),
    ]) {
      if (!keep({ app, bundler: 'webpack', format, variant })) continue;
      const file = outFile(dir, `${app}.webpack-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
      const [out, filename] = [path.dirname(file), path.basename(file)];
      const warnings = await webpackRun({
        ...webpackLikeConfig({ mode, entry, format, out, filename }),
        devtool,
        plugins: plugin === undefined ? [] : [pluginFor('webpack')(plugin)],
      });
      built.push({ app, bundler: 'webpack', format, variant, file, warnings });
    }
  }
  return built;
}

async function rollupAll(dir, entries, keep, { plugin, separate }) {
  const { rollup } = require('rollup');
  const { nodeResolve } = require('@rollup/plugin-node-resolve');
  const commonjs = require('@rollup/plugin-commonjs');
  const json = require('@rollup/plugin-json');
  const terser = require('terser');
  const out = [];
  for (const [app, entry] of entries) {
    if (!['cjs', 'esm'].some((format) => ['plain', 'terser'].some((variant) => keep({ app, bundler: 'rollup', format, variant })))) continue;
    const bundle = await rollup({
      input: entry,
      plugins: [
        ...(plugin === undefined ? [] : [pluginFor('rollup')(plugin)]),
        nodeResolve({ modulePaths: [NODE_MODULES], preferBuiltins: true, exportConditions: ['node'] }),
        commonjs({ ignoreDynamicRequires: true }),
        json(),
      ],
      onwarn: () => {},
    });
    try {
      for (const format of ['cjs', 'esm']) {
        const { output } = await bundle.generate({ format, inlineDynamicImports: true, banner: format === 'esm' ? ESM_BANNER : undefined });
        const code = output[0].code;
        for (const variant of ['plain', 'terser']) {
          if (!keep({ app, bundler: 'rollup', format, variant })) continue;
          const file = outFile(dir, `${app}.rollup-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
          const text = variant === 'plain' ? code : (await terser.minify(code, { module: format === 'esm', compress: true, mangle: true })).code;
          fs.writeFileSync(file, text);
          // What the plugins emitted beside the chunk (the plugin's addon).
          for (const asset of output.filter((o) => o.type === 'asset')) fs.writeFileSync(path.join(path.dirname(file), asset.fileName), asset.source);
          out.push({ app, bundler: 'rollup', format, variant, file });
        }
      }
    } finally {
      await bundle.close();
    }
  }
  return out;
}

/**
 * The pinned Bun (test/support/runtimes.mjs: on every system the release
 * tests on, a missing one fails the suites there; undefined elsewhere).
 */
export function bunBinary() {
  return RUNTIMES.bun?.command;
}

async function bunAll(dir, entries, keep, { plugin, separate }) {
  const bun = bunBinary();
  if (bun === undefined) return [];
  // bun resolves from the entry's directory.
  const home = resolvingHome(dir, 'bun');
  const out = [];
  for (const [app, entry] of entries) {
    const src = path.join(home, path.basename(entry));
    fs.copyFileSync(entry, src);
    for (const [format, variant, flags] of [
      ['esm', 'plain', []],
      ['esm', 'minify', ['--minify']],
      ['esm', 'minify-keep-names', ['--minify', '--keep-names']],
      ['cjs', 'minify', ['--minify']],
    ]) {
      if (!keep({ app, bundler: 'bun', format, variant })) continue;
      const file = outFile(dir, `${app}.bun-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
      if (plugin === undefined) {
        execFileSync(bun, ['build', src, '--target=node', `--format=${format}`, `--outfile=${file}`, ...flags], { cwd: home, stdio: 'pipe', timeout: 120_000 });
      } else {
        // A plugin needs Bun.build(): the same options as the command line's.
        bunBuild(bun, { entrypoints: [src], target: 'node', format, outdir: path.dirname(file), naming: path.basename(file), minify: flags.includes('--minify'), keepNames: flags.includes('--keep-names') }, plugin, home);
      }
      out.push({ app, bundler: 'bun', format, variant, file });
    }
  }
  return out;
}

/**
 * Bun.build(`config`) with the plugin (`plugin`: its options), run by `bun`
 * in `cwd`; `config.compile` makes an executable. Throws with Bun's logs when
 * the build fails.
 */
export function bunBuild(bun, config, plugin, cwd) {
  const script = `import mcpOrderedDispatch from ${JSON.stringify(require.resolve('mcp-ordered-dispatch/bun').replace(/\.cjs$/, '.mjs'))};
const r = await Bun.build({ ...${JSON.stringify(config)}, plugins: [mcpOrderedDispatch(${JSON.stringify(plugin)})] });
if (!r.success) { console.error(r.logs.map(String).join('\\n')); process.exit(1); }`;
  const file = path.join(cwd, `build-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, script);
  try {
    return execFileSync(bun, [file], { cwd, encoding: 'utf8', stdio: 'pipe', timeout: 120_000 });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * Vite (SSR for Node, every dependency bundled): an app build, ES module and CommonJS output
 * (variant 'build'), and a library build writing both formats in one call (variant 'lib').
 */
async function viteAll(dir, entries, keep, { plugin, separate, extended }) {
  if (!extended) return [];
  const out = [];
  // Vite resolves from its root.
  const home = resolvingHome(dir, 'vite');
  // A Vite build for Node from `home`, every dependency bundled, minified, with `build` options.
  const viteBuild = async (build) => {
    const vite = await import('vite');
    await vite.build({
      configFile: false,
      logLevel: 'silent',
      root: home,
      ssr: { noExternal: true, target: 'node' },
      plugins: plugin === undefined ? [] : [pluginFor('vite')(plugin)],
      build: { emptyOutDir: false, minify: true, ...build },
    });
  };
  for (const [app, source] of entries) {
    const entry = path.join(home, path.basename(source));
    fs.copyFileSync(source, entry);
    for (const format of ['esm', 'cjs']) {
      if (!keep({ app, bundler: 'vite', format, variant: 'build' })) continue;
      const file = outFile(dir, `${app}.vite-${format}-build.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
      await viteBuild({
        ssr: entry,
        outDir: path.dirname(file),
        rolldownOptions: { output: { format, entryFileNames: path.basename(file), codeSplitting: false, banner: format === 'esm' ? ESM_BANNER : undefined } },
      });
      out.push({ app, bundler: 'vite', format, variant: 'build', file });
    }
    const lib = ['esm', 'cjs'].filter((format) => keep({ app, bundler: 'vite', format, variant: 'lib' }));
    if (lib.length === 0) continue;
    const name = `${app}.vite-lib`;
    const outDir = path.dirname(outFile(dir, `${name}.js`, separate));
    await viteBuild({
      ssr: true,
      lib: { entry },
      outDir,
      rolldownOptions: { output: [{ format: 'es', entryFileNames: `${name}.mjs`, banner: ESM_BANNER }, { format: 'cjs', entryFileNames: `${name}.cjs` }] },
    });
    for (const format of lib) out.push({ app, bundler: 'vite', format, variant: 'lib', file: path.join(outDir, `${name}.${format === 'esm' ? 'mjs' : 'cjs'}`) });
  }
  return out;
}

/** tsup 9 (esbuild with write: false; tsup writes the files): ES module, CommonJS, and both formats in one call (variant 'dual'), minified. */
async function tsupAll(dir, entries, keep, { plugin, separate, extended }) {
  if (!extended) return [];
  const { build } = require('tsup');
  const out = [];
  for (const [app, entry] of entries) {
    for (const [variant, formats] of [['one', ['esm']], ['one', ['cjs']], ['dual', ['esm', 'cjs']]]) {
      const wanted = formats.filter((format) => keep({ app, bundler: 'tsup', format, variant }));
      if (wanted.length === 0) continue;
      const name = `${app}.tsup-${variant === 'dual' ? 'dual' : formats[0]}`;
      const outDir = path.dirname(outFile(dir, `${name}.js`, separate));
      await build({
        entry: { [name]: entry },
        format: formats,
        platform: 'node',
        target: 'node20',
        outDir,
        minify: true,
        noExternal: [/.*/],
        config: false,
        silent: true,
        dts: false,
        outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.cjs' }),
        banner: ({ format }) => (format === 'esm' ? { js: ESM_BANNER } : {}),
        esbuildOptions(options) {
          options.nodePaths = [NODE_MODULES];
          options.logLevel = 'silent';
        },
        esbuildPlugins: plugin === undefined ? [] : [pluginFor('esbuild')(plugin)],
      });
      for (const format of wanted) out.push({ app, bundler: 'tsup', format, variant, file: path.join(outDir, `${name}.${format === 'esm' ? 'mjs' : 'cjs'}`) });
    }
  }
  return out;
}

/** rolldown through `mcp-ordered-dispatch/rolldown`: ES module (no banner: rolldown gives a Node ES module output its own require) and CommonJS, minified. */
async function rolldownAll(dir, entries, keep, { plugin, separate, extended }) {
  if (!extended) return [];
  const { rolldown } = require('rolldown');
  const home = resolvingHome(dir, 'rolldown');
  const out = [];
  for (const [app, source] of entries) {
    const formats = ['esm', 'cjs'].filter((format) => keep({ app, bundler: 'rolldown', format, variant: 'minify' }));
    if (formats.length === 0) continue;
    const entry = path.join(home, path.basename(source));
    fs.copyFileSync(source, entry);
    const bundle = await rolldown({ input: entry, platform: 'node', logLevel: 'silent', plugins: plugin === undefined ? [] : [pluginFor('rolldown')(plugin)] });
    try {
      for (const format of formats) {
        const file = outFile(dir, `${app}.rolldown-${format}-minify.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
        await bundle.write({ dir: path.dirname(file), format, entryFileNames: path.basename(file), codeSplitting: false, minify: true });
        out.push({ app, bundler: 'rolldown', format, variant: 'minify', file });
      }
    } finally {
      await bundle.close();
    }
  }
  return out;
}

/** What webpack and rspack builds share: one bundle of `entry`, CommonJS or ES module output, no chunks split off. */
function webpackLikeConfig({ mode, entry, format, out, filename }) {
  return {
    mode,
    target: 'node20',
    entry,
    context: ROOT,
    resolve: { modules: [NODE_MODULES, 'node_modules'] },
    output: format === 'esm' ? { path: out, filename, module: true, chunkFormat: 'module', library: { type: 'module' } } : { path: out, filename, library: { type: 'commonjs2' } },
    experiments: format === 'esm' ? { outputModule: true } : {},
    optimization: { splitChunks: false },
    performance: { hints: false },
    infrastructureLogging: { level: 'none' },
    stats: 'none',
  };
}

/**
 * rspack through `mcp-ordered-dispatch/rspack`: production (minified), CommonJS and ES module (the
 * plugin patches the outputs), and development with devtool 'eval' (the plugin's loader).
 */
async function rspackAll(dir, entries, keep, { plugin, separate, extended }) {
  if (!extended) return [];
  const { rspack } = require('@rspack/core');
  const built = [];
  for (const [app, entry] of entries) {
    for (const [variant, mode, format, devtool = false] of [
      ['production', 'production', 'cjs'],
      ['production', 'production', 'esm'],
      ['development-eval', 'development', 'cjs', 'eval'],
    ]) {
      if (!keep({ app, bundler: 'rspack', format, variant })) continue;
      const file = outFile(dir, `${app}.rspack-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`, separate);
      const [out, filename] = [path.dirname(file), path.basename(file)];
      const warnings = await new Promise((resolve, reject) => {
        rspack({
          ...webpackLikeConfig({ mode, entry, format, out, filename }),
          devtool,
          plugins: plugin === undefined ? [] : [pluginFor('rspack')(plugin)],
        }, (error, stats) => {
          if (error) return reject(error);
          if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
          resolve(stats.compilation.getWarnings().map((w) => w.message));
        });
      });
      built.push({ app, bundler: 'rspack', format, variant, file, warnings });
    }
  }
  return built;
}

/** `dir/name`, made, with the repository's node_modules in it: for bundlers that resolve from the entry's directory (bun, Vite). */
export function resolvingHome(dir, name) {
  const home = path.join(dir, name);
  fs.mkdirSync(home, { recursive: true });
  if (!fs.existsSync(path.join(home, 'node_modules'))) fs.symlinkSync(NODE_MODULES, path.join(home, 'node_modules'), 'junction');
  return home;
}

/** Where a bundle named `name` goes: into `dir`, or (separate) into a directory of its own there. */
function outFile(dir, name, separate) {
  if (!separate) return path.join(dir, name);
  const own = path.join(dir, name.replace(/\.[cm]?js$/, ''));
  fs.mkdirSync(own, { recursive: true });
  return path.join(own, name);
}

/**
 * The bundles the Node-line suites run (scripts/test-node-lines.mjs sets
 * MCP_ORDERED_DISPATCH_LINE_RUN=1): every bundler and output format once,
 * minified, the two apps taking turns - 8 of the 34 the bundlers make.
 */
export const LINE_BUNDLES = [
  'sdk2 esbuild cjs minify',
  'sdk2 esbuild esm minify-keep-names',
  'sdk2 webpack cjs production-terser',
  'sdk1 webpack esm production-terser',
  'sdk1 rollup cjs terser',
  'sdk2 rollup esm terser',
  'sdk1 bun esm minify-keep-names',
  'sdk2 bun cjs minify',
];

/**
 * The bundles named in `names` ('sdk1 esbuild cjs minify', ...), built once
 * for the inputs they are made from (this checkout, its lock file, this
 * file, the pinned Bun) into a folder of the temporary directory (outside
 * the checkout, where doctor's scan of this repository would list them):
 * npm test's run of the suites builds them, and the Node-line runs after it
 * read the same files (a bundler's output does not depend on the Node that
 * runs it), as does a later run with the same inputs; the folder this
 * checkout had for other inputs is removed. The listing is written last: a
 * build cut short is built again.
 */
export async function cachedBundles(names) {
  const prefix = `mcp-od-test-bundles-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}-`;
  const inputs = createHash('sha256');
  for (const file of ['package-lock.json', 'test/support/bundles.mjs', 'test/support/runtimes.mjs']) inputs.update(fs.readFileSync(path.join(ROOT, file)));
  const cache = path.join(os.tmpdir(), `${prefix}${inputs.digest('hex').slice(0, 16)}`);
  const dir = path.join(cache, 'bundles');
  const listing = path.join(dir, 'bundles.json');
  const label = (b) => `${b.app} ${b.bundler} ${b.format} ${b.variant}`;
  const wanted = (b) => names.includes(label(b));
  if (fs.existsSync(listing)) {
    const built = JSON.parse(fs.readFileSync(listing, 'utf8'));
    const have = new Set(built.map(label));
    // Bun's bundles are built only where its binary is installed.
    if (names.every((n) => have.has(n) || (n.includes(' bun ') && bunBinary() === undefined))) return built.filter(wanted);
  }
  // This checkout's bundles made from other inputs are not read again.
  for (const other of fs.readdirSync(os.tmpdir())) if (other.startsWith(prefix)) fs.rmSync(path.join(os.tmpdir(), other), { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const built = await buildBundles(dir, wanted);
  fs.writeFileSync(listing, JSON.stringify(built));
  return built;
}

/**
 * Build every bundle into `dir` (or those `keep({ app, bundler, format, variant })`
 * accepts): [{ app, bundler, format, variant, file }]. `options`: plugin,
 * separate, extended (above).
 */
export async function buildBundles(dir, keep = () => true, options = {}) {
  const entries = Object.entries(APPS).map(([app, spec]) => {
    const entry = path.join(dir, `${app}.src.mjs`);
    fs.writeFileSync(entry, appSource(spec));
    return [app, entry];
  });
  return [
    ...(await esbuildAll(dir, entries, keep, options)),
    ...(await webpackAll(dir, entries, keep, options)),
    ...(await rollupAll(dir, entries, keep, options)),
    ...(await viteAll(dir, entries, keep, options)),
    ...(await tsupAll(dir, entries, keep, options)),
    ...(await rolldownAll(dir, entries, keep, options)),
    ...(await rspackAll(dir, entries, keep, options)),
    ...(await bunAll(dir, entries, keep, options)),
  ];
}
