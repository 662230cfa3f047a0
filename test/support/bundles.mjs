// Test helper: a 1.x and a 2.x client application, bundled by real bundlers
// (esbuild, webpack, rollup, and bun where its platform binary installed;
// each CommonJS and ES module output, minified and not, with and without
// keep-names), into a directory the caller owns.
// Each bundle holds the SDK (Client, Protocol, StdioClientTransport, zod,
// ajv, ...) and test/support/repro.cjs, and when run prints one line of
// JSON: { lost, expected, onerrors, failed } of one connection's call whose
// `PROGRESS` progress notifications all arrive in the response's read
// (the raw server's all-in-one mode; its path in RAW_SERVER).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

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

// An ES module bundle of CommonJS dependencies needs require, __filename and __dirname.
const ESM_BANNER =
  "import { createRequire as __odCreateRequire } from 'node:module'; import { fileURLToPath as __odPath } from 'node:url'; import { dirname as __odDir } from 'node:path';\n" +
  'const require = __odCreateRequire(import.meta.url); const __filename = __odPath(import.meta.url); const __dirname = __odDir(__filename);\n';

async function esbuildAll(dir, entries, keep) {
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
        const file = path.join(dir, `${app}.esbuild-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`);
        await esbuild.build({
          entryPoints: [entry],
          bundle: true,
          platform: 'node',
          format,
          outfile: file,
          nodePaths: [NODE_MODULES],
          logLevel: 'silent',
          banner: format === 'esm' ? { js: ESM_BANNER } : undefined,
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
      resolve();
    });
  });
}

async function webpackAll(dir, entries, keep) {
  const out = [];
  for (const [app, entry] of entries) {
    for (const [variant, mode, format] of [
      ['development', 'development', 'cjs'],
      ['production-terser', 'production', 'cjs'],
      ['production-terser', 'production', 'esm'],
    ]) {
      if (!keep({ app, bundler: 'webpack', format, variant })) continue;
      const filename = `${app}.webpack-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`;
      await webpackRun({
        mode,
        target: 'node20',
        entry,
        devtool: false,
        context: dir,
        resolve: { modules: [NODE_MODULES, 'node_modules'] },
        output: format === 'esm' ? { path: dir, filename, module: true, chunkFormat: 'module', library: { type: 'module' } } : { path: dir, filename, library: { type: 'commonjs2' } },
        experiments: format === 'esm' ? { outputModule: true } : {},
        optimization: { splitChunks: false },
        performance: { hints: false },
        infrastructureLogging: { level: 'none' },
        stats: 'none',
      });
      out.push({ app, bundler: 'webpack', format, variant, file: path.join(dir, filename) });
    }
  }
  return out;
}

async function rollupAll(dir, entries, keep) {
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
      plugins: [nodeResolve({ modulePaths: [NODE_MODULES], preferBuiltins: true, exportConditions: ['node'] }), commonjs({ ignoreDynamicRequires: true }), json()],
      onwarn: () => {},
    });
    try {
      for (const format of ['cjs', 'esm']) {
        const { output } = await bundle.generate({ format, inlineDynamicImports: true, banner: format === 'esm' ? ESM_BANNER : undefined });
        const code = output[0].code;
        for (const variant of ['plain', 'terser']) {
          if (!keep({ app, bundler: 'rollup', format, variant })) continue;
          const file = path.join(dir, `${app}.rollup-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`);
          const text = variant === 'plain' ? code : (await terser.minify(code, { module: format === 'esm', compress: true, mangle: true })).code;
          fs.writeFileSync(file, text);
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
 * The bun binary of the `bun` devDependency's platform package, or undefined
 * where none installed. The package's own bin is set up by its postinstall,
 * which this repository does not run (package.json allowScripts); the
 * platform package's binary needs none.
 */
export function bunBinary() {
  try {
    const fromBun = createRequire(require.resolve('bun/package.json'));
    const pkg = fromBun.resolve(`@oven/bun-${process.platform}-${process.arch}/package.json`);
    const bin = path.join(path.dirname(pkg), 'bin', process.platform === 'win32' ? 'bun.exe' : 'bun');
    return fs.existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

async function bunAll(dir, entries, keep) {
  const bun = bunBinary();
  if (bun === undefined) return [];
  const { execFileSync } = await import('node:child_process');
  // bun resolves from the entry's directory: give it the repository's node_modules there.
  const home = path.join(dir, 'bun');
  fs.mkdirSync(home, { recursive: true });
  fs.symlinkSync(NODE_MODULES, path.join(home, 'node_modules'), 'junction');
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
      const file = path.join(dir, `${app}.bun-${format}-${variant}.${format === 'esm' ? 'mjs' : 'cjs'}`);
      execFileSync(bun, ['build', src, '--target=node', `--format=${format}`, `--outfile=${file}`, ...flags], { cwd: home, stdio: 'pipe', timeout: 120_000 });
      out.push({ app, bundler: 'bun', format, variant, file });
    }
  }
  return out;
}

/**
 * The bundles the Node-line suites run (scripts/test-node-lines.mjs sets
 * MCP_ORDERED_DISPATCH_BUNDLES=lines): every bundler and output format once,
 * minified, the two apps taking turns - 8 of the 34.
 */
export const LINE_BUNDLES = [
  'sdk1 esbuild cjs minify',
  'sdk2 esbuild esm minify-keep-names',
  'sdk2 webpack cjs production-terser',
  'sdk1 webpack esm production-terser',
  'sdk1 rollup cjs terser',
  'sdk2 rollup esm terser',
  'sdk1 bun esm minify-keep-names',
  'sdk2 bun cjs minify',
];

/**
 * Build every bundle into `dir` (or those `keep({ app, bundler, format, variant })`
 * accepts): [{ app, bundler, format, variant, file }].
 */
export async function buildBundles(dir, keep = () => true) {
  const entries = Object.entries(APPS).map(([app, spec]) => {
    const entry = path.join(dir, `${app}.src.mjs`);
    fs.writeFileSync(entry, appSource(spec));
    return [app, entry];
  });
  return [...(await esbuildAll(dir, entries, keep)), ...(await webpackAll(dir, entries, keep)), ...(await rollupAll(dir, entries, keep)), ...(await bunAll(dir, entries, keep))];
}
