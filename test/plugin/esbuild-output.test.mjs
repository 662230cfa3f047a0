// The plugin's esbuild path (lib/plugin/esbuild.cjs), which changes the
// output files as the build ends instead of the modules as esbuild loads them,
// on what that path alone does:
//   - the output's source map is moved past the insertions
//     (lib/plugin/insert.cjs's shiftMap): checked against magic-string's map
//     of the same insertions, composed with the output's own by
//     @jridgewell/remapping, at every original token, for insertions with
//     and without line breaks; and the transform's own map (insertionMap,
//     the other bundlers') against magic-string's at token boundaries;
//   - an output with no SDK class (a build without the SDK) is byte-identical
//     to the same build without the plugin, and gets no addon beside it;
//   - a browser build with the SDK is left as it was, with one warning;
//   - an inline source map (sourcemap: 'inline') is moved too, and a stack
//     inside the patched class then still names the SDK's own file;
//   - a build to `outdir` (ES module, code splitting) is patched through the
//     metafile the plugin turns on, which its result then does not carry.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire, SourceMap } from 'node:module';
import { APPS, appSource, pluginFor, resolvingHome, ESM_BANNER } from '../support/bundles.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';

const require = createRequire(import.meta.url);
const esbuild = require('esbuild');
const { shiftMap, insertAll, insertionMap } = require('../../lib/plugin/insert.cjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-esbuild-output-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('shiftMap moves every segment as magic-string and remapping place it, with and without line breaks in what is inserted', async () => {
  const MagicString = require('magic-string').default;
  const remapping = require('@jridgewell/remapping');
  // A minified output of a real module and its map, from esbuild.
  const built = await esbuild.build({
    entryPoints: [require.resolve('@modelcontextprotocol/sdk/shared/protocol.js')], bundle: false, minify: true,
    format: 'esm', sourcemap: 'external', write: false, outfile: path.join(dir, 'p.js'), logLevel: 'silent',
  });
  const code = built.outputFiles.find((f) => f.path.endsWith('.js')).text;
  const own = JSON.parse(built.outputFiles.find((f) => f.path.endsWith('.map')).text);
  const classOpen = code.indexOf('{', code.indexOf('class '));
  for (const edits of [
    [[0, '/*head*/'], [classOpen + 1, 'static{x()}'], [code.length - 40, '/*tail*/']],
    [[0, 'a;\nb;\n'], [classOpen + 1, 'static{\n}'], [classOpen + 200, '\n\n']],
  ]) {
    const s = new MagicString(code);
    for (const [offset, text] of edits) s.appendLeft(offset, text);
    const truth = new SourceMap(remapping([s.generateMap({ hires: true, source: 'p.js' }), own], () => null));
    const shifted = new SourceMap(shiftMap(own, code, edits));
    const out = insertAll(code, edits);
    assert.equal(out, s.toString());
    // Every original segment, looked up where it now is.
    const lines = out.split('\n');
    let checked = 0;
    for (let line = 0; line < lines.length; line++) {
      for (let column = 0; column < lines[line].length; column += 7) {
        const a = shifted.findEntry(line, column);
        const b = truth.findEntry(line, column);
        if (b.originalSource === undefined || b.generatedColumn !== column) continue;
        assert.deepEqual([a.originalLine, a.originalColumn], [b.originalLine, b.originalColumn], `${JSON.stringify(edits.map((e) => e[1]))} at ${line}:${column}`);
        checked++;
      }
    }
    assert.ok(checked > 100, `compared ${checked} positions`);
  }
});

test("insertionMap (the transform's map) maps each token as magic-string's map at token boundaries does, with and without line breaks inserted", async () => {
  const MagicString = require('magic-string').default;
  const file = require.resolve('@modelcontextprotocol/sdk/shared/protocol.js');
  const original = fs.readFileSync(file, 'utf8');
  const minified = (await esbuild.transform(original, { minify: true, format: 'esm', logLevel: 'silent' })).code;
  for (const code of [original, minified]) {
    const classOpen = code.indexOf('{', code.indexOf('class ')) + 1;
    for (const edits of [
      [[0, 'import s from "x";s({});'], [classOpen, 'static{try{x(this)}catch{}}'], [code.length - 40, '/*tail*/']],
      [[0, 'a;\nb;\n'], [classOpen, 'static{\n}'], [classOpen + 200, '\n\n']],
    ]) {
      const s = new MagicString(code);
      for (const [offset, text] of edits) s.appendLeft(offset, text);
      const truth = new SourceMap(s.generateMap({ hires: 'boundary', source: 'p.js', includeContent: true }));
      const made = insertionMap(code, edits, 'p.js');
      assert.deepEqual([made.sources, made.sourcesContent], [['p.js'], [code]]);
      const mine = new SourceMap(made);
      const out = insertAll(code, edits);
      const lines = out.split('\n');
      let checked = 0;
      for (let line = 0; line < lines.length; line++) {
        for (const token of lines[line].matchAll(/[\w$]+/g)) {
          const b = truth.findEntry(line, token.index);
          // Where magic-string has a segment of its own: not inside inserted text.
          if (b.originalSource === undefined || b.generatedColumn !== token.index) continue;
          const a = mine.findEntry(line, token.index);
          assert.deepEqual([a.originalLine, a.originalColumn], [b.originalLine, b.originalColumn], `${JSON.stringify(edits.map((e) => e[1]))} at ${line}:${token.index} (${token[0]})`);
          checked++;
        }
      }
      assert.ok(checked > 1000, `compared ${checked} tokens`);
    }
  }
});

