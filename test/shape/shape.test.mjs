// The search by shape on its own (lib/shape/): the tokenizer tells code from
// what only looks like code, the class tracker reads class bodies, one
// sdkClassesIn() names the SDK classes of real SDK builds and of a minified
// bundle, and reachSource() keeps every rewrite gate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { tokenize, LexError } = require('../../lib/shape/tokens.cjs');
const { locateClasses } = require('../../lib/shape/classes.cjs');
const { sdkClassesIn } = require('../../lib/shape/sdk-classes.cjs');
let reach;
let cache;

before(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-shape-cache-'));
  process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = cache;
  reach = require('../../lib/shape/reach.cjs');
});
after(() => {
  delete process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
  fs.rmSync(cache, { recursive: true, force: true });
});

/** The tokens of `src` as 'type:value' strings (substitution ends as '}`'). */
function tokensOf(src) {
  const out = [];
  tokenize(src, { token: (type, value) => out.push(value === '' ? type : `${type}:${value}`), substitutionEnd: (more) => out.push(more ? '}${' : '}`') });
  return out;
}

test('tokens: a / after a value divides, after an operator, a keyword or a control head it starts a regular expression', () => {
  assert.deepEqual(tokensOf('a / b / c'), ['id:a', 'punct:/', 'id:b', 'punct:/', 'id:c']);
  assert.deepEqual(tokensOf('x = /}{/g'), ['id:x', 'punct:=', 'regex']);
  assert.deepEqual(tokensOf('return /"/.test(s)'), ['id:return', 'regex', 'punct:.', 'id:test', 'punct:(', 'id:s', 'punct:)']);
  assert.deepEqual(tokensOf('if (x) /a/.exec(y)').slice(0, 5), ['id:if', 'punct:(', 'id:x', 'punct:)head', 'regex']);
  assert.deepEqual(tokensOf('o.if (x) / 2').slice(0, 7), ['id:o', 'punct:.', 'id:if', 'punct:(', 'id:x', 'punct:)', 'punct:/'], 'a property named if heads nothing');
  assert.deepEqual(tokensOf('a.return / 2'), ['id:a', 'punct:.', 'id:return', 'punct:/', 'num:2']);
  assert.deepEqual(tokensOf('(a) / 2'), ['punct:(', 'id:a', 'punct:)', 'punct:/', 'num:2']);
});

test('tokens: strings, comments and template literals hide braces; substitutions nest', () => {
  assert.deepEqual(tokensOf('"{" + \'}\' // }\n/* { */ x'), ['str:{', 'punct:+', 'str:}', 'id:x']);
  assert.deepEqual(tokensOf('`a${b + `c${ {d} }e`}f`'), ['punct:${', 'id:b', 'punct:+', 'punct:${', 'punct:{', 'id:d', 'punct:}', '}`', '}`']);
  assert.deepEqual(tokensOf('`${a}${b}`'), ['punct:${', 'id:a', '}${', 'id:b', '}`']);
  assert.deepEqual(tokensOf('#!/usr/bin/env node\nx'), ['id:x']);
  assert.deepEqual(tokensOf('1e+5 0xe+5 .5 a?.5:1'), ['num:1e+5', 'num:0xe', 'punct:+', 'num:5', 'num:.5', 'id:a', 'punct:?', 'num:.5', 'punct::', 'num:1']);
  assert.deepEqual(tokensOf('this.#p = 1'), ['id:this', 'punct:.', 'private:#p', 'punct:=', 'num:1']);
});

test('tokens: a source that does not lex throws a LexError, never anything else', () => {
  for (const bad of ['"open', '`open ${', '/* open', 'x = /open', '{ ( }', ')', 'a \u0001 b']) {
    assert.throws(() => tokensOf(bad), LexError, JSON.stringify(bad));
    assert.equal(locateClasses(bad), undefined);
  }
});

test('classes: bodies, names, extends, methods, fields, this-sets and define-helper sets', () => {
  const src = [
    'class A extends B { static x = 1; #p; get g() { return 1 } static { this.s = 1 } m(a) { this.q = a; f(this, "r", 2); } [k]() {} y\n z }',
    'const o = { class: 1 }; x.class; var C = class { n() {} };',
    'class D { v = `${"}"}`; w() { return class E { e() {} } } }',
  ].join('\n');
  const classes = locateClasses(src);
  const shape = (c) => ({ name: c.name, extends: c.extends, methods: [...c.methods].sort(), fields: [...c.fields].sort(), sets: [...c.sets].sort(), body: src.slice(c.open - 1, c.open) + src.slice(c.end - 1, c.end) });
  assert.deepEqual(classes.map(shape), [
    // (a last field without `;` before `}`, z, is not needed: the SDK's fields are read from their sets)
    { name: 'A', extends: true, methods: ['g', 'm'], fields: ['#p', 'x', 'y'], sets: ['q', 'r', 's', 'x'], body: '{}' },
    { name: null, extends: false, methods: ['n'], fields: [], sets: [], body: '{}' },
    { name: 'D', extends: false, methods: ['w'], fields: ['v'], sets: ['v'], body: '{}' },
    { name: 'E', extends: false, methods: ['e'], fields: [], sets: [], body: '{}' },
  ]);
});

