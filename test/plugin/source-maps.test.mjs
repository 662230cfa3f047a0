// The bundler plugin's source maps (its insertions recorded with
// magic-string, the transform returning their map), through esbuild, rollup
// (its chunk minified by terser, the maps chained), webpack (production,
// devtool 'source-map') and Vite 8 (SSR, minified): each builds a small 1.x
// client app, minified onto one line, with the plugin and a source map.
//   - A stack taken inside the patched SDK class (a getter the Protocol
//     constructor reads: `_options?.taskStore`), printed by the built app
//     under `node --enable-source-maps`, names the original line of the app
//     run unbundled (protocol.js), and the same line and column as the same
//     build without the plugin (the column a minifier's map gives the
//     expression: the start of `_options?.taskStore`);
//   - the first token after the static block the plugin inserted into the
//     Protocol class (its `constructor`), looked up in the output's map
//     (node:module's SourceMap, as --enable-source-maps does), maps to that
//     token's original line and column.
// The class is patched (the plugin's block ran), so the positions are
// those of the changed module.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire, SourceMap } from 'node:module';
import { ROOT, ESM_BANNER, pluginFor, resolvingHome } from '../support/bundles.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const NODE_MODULES = path.join(ROOT, 'node_modules');
const PROTOCOL = path.join(NODE_MODULES, '@modelcontextprotocol', 'sdk', 'dist', 'esm', 'shared', 'protocol.js');
const FRAME = /\(?((?:[a-z]+:\/\/\/?)?[^()\s]*?shared\/protocol\.[jt]s):(\d+):(\d+)\)?$/;

const APP = `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
let stack;
const client = new Client({ name: 'maps', version: '1.0.0' }, { get taskStore() { stack = new Error('inside').stack; return undefined; } });
let patched = false;
for (let p = Object.getPrototypeOf(client); p !== null; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, Symbol.for('mcp-ordered-dispatch.patch'))) patched = true;
console.log(JSON.stringify({ stack, patched }));
`;

let dir;
let entry;
let truth;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-maps-'));
  const home = resolvingHome(dir, 'src');
  entry = path.join(home, 'app.mjs');
  fs.writeFileSync(entry, APP);
  // The truth: the app unbundled, its frame in protocol.js; and that frame through the SDK's own map.
  const r = await runCommand(process.execPath, [entry], { cwd: home, env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.code, 0, show(r));
  const js = protocolFrame(JSON.parse(r.stdout).stack);
  const sdkMap = new SourceMap(JSON.parse(fs.readFileSync(`${PROTOCOL}.map`, 'utf8')));
  const ts = sdkMap.findEntry(js.line - 1, js.column - 1);
  const text = fs.readFileSync(PROTOCOL, 'utf8');
  const ctor = positionOf(text, text.indexOf('constructor(_options)'));
  const ctorTs = sdkMap.findEntry(ctor.line - 1, ctor.column - 1);
  truth = {
    stack: { js: `protocol.js:${js.line}:${js.column}`, ts: `protocol.ts:${ts.originalLine + 1}:${ts.originalColumn + 1}` },
    ctor: { js: `protocol.js:${ctor.line}:${ctor.column}`, ts: `protocol.ts:${ctorTs.originalLine + 1}:${ctorTs.originalColumn + 1}` },
  };
}, { timeout: 60_000 });

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The first frame of `stack` in the SDK's protocol module: { line, column } (1-based). */
function protocolFrame(stack) {
  const line = stack.split('\n').find((l) => FRAME.test(l.trim()));
  assert.ok(line, `no frame in shared/protocol: ${stack}`);
  const [, file, l, c] = FRAME.exec(line.trim());
  return { file, line: Number(l), column: Number(c), name: `${path.basename(file)}:${l}:${c}` };
}