/** The 1.x client app (or `source`) at a fresh home under `dir`, resolving the SDK from this checkout. */
function appAt(name, source = appSource(APPS.sdk1)) {
  const home = resolvingHome(dir, name);
  const entry = path.join(home, 'app.mjs');
  fs.writeFileSync(entry, source);
  return entry;
}

test('an output without the SDK is byte-identical to the build without the plugin, and gets no addon', async () => {
  const entry = appAt('plain', "import path from 'node:path';\nconsole.log(path.join('a', 'b'), ['_progressHandlers', '_onrequest'].length);\n");
  const outs = {};
  for (const variant of ['stock', 'plugin']) {
    const outdir = path.join(dir, `plain-${variant}`);
    await esbuild.build({
      entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', minify: true, sourcemap: true, outdir, logLevel: 'silent',
      plugins: variant === 'plugin' ? [pluginFor('esbuild')()] : [],
    });
    outs[variant] = outdir;
  }
  assert.deepEqual(fs.readdirSync(outs.plugin).sort(), fs.readdirSync(outs.stock).sort());
  for (const name of fs.readdirSync(outs.stock)) assert.ok(fs.readFileSync(path.join(outs.plugin, name)).equals(fs.readFileSync(path.join(outs.stock, name))), name);
});

test("a browser build with the SDK is left as it was, with one warning saying why", async () => {
  const entry = appAt('browser', "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nconsole.log(typeof new Client({ name: 'b', version: '1' }).connect);\n");
  const outs = {};
  let warnings;
  for (const variant of ['stock', 'plugin']) {
    const outfile = path.join(dir, `browser-${variant}`, 'app.js');
    const r = await esbuild.build({
      entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', outfile, logLevel: 'silent',
      plugins: variant === 'plugin' ? [pluginFor('esbuild')()] : [],
    });
    outs[variant] = outfile;
    if (variant === 'plugin') warnings = r.warnings.map((w) => w.text);
  }
  assert.ok(fs.readFileSync(outs.plugin).equals(fs.readFileSync(outs.stock)));
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /a browser build is left as it was .*build for platform 'node'/);
});

test("sourcemap: 'inline' is moved too: a stack inside the patched Protocol names the SDK's own file", async () => {
  const entry = appAt('inline', `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
let stack;
new Client({ name: 'maps', version: '1.0.0' }, { get taskStore() { stack = new Error('inside').stack; return undefined; } });
console.log(JSON.stringify(stack.split('\\n')[2]));
`);
  const outfile = path.join(dir, 'inline-out', 'app.mjs');
  await esbuild.build({
    entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', minify: true, sourcemap: 'inline',
    outfile, logLevel: 'silent', banner: { js: ESM_BANNER }, plugins: [pluginFor('esbuild')()],
  });
  const code = fs.readFileSync(outfile, 'utf8');
  assert.ok(code.includes('__mcpOrderedDispatchBuilt("protocol"'), 'the Protocol class has its block');
  assert.ok(!fs.existsSync(`${outfile}.map`));
  // Run unbundled for the truth: the frame the SDK's Protocol constructor gives, through the SDK's own maps.
  const unbundled = await runCommand(process.execPath, ['--enable-source-maps', entry], { cwd: path.dirname(entry), env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(unbundled.code, 0, show(unbundled));
  const truth = /shared[\\/]protocol\.ts:\d+:\d+/.exec(JSON.parse(unbundled.stdout.trim()))[0].replace(/\\/g, '/');
  const r = await runCommand(process.execPath, ['--enable-source-maps', outfile], { cwd: path.dirname(outfile), env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
  const frame = JSON.parse(r.stdout.trim().split('\n').pop());
  const mapped = /shared[\\/]protocol\.ts:\d+:\d+/.exec(frame);
  assert.ok(mapped, `the frame names the SDK's protocol source: ${frame}`);
  // The line agrees (the column: where the minifier's map marks the expression, at or before V8's).
  assert.equal(mapped[0].replace(/\\/g, '/').split(':')[1], truth.split(':')[1], `${frame} against ${truth}`);
});

test('a build to outdir (ES module, code splitting) is patched through the metafile the plugin turns on; its result carries none', async () => {
  const entry = appAt('split', `${appSource(APPS.sdk2)}\nexport const later = () => import('node:path');\n`);
  const outdir = path.join(dir, 'split-out');
  const r = await esbuild.build({
    entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', splitting: true, outdir, logLevel: 'silent',
    banner: { js: ESM_BANNER }, plugins: [pluginFor('esbuild')()],
  });
  assert.equal(r.metafile, undefined);
  const files = fs.readdirSync(outdir);
  assert.ok(files.some((f) => f.endsWith('.node')), files.join(', '));
  const patched = files.filter((f) => f.endsWith('.js') && fs.readFileSync(path.join(outdir, f), 'utf8').includes('__mcpOrderedDispatchBuilt("protocol"'));
  assert.equal(patched.length, 1, files.join(', '));
});