const SDK_FILES = [
  ['@modelcontextprotocol/sdk/dist/esm/shared/protocol.js', [['protocol', 1]]],
  ['@modelcontextprotocol/sdk/dist/cjs/shared/protocol.js', [['protocol', 1]]],
  ['@modelcontextprotocol/sdk/dist/esm/client/stdio.js', [['stdio', 0]]],
];

test('sdkClassesIn: the real 1.x Protocol and stdio transport, and the 2.x client build', () => {
  for (const [file, expected] of SDK_FILES) {
    const found = sdkClassesIn(fs.readFileSync(path.join(ROOT, 'node_modules', file), 'utf8'));
    assert.deepEqual(found.map((c) => [c.kind, c.generation]), expected, file);
  }
  const dist = path.join(ROOT, 'node_modules/@modelcontextprotocol/client/dist');
  const kinds = fs.readdirSync(dist).filter((f) => f.endsWith('.mjs')).flatMap((f) => sdkClassesIn(fs.readFileSync(path.join(dist, f), 'utf8')) ?? []).map((c) => `${c.kind}${c.generation}`);
  assert.ok(kinds.includes('protocol2'), `the 2.x client's ES build defines a 2.x Protocol: ${kinds}`);
  assert.ok(!kinds.includes('protocol1'), kinds);
  // Not the SDK: a large real package with classes of its own.
  assert.deepEqual(sdkClassesIn(fs.readFileSync(require.resolve('rollup/dist/shared/rollup.js'), 'utf8')), []);
});

test('sdkClassesIn: a minified esbuild bundle of a 1.x client app (classes renamed, fields as define-helper calls)', async () => {
  const esbuild = require('esbuild');
  const out = await esbuild.build({
    stdin: { contents: "import { Client } from '@modelcontextprotocol/sdk/client/index.js'; import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'; console.log(Client, StdioClientTransport);", resolveDir: ROOT },
    bundle: true, minify: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent', target: 'es2020',
  });
  const text = out.outputFiles[0].text;
  assert.ok(!/\bclass Protocol\b/.test(text), 'the bundle renamed Protocol');
  assert.deepEqual(sdkClassesIn(text).map((c) => [c.kind, c.generation]).sort(), [['protocol', 1], ['stdio', 0]]);
});

test('reachSource: every rewrite gate, and the bytes a load hook may hand over', () => {
  const body = '{constructor(){this._progressHandlers=new Map}_onnotification(e){}_onresponse(e){}_onrequest(e,t){}}';
  const source = `var P = class ${body};`;
  const options = { global: '__shapeTest' };
  const changed = reach.reachSource(source, '/app/x.js', 'commonjs', options);
  assert.ok(changed?.includes('static{try{typeof globalThis.__shapeTest=="function"&&globalThis.__shapeTest("protocol",1,"/app/x.js",this)}catch{}}'), changed);
  // The same for every form of bytes.
  const bytes = Buffer.from(source);
  for (const form of [bytes, new Uint8Array(bytes), new DataView(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
    assert.equal(reach.reachSource(form, '/app/x.js', 'commonjs', options), changed, form.constructor.name);
  }
  assert.equal(reach.textOf(new Uint8Array(Buffer.from('é'))), 'é');
  // Already changed (a hook installed twice), this package's own files, the SDK's scope when asked, no markers.
  assert.equal(reach.reachSource(changed, '/app/x.js', 'commonjs', options), undefined);
  assert.equal(reach.reachSource(source, path.join(ROOT, 'lib', 'x.cjs'), 'commonjs', options), undefined);
  const inScope = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'x.js');
  assert.equal(reach.reachSource(source, inScope, 'commonjs', { ...options, skipSdkScope: true }), undefined);
  assert.ok(reach.reachSource(source, inScope, 'commonjs', options) !== undefined);
  assert.equal(reach.reachSource(source.replace('_onrequest', '_onreq'), '/app/x.js', 'commonjs', options), undefined);
  // A stdio transport counts only with framing.
  const stdio = 'var T = class{start(){}close(){}send(){}processReadBuffer(){}constructor(){this._readBuffer=1}};';
  assert.ok(reach.reachSource(stdio, '/app/t.js', 'commonjs', options) !== undefined);
  assert.equal(reach.reachSource(stdio, '/app/t.js', 'commonjs', { ...options, framing: false }), undefined);
  // A module that would not compile once changed is left as it was.
  assert.equal(reach.reachSource(`${source} return 1 +;`, '/app/y.js', 'commonjs', options), undefined);
});
