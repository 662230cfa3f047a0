// The search by shape on its own (lib/shape/): the tokenizer tells code from
// what only looks like code, the class tracker reads class bodies (both over
// the cases the Rust tests read too: test/shape/cases.json, and every entry
// of lib/shape/grammar.cjs), one
// sdkClassesIn() names the SDK classes of real SDK builds and of a minified
// bundle, and rewriteSdkClasses() keeps every rewrite gate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CASES, GRAMMAR, grammarCases } from './cases.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { tokenize, LexError } = require('../../lib/shape/tokens.cjs');
const { locateClasses } = require('../../lib/shape/classes.cjs');
const { sdkClassesIn } = require('../../lib/shape/sdk-classes.cjs');
let rewrite;
let cache;

before(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-shape-cache-'));
  process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = cache;
  rewrite = require('../../lib/shape/rewrite.cjs');
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

test('tokens: the shared cases (test/shape/cases.json, which the Rust tokenizer runs too)', () => {
  for (const { why, source, tokens } of CASES.tokens) assert.deepEqual(tokensOf(source), tokens, `${why}: ${JSON.stringify(source)}`);
});

test('tokens: every punctuator and keyword of lib/shape/grammar.cjs, as the Rust tests run them', () => {
  const cases = grammarCases(GRAMMAR);
  assert.ok(cases.length > 2 * GRAMMAR.punctuators.length, `${cases.length} cases`);
  for (const [source, tokens] of cases) assert.deepEqual(tokensOf(source), tokens, JSON.stringify(source));
});

test('tokens: a source that does not lex throws a LexError of its kind, never anything else', () => {
  for (const { why, source, error } of CASES.unlexed) {
    assert.throws(() => tokensOf(source), (e) => e instanceof LexError && e.message === error, `${why}: ${JSON.stringify(source)}`);
    assert.equal(locateClasses(source), undefined);
  }
});

test('classes: bodies, names, extends, methods, fields, this-sets and define-helper sets (the shared cases)', () => {
  for (const { why, source, classes } of CASES.classes) {
    const found = locateClasses(source).map((c) => ({ start: c.start, open: c.open, end: c.end, name: c.name, extends: c.extends, methods: [...c.methods], fields: [...c.fields], sets: [...c.sets] }));
    assert.deepEqual(found, classes, why);
    for (const c of found) assert.equal(source[c.open - 1] + source[c.end - 1], '{}', why);
  }
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

test('rewriteSdkClasses: every rewrite gate, and the bytes a load hook may hand over', () => {
  const body = '{constructor(){this._progressHandlers=new Map}_onnotification(e){}_onresponse(e){}_onrequest(e,t){}}';
  const source = `var P = class ${body};`;
  const options = { global: '__shapeTest' };
  const changed = rewrite.rewriteSdkClasses(source, '/app/x.js', 'commonjs', options);
  assert.ok(changed?.includes('static{try{typeof globalThis.__shapeTest=="function"&&globalThis.__shapeTest("protocol",1,"/app/x.js",this)}catch{}}'), changed);
  // The same for every form of bytes.
  const bytes = Buffer.from(source);
  for (const form of [bytes, new Uint8Array(bytes), new DataView(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
    assert.equal(rewrite.rewriteSdkClasses(form, '/app/x.js', 'commonjs', options), changed, form.constructor.name);
  }
  assert.equal(rewrite.textOf(new Uint8Array(Buffer.from('é'))), 'é');
  // The cache key of bytes is the key of the text they decode to (UTF-8): one entry for both.
  const { keyOf } = require('../../lib/shape/cache.cjs');
  const twoByte = `const s = "héllo 😀";\n${source}`;
  assert.equal(keyOf(Buffer.from(twoByte)), keyOf(twoByte));
  assert.equal(keyOf(Buffer.from(twoByte), 'compiled whole'), keyOf(twoByte, 'compiled whole'));
  const fromText = rewrite.rewriteSdkClasses(twoByte, '/app/z.js', 'commonjs', options);
  assert.ok(fs.existsSync(path.join(cache, `${keyOf(twoByte, 'compiled whole')}.json`)));
  assert.equal(rewrite.rewriteSdkClasses(Buffer.from(twoByte), '/app/z.js', 'commonjs', options), fromText);
  // Already changed (a hook installed twice), this package's own files, the SDK's scope when asked, no markers.
  assert.equal(rewrite.rewriteSdkClasses(changed, '/app/x.js', 'commonjs', options), undefined);
  assert.equal(rewrite.rewriteSdkClasses(source, path.join(ROOT, 'lib', 'x.cjs'), 'commonjs', options), undefined);
  const inScope = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk', 'x.js');
  assert.equal(rewrite.rewriteSdkClasses(source, inScope, 'commonjs', { ...options, skipSdkScope: true }), undefined);
  assert.ok(rewrite.rewriteSdkClasses(source, inScope, 'commonjs', options) !== undefined);
  assert.equal(rewrite.rewriteSdkClasses(source.replace('_onrequest', '_onreq'), '/app/x.js', 'commonjs', options), undefined);
  // A stdio transport counts only with framing.
  const stdio = 'var T = class{start(){}close(){}send(){}processReadBuffer(){}constructor(){this._readBuffer=1}};';
  assert.ok(rewrite.rewriteSdkClasses(stdio, '/app/t.js', 'commonjs', options) !== undefined);
  assert.equal(rewrite.rewriteSdkClasses(stdio, '/app/t.js', 'commonjs', { ...options, framing: false }), undefined);
  // A module that would not compile once changed is left as it was.
  assert.equal(rewrite.rewriteSdkClasses(`${source} return 1 +;`, '/app/y.js', 'commonjs', options), undefined);
});
