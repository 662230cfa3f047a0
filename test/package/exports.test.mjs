// No export that no other file imports: every name a lib/ file exports is
// imported by another file of the repository outside test/ (lib/, bin/,
// entries/, scripts and benchmarks), by destructuring, by property access on
// the module, by an ES import, or by a re-export that hands the whole module
// on (entries/). An export only a test imports does not count: the test
// reaches it through the public function that uses it. An export nobody
// imports is code to delete, or a name to keep inside its file. The few names
// read by something outside the repository's files are listed here, each
// with who reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { exportsOf, importsOf, keysOf, unimported } from './support/exports.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Names read by what is not a file here: file -> { name: who reads it }. */
const READ_FROM_OUTSIDE = {
  'lib/register/esm-hooks.mjs': {
    initialize: "Node's module.register(), which calls the hooks module's initialize()",
    load: "Node's module.register(), which calls the hooks module's load()",
  },
  'lib/register/loader-patch.mjs': {
    patchFromLoader: "the SDK's ES modules, through the import lib/register/esm-transform.cjs appends to them",
    patchStdioFromLoader: "the SDK's ES modules, through the import lib/register/esm-transform.cjs appends to them",
  },
  'lib/plugin/webpack-loader.cjs': {
    raw: "webpack and rspack, which hand a loader marked raw its module's bytes undecoded",
  },
  'lib/plugin/runtime.cjs': {
    default: "a built app's `import start from BUILT_ID` (lib/plugin/transform.cjs), where a bundler reads a CommonJS module's default as its .default",
  },
};

test('every export of a lib/ file is imported by another file outside test/', () => {
  const unused = [];
  for (const [file, names] of unimported(ROOT)) {
    for (const name of names) if (!READ_FROM_OUTSIDE[file]?.[name]) unused.push(`${file}: ${name}`);
  }
  assert.deepEqual(unused, [], 'exports no other file outside test/ imports: remove them (and what only they kept alive), or test them through the public function that uses them');
});

test('every name kept for outside readers is still exported', () => {
  for (const [file, names] of Object.entries(READ_FROM_OUTSIDE)) {
    const exported = exportsOf(readLib(file));
    for (const name of Object.keys(names)) assert.ok(exported.has(name), `${file} exports ${name}`);
  }
});

test('the reading finds each way a file imports another', () => {
  const libFiles = new Set(['lib/a/x.cjs', 'lib/b/y.mjs']);
  const of = (text, from = 'lib/a/z.cjs') => Object.fromEntries([...importsOf(text, from, libFiles)].map(([f, n]) => [f, [...n].sort()]));
  assert.deepEqual(of("const { a, b: c } = require('./x.cjs');"), { 'lib/a/x.cjs': ['a', 'b'] });
  assert.deepEqual(of("const d = require('./x.cjs').d;"), { 'lib/a/x.cjs': ['d'] });
  assert.deepEqual(of("const mod = require('./x.cjs');\nmod.e(); f(...mod.g);"), { 'lib/a/x.cjs': ['e', 'g'] });
  assert.deepEqual(of("import { h, i as j } from '../b/y.mjs';"), { 'lib/b/y.mjs': ['h', 'i'] });
  assert.deepEqual(of("export * from '../lib/a/x.cjs';", 'entries/x.mjs'), { 'lib/a/x.cjs': ['*'] });
  assert.deepEqual(of("module.exports = require('../lib/a/x.cjs');", 'entries/x.cjs'), { 'lib/a/x.cjs': ['*'] });
  assert.deepEqual(of("const { k } = require(path.join(ROOT, 'lib', 'a', 'x.cjs'));", 'test/t.mjs'), { 'lib/a/x.cjs': ['k'] });
  assert.deepEqual(of("const F = path.join(ROOT, 'lib', 'a', 'x.cjs');\nconst s = `require(${JSON.stringify(F)}).l`;", 'test/t.mjs'), { 'lib/a/x.cjs': ['l'] });
  assert.deepEqual(of("import('./x.cjs').then(({ default: w }) => w.m());"), { 'lib/a/x.cjs': ['m'] });
  assert.deepEqual(of("let h;\nfunction get() {\n  h = M.createRequire(u)('./x.cjs');\n  return h;\n}\nget().n();"), { 'lib/a/x.cjs': ['n'] });
  assert.deepEqual(of("const T = { x: '../lib/a/x.cjs', y: '../lib/b/y.mjs' };\nrequire(T[c]).main();", 'bin/c.cjs'), { 'lib/a/x.cjs': ['main'], 'lib/b/y.mjs': ['main'] });
  assert.deepEqual(of("// const { o } = require('./x.cjs');"), {});
});

test('an import from a test is no use; one from any other file is', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-exports-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q'], { cwd: root });
  const files = {
    'lib/a.cjs': 'module.exports = { used, testedOnly };',
    'bin/b.cjs': "const { used } = require('../lib/a.cjs');",
    'test/a.test.mjs': "const { used, testedOnly } = require('../lib/a.cjs');",
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  assert.deepEqual([...unimported(root)], [['lib/a.cjs', ['testedOnly']]]);
});

test('the reading finds each way a file exports', () => {
  assert.deepEqual([...exportsOf("module.exports = { a, b: 1, c() {}, get d() { return 1; }, 'e': f(g, h) };")], ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual([...exportsOf('module.exports = f;\nmodule.exports.g = f;\nexports.h = 1;')], ['g', 'h']);
  assert.deepEqual([...exportsOf('export function i() {}\nexport const j = 1;\nexport { k, l as m };')], ['i', 'j', 'k', 'm']);
  assert.deepEqual(keysOf(' n, o: p, ...q '), ['n', 'o']);
});

function readLib(file) {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}
