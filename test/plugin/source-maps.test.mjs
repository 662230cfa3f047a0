// The bundler plugin's source maps, through esbuild (the output's map moved
// past the insertions: lib/plugin/insert.cjs), rollup (the transform's map,
// insert.cjs's insertionMap; its chunk minified by terser, the maps chained), webpack
// and rspack (production, devtool 'source-map'; the output patched after the
// minifier as a ReplaceSource: lib/plugin/webpack-outputs.cjs) and Vite 8
// (SSR, minified; the transform's map). The app takes the 1.x
// SDK client from a vendored bundle: the SDK bundled and minified onto one
// line beforehand (as a dependency ships its dist/ chunk), so that the
// block the plugin inserts into its Protocol class sits mid-line and every
// column after it on that line moves. Each bundler builds the app with the
// plugin and a source map; then:
//   - a stack taken inside the patched class (a getter the Protocol
//     constructor reads: `?.taskStore`), printed by the built app under
//     `node --enable-source-maps`, names the vendored file's line and column
//     of the same app run unbundled: the column V8 gives the property read
//     or, where a minifier's map marks expressions only, the start of that
//     expression (both from the vendored text);
//   - the first token after the block (the class's `constructor`), looked
//     up in the output's map (node:module's SourceMap, as
//     --enable-source-maps does), maps to the vendored file's position
//     where the plugin inserted the block (rewriteEdits on the vendored text).
// With the map left out (the transform returning `map: null`, the output
// replaced by a RawSource) both fail.
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
const VENDORED = 'sdk.min.mjs';
const FRAME = /\(?((?:[a-z]+:\/\/\/?)?[^()\s]*?sdk\.min\.mjs):(\d+):(\d+)\)?$/;

const APP = `import { Client } from './vendor/${VENDORED}';
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
  // The vendored SDK: the 1.x client bundled and minified by esbuild, no plugin, no map of its own.
  const vendored = path.join(home, 'vendor', VENDORED);
  await require('esbuild').build({
    stdin: { contents: "export { Client } from '@modelcontextprotocol/sdk/client/index.js';", resolveDir: home },
    bundle: true, platform: 'node', format: 'esm', minify: true, outfile: vendored, logLevel: 'silent', banner: { js: ESM_BANNER },
  });
  const text = fs.readFileSync(vendored, 'utf8');
  // The truth: the app unbundled, its frame in the vendored file.
  const r = await runCommand(process.execPath, [entry], { cwd: home, env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.code, 0, show(r));
  const at = protocolFrame(JSON.parse(r.stdout).stack);
  const offset = offsetOf(text, at.line, at.column);
  // The expression it is in: `<identifier>?.taskStore`, V8's column on or before its property name.
  const read = text.lastIndexOf('?.taskStore', offset);
  assert.ok(read >= 0 && offset - read <= 2, `the read of taskStore at ${at.name}: ${text.slice(offset - 40, offset + 20)}`);
  let start = read;
  while (start > 0 && /[\w$]/.test(text[start - 1])) start--;
  const expression = positionOf(text, start);
  // Where the plugin puts the Protocol's block: the vendored text's offset of the token after it.
  const { rewriteEdits } = require('../../lib/shape/rewrite.cjs');
  const { BUILT_GLOBAL } = require('../../lib/shape/globals.cjs');
  const edits = rewriteEdits(text, VENDORED, 'module', { global: BUILT_GLOBAL }).edits.filter(([, block]) => block.includes('"protocol"'));
  assert.equal(edits.length, 1, 'one Protocol class in the vendored bundle');
  const ctor = positionOf(text, edits[0][0]);
  assert.ok(text.startsWith('constructor', edits[0][0]), 'the constructor right after the class body opens');
  const lineOf = (p) => text.split('\n')[p.line - 1].length;
  assert.ok(lineOf(ctor) > ctor.column + 1000, 'the class body goes on after the block on its line');
  const name = (p) => `${VENDORED}:${p.line}:${p.column}`;
  truth = { stack: [at.name, name(expression)], ctor: [name(ctor)] };
}, { timeout: 60_000 });

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The first frame of `stack` in the vendored SDK: { line, column } (1-based). */
function protocolFrame(stack) {
  const line = stack.split('\n').find((l) => FRAME.test(l.trim()));
  assert.ok(line, `no frame in the vendored SDK: ${stack}`);
  const [, file, l, c] = FRAME.exec(line.trim());
  return { file, line: Number(l), column: Number(c), name: `${path.basename(file)}:${l}:${c}` };
}

/** The offset in `text` of 1-based `line` and `column`. */
function offsetOf(text, line, column) {
  let offset = 0;
  for (let l = 1; l < line; l++) offset = text.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

/** 1-based line and column of `offset` in `text`. */
function positionOf(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** A production webpack or rspack build (`compile`) of the app into `out`, devtool 'source-map': the output file. */
async function webpackLikeBuild(compile, bundler, out) {
  await new Promise((resolve, reject) => {
    compile({
      mode: 'production', target: 'node20', entry, devtool: 'source-map', context: path.dirname(entry),
      output: { path: out, filename: 'app.cjs', library: { type: 'commonjs2' } },
      optimization: { splitChunks: false }, performance: { hints: false },
      infrastructureLogging: { level: 'none' }, stats: 'none', plugins: [pluginFor(bundler)()],
    }, (error, stats) => (error || stats.hasErrors() ? reject(error ?? new Error(stats.toString('errors-only'))) : resolve()));
  });
  return path.join(out, 'app.cjs');
}

/** Each bundler's build of the app into `out` with the plugin and a source map: the output file. */
const BUILDS = {
  async esbuild(out) {
    const file = path.join(out, 'app.mjs');
    await require('esbuild').build({
      entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', minify: true, sourcemap: true,
      outfile: file, logLevel: 'silent', banner: { js: ESM_BANNER }, plugins: [pluginFor('esbuild')()],
    });
    return file;
  },
  async rollup(out) {
    const { rollup } = require('rollup');
    const terser = require('terser');
    const bundle = await rollup({
      input: entry,
      onwarn: () => {},
      plugins: [
        pluginFor('rollup')(),
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
  webpack: (out) => webpackLikeBuild(require('webpack'), 'webpack', out),
  rspack: (out) => webpackLikeBuild(require('@rspack/core').rspack, 'rspack', out),
  async vite(out) {
    const { build } = await import('vite');
    await build({
      configFile: false, logLevel: 'silent', root: path.dirname(entry),
      ssr: { noExternal: true, target: 'node' }, plugins: [pluginFor('vite')()],
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
    const file = await buildIt(path.join(dir, bundler));
    const code = fs.readFileSync(file, 'utf8');
    assert.ok(code.includes('__mcpOrderedDispatchBuilt'), `${bundler}: the plugin's blocks are in`);
    // Minified onto one line (Vite's minifier quotes with backticks).
    assert.equal(code.split('\n').filter((l) => /__mcpOrderedDispatchBuilt\(["'`]protocol/.test(l)).length, 1);

    const built = await runMapped(file);
    assert.equal(built.patched, true, `${bundler}: the Protocol class was patched`);
    assert.ok(truth.stack.includes(built.frame.name), `${bundler}: the stack names ${built.frame.name}, not one of ${truth.stack.join(', ')}: ${built.stack}`);

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
    assert.ok(truth.ctor.includes(mapped), `${bundler}: the token after the block maps to ${mapped}, not ${truth.ctor.join(' or ')}`);
  });
}