/** 1-based line and column of `offset` in `text`. */
function positionOf(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Each bundler's build of the app into `out` with a source map, with the plugin (`withPlugin`) or without: the output file. */
const BUILDS = {
  async esbuild(out, withPlugin) {
    const file = path.join(out, 'app.mjs');
    await require('esbuild').build({
      entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', minify: true, sourcemap: true,
      outfile: file, logLevel: 'silent', banner: { js: ESM_BANNER }, plugins: withPlugin ? [pluginFor('esbuild')()] : [],
    });
    return file;
  },
  async rollup(out, withPlugin) {
    const { rollup } = require('rollup');
    const terser = require('terser');
    const bundle = await rollup({
      input: entry,
      onwarn: () => {},
      plugins: [
        ...(withPlugin ? [pluginFor('rollup')()] : []),
        require('@rollup/plugin-node-resolve').nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
        require('@rollup/plugin-commonjs')({ ignoreDynamicRequires: true }),
        require('@rollup/plugin-json')(),
      ],
    });
    try {
      const minify = { name: 'terser', async renderChunk(code) { const r = await terser.minify(code, { module: true, sourceMap: true }); return { code: r.code, map: r.map }; } };
      await bundle.write({ dir: out, format: 'esm', entryFileNames: 'app.mjs', inlineDynamicImports: true, sourcemap: true, banner: ESM_BANNER, plugins: [minify] });
    } finally {
      await bundle.close();
    }
    return path.join(out, 'app.mjs');
  },
  async webpack(out, withPlugin) {
    const webpack = require('webpack');
    await new Promise((resolve, reject) => {
      webpack({
        mode: 'production', target: 'node20', entry, devtool: 'source-map', context: path.dirname(entry),
        output: { path: out, filename: 'app.cjs', library: { type: 'commonjs2' } },
        optimization: { splitChunks: false }, performance: { hints: false },
        infrastructureLogging: { level: 'none' }, stats: 'none', plugins: withPlugin ? [pluginFor('webpack')()] : [],
      }, (error, stats) => (error || stats.hasErrors() ? reject(error ?? new Error(stats.toString('errors-only'))) : resolve()));
    });
    return path.join(out, 'app.cjs');
  },
  async vite(out, withPlugin) {
    const { build } = await import('vite');
    await build({
      configFile: false, logLevel: 'silent', root: path.dirname(entry),
      ssr: { noExternal: true, target: 'node' }, plugins: withPlugin ? [pluginFor('vite')()] : [],
      build: {
        ssr: entry, outDir: out, emptyOutDir: false, minify: true, sourcemap: true,
        rolldownOptions: { output: { format: 'esm', entryFileNames: 'app.mjs', codeSplitting: false, banner: ESM_BANNER } },
      },
    });
    return path.join(out, 'app.mjs');
  },
};

/** The built app run under --enable-source-maps: its stack's protocol frame and whether the class was patched. */
async function runMapped(file) {
  const r = await runCommand(process.execPath, ['--enable-source-maps', file], { cwd: path.dirname(file), env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
  const { stack, patched } = JSON.parse(r.stdout.trim().split('\n').pop());
  return { frame: protocolFrame(stack), patched, stack };
}

for (const [bundler, buildIt] of Object.entries(BUILDS)) {
  test(`${bundler}: a stack inside the patched Protocol and the token after its inserted block map back to their original line and column`, async () => {
    const file = await buildIt(path.join(dir, bundler), true);
    const stockFile = await buildIt(path.join(dir, `${bundler}-stock`), false);
    const code = fs.readFileSync(file, 'utf8');
    assert.ok(code.includes('__mcpOrderedDispatchBuilt'), `${bundler}: the plugin's blocks are in`);
    // Minified onto one line (Vite's minifier quotes with backticks).
    assert.equal(code.split('\n').filter((l) => /__mcpOrderedDispatchBuilt\(["'`]protocol/.test(l)).length, 1);

    const built = await runMapped(file);
    const stock = await runMapped(stockFile);
    assert.equal(built.patched, true, `${bundler}: the Protocol class was patched`);
    assert.equal(stock.patched, false);
    assert.ok([truth.stack.js, truth.stack.ts].some((t) => t.startsWith(built.frame.name.replace(/:\d+$/, ':'))), `${bundler}: the stack names ${built.frame.name}, not line ${truth.stack.js} (or ${truth.stack.ts}): ${built.stack}`);
    assert.equal(built.frame.name, stock.frame.name, `${bundler}: the stack with the plugin names what the build without it names`);

    // The block the plugin put into the Protocol class, as the minifier left it; the token after it.
    const block = /static\s*\{\s*try\s*\{[^{}]*?__mcpOrderedDispatchBuilt\(["'`]protocol[^{}]*\}\s*catch\s*\{\s*\}\s*\}/.exec(code);
    assert.ok(block, `${bundler}: the Protocol's block in the output`);
    const end = block.index + block[0].length;
    assert.match(code.slice(end, end + 12), /^constructor/, `${bundler}: the constructor after the block`);
    const after = positionOf(code, end);
    const map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    const entryAt = map.findEntry(after.line - 1, after.column - 1);
    assert.ok(entryAt.originalSource, `${bundler}: a mapping at the token after the block`);
    const mapped = `${path.basename(entryAt.originalSource)}:${entryAt.originalLine + 1}:${entryAt.originalColumn + 1}`;
    assert.ok([truth.ctor.js, truth.ctor.ts].includes(mapped), `${bundler}: the token after the block maps to ${mapped}, not ${truth.ctor.js} (or ${truth.ctor.ts})`);
  });
}
