// The search by shape changes no module but an SDK class's: every
// .js/.mjs/.cjs file of several large real packages - the SDK releases this
// repository installs, mcp-remote (a host that bundles the SDK), and
// typescript, webpack, rollup, zod, ajv, express, undici (none of which
// holds the SDK) - is put through the transform register applies to every
// module (lib/shape/rewrite.cjs: the prefilter, then the locate step). Exactly the SDK's
// Protocol and stdio transport modules change, each by one static block per
// class; every changed file still parses (esbuild's parser; CommonJS ones
// also compile in V8). The bundler plugin's transform (lib/plugin/index.cjs,
// the same rule with the build-time global, deciding each module's format
// itself as a bundler hands it over) passes over the same files: the same
// modules change, by the blocks and the runtime's call only, each still
// parses, and the build hears no warning. And the locate step is not fooled
// by marker names and braces in strings, templates, regular expressions and comments.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const modules = require('../../lib/adapters/modules.cjs');
const { buildOf } = require('../../lib/discover/package-of.cjs');
const esbuild = require('esbuild');
// The global the blocks register inserts at load time call.
const GLOBAL = require('../../lib/shape/globals.cjs').RECEIVER_GLOBAL;
const OPTIONS = { global: GLOBAL };
// The static block lib/shape/blocks.cjs inserts.
const blockOf = (global) => new RegExp(`static\\{try\\{typeof globalThis\\.${global}[^}]*\\}catch\\{\\}\\}`, 'g');
const BLOCK = blockOf(GLOBAL);
// The bundler plugin as rollup is given it (unplugin's adapter around lib/plugin/index.cjs's factory).
const rollupPlugin = require('../../entries/rollup.cjs');
const { BUILT_GLOBAL } = require('../../lib/shape/globals.cjs');
const BUILT_BLOCK = blockOf(BUILT_GLOBAL);
// The runtime's call a changed module starts with (either format).
const RUNTIME_CALL = /(?:import __mcpOrderedDispatchStart from "mcp-ordered-dispatch\/built";__mcpOrderedDispatchStart|require\("mcp-ordered-dispatch\/built"\))\(\{[^}]*\}\);/;
let rewriteSdkClasses;
let cache;

before(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-reach-cache-'));
  process.env.MCP_ORDERED_DISPATCH_CACHE_DIR = cache;
  ({ rewriteSdkClasses } = require('../../lib/shape/rewrite.cjs'));
});
after(() => {
  delete process.env.MCP_ORDERED_DISPATCH_CACHE_DIR;
  fs.rmSync(cache, { recursive: true, force: true });
});

const MAX_FILES_PER_PACKAGE = 5000;

function* sources(dir, budget = { left: MAX_FILES_PER_PACKAGE }) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (budget.left <= 0) return;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') yield* sources(file, budget);
    } else if (/\.[cm]?js$/.test(entry.name)) {
      budget.left--;
      yield file;
    }
  }
}

/** Put every source file of `name` through the transform: { files, megabytes, changed: ['relative/path kinds'] }, asserting each change parses. */
function transformAll(name) {
  const root = path.join(ROOT, 'node_modules', name);
  let files = 0;
  let bytes = 0;
  const changed = [];
  for (const file of sources(root)) {
    const source = fs.readFileSync(file);
    files++;
    bytes += source.length;
    if (!modules.mayDefineSdkClass(source)) continue;
    const format = buildOf(file) === 'esm' ? 'module' : 'commonjs';
    const out = rewriteSdkClasses(source, file, format, OPTIONS);
    if (out === undefined) continue;
    const kinds = [...out.matchAll(new RegExp(`${GLOBAL}\\("(\\w+)",(\\d)`, 'g'))].map((m) => (m[1] === 'protocol' ? `protocol${m[2]}` : m[1]));
    changed.push(`${path.relative(root, file).split(path.sep).join('/')} ${kinds.join(',')}`); // '/' on Windows too
    // It still parses: esbuild's parser, and V8 for a CommonJS module.
    esbuild.transformSync(out, { loader: 'js', format: format === 'module' ? 'esm' : undefined, logLevel: 'silent' });
    if (format === 'commonjs') vm.compileFunction(out, ['exports', 'require', 'module', '__filename', '__dirname']);
    // Only blocks were added.
    assert.equal(out.replace(BLOCK, ''), source.toString('utf8'), file);
  }
  return { files, megabytes: bytes / 1e6, changed: changed.sort() };
}

const SDK_1 = [
  'dist/cjs/client/stdio.js stdio',
  'dist/cjs/server/stdio.js stdio',
  'dist/cjs/shared/protocol.js protocol1',
  'dist/esm/client/stdio.js stdio',
  'dist/esm/server/stdio.js stdio',
  'dist/esm/shared/protocol.js protocol1',
];

const EXPECTED = {
  '@modelcontextprotocol/sdk': SDK_1,
  'sdk-1-middle': SDK_1,
  'sdk-1-oldest-cjs': SDK_1,
  'sdk-1-oldest': ['dist/client/stdio.js stdio', 'dist/server/stdio.js stdio', 'dist/shared/protocol.js protocol1'],
  '@modelcontextprotocol/client': ['dist/stdio.cjs stdio', 'dist/stdio.mjs stdio', /^dist\/src-[\w-]+\.cjs protocol2$/, /^dist\/src-[\w-]+\.mjs protocol2$/],
  '@modelcontextprotocol/server': ['dist/stdio.cjs stdio', 'dist/stdio.mjs stdio', /^dist\/src-[\w-]+\.cjs protocol2$/, /^dist\/src-[\w-]+\.mjs protocol2$/],
  'client-2-oldest': ['dist/stdio.cjs stdio', 'dist/stdio.mjs stdio', /^dist\/src-[\w-]+\.cjs protocol2$/, /^dist\/src-[\w-]+\.mjs protocol2$/],
  'server-2-oldest': ['dist/stdio.cjs stdio', 'dist/stdio.mjs stdio', /^dist\/src-[\w-]+\.cjs protocol2$/, /^dist\/src-[\w-]+\.mjs protocol2$/],
  'mcp-remote': [/^dist\/chunk-\w+\.js protocol2$/, 'dist/proxy.js protocol2,stdio'],
  typescript: [],
  webpack: [],
  rollup: [],
  zod: [],
  ajv: [],
  express: [],
  undici: [],
};

const totals = { files: 0, megabytes: 0, changed: 0 };

/** `changed` is exactly `expected` (strings or patterns), in any order. */
function assertChanged(name, changed, expected) {
    assert.equal(changed.length, expected.length, `${name} changed: ${JSON.stringify(changed)}`);
    const remaining = [...changed];
    for (const want of expected) {
      const i = remaining.findIndex((c) => (typeof want === 'string' ? c === want : want.test(c)));
      assert.ok(i >= 0, `${name}: ${want} not among ${JSON.stringify(remaining)}`);
      remaining.splice(i, 1);
    }
}

/**
 * The plugin's transform, as a bundler calls it, over every source file of
 * `name`: the changed files (as transformAll names them), asserting each
 * change is the runtime's call and blocks only and still parses; `warnings`:
 * what the build would print.
 */
function pluginTransformAll(name) {
  const root = path.join(ROOT, 'node_modules', name);
  const hook = rollupPlugin().transform;
  const { include, exclude } = hook.filter.id;
  const transformInclude = (id) => include.test(id) && !exclude.some((re) => re.test(id));
  const transform = function (code, id) {
    return hook.filter.code.include.test(code) ? hook.handler.call(this, code, id) : null;
  };
  const warnings = [];
  const context = { warn: (message) => warnings.push(message) };
  const changed = [];
  for (const file of sources(root)) {
    if (!transformInclude(file)) continue;
    const source = fs.readFileSync(file, 'utf8');
    const out = transform.call(context, source, file);
    if (out === null) continue;
    const kinds = [...out.code.matchAll(new RegExp(`${BUILT_GLOBAL}\\("(\\w+)",(\\d)`, 'g'))].map((m) => (m[1] === 'protocol' ? `protocol${m[2]}` : m[1]));
    changed.push(`${path.relative(root, file).split(path.sep).join('/')} ${kinds.join(',')}`); // '/' on Windows too
    const esm = out.code.includes('import __mcpOrderedDispatchStart');
    esbuild.transformSync(out.code, { loader: 'js', format: esm ? 'esm' : undefined, logLevel: 'silent' });
    if (!esm) vm.compileFunction(out.code, ['exports', 'require', 'module', '__filename', '__dirname']);
    assert.equal(out.code.replace(RUNTIME_CALL, '').replace(BUILT_BLOCK, ''), source, file);
  }
  return { changed: changed.sort(), warnings };
}

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`${name}: every source file through the transform; ${expected.length === 0 ? 'none changes' : `only its ${expected.length} SDK class module(s) change`}`, () => {
    const { files, megabytes, changed } = transformAll(name);
    assert.ok(files > 0, `${name} has source files`);
    totals.files += files;
    totals.megabytes += megabytes;
    totals.changed += changed.length;
    assertChanged(name, changed, expected);
  });
}

for (const [name, expected] of Object.entries(EXPECTED)) {
  test(`the bundler plugin's transform over ${name}: ${expected.length === 0 ? 'none changes' : `only its ${expected.length} SDK class module(s) change`}, no build warning`, () => {
    const { changed, warnings } = pluginTransformAll(name);
    assert.deepEqual(warnings, []);
    assertChanged(name, changed, expected);
  });
}

test('totals', (t) => {
  t.diagnostic(`${totals.files} files, ${totals.megabytes.toFixed(1)} MB transformed; ${totals.changed} changed`);
  assert.equal(totals.changed, Object.values(EXPECTED).reduce((n, e) => n + e.length, 0));
});

// A Protocol-shaped class written as a bundler would, and the same names where they are not a class.
const PROTOCOL_BODY = '{constructor(){this._progressHandlers=new Map}_onnotification(e){this._notificationHandlers.get(e.method)}_onresponse(e){}_onrequest(e,t){}}';

test('the locate step: marker names and braces in strings, templates, regexes and comments change nothing', () => {
  const decoys = [
    `const s = "class A ${PROTOCOL_BODY}";`,
    `const t = \`class A ${PROTOCOL_BODY.replaceAll('{', '{ ')} \${'}'}\`;`,
    `// class A ${PROTOCOL_BODY}\nconst x = 1;`,
    `/* class A ${PROTOCOL_BODY} */`,
    `const r = /class A \\{constructor\\(\\)\\{this._progressHandlers=1\\}_onnotification\\(\\)\\{\\}_onresponse\\(\\)\\{\\}_onrequest\\(\\)\\{\\}\\}/;`,
    `class B extends Object ${PROTOCOL_BODY}`, // has `extends`: not the SDK's Protocol
    `const o = { class: 1, _onnotification() {}, _onresponse() {}, _onrequest() {}, _progressHandlers: new Map() };`,
    `class C { f() { const _onnotification = 1, _onresponse = 2, _onrequest = 3; this._progressHandlers = 4; } }`,
  ];
  for (const source of decoys) {
    assert.ok(modules.mayDefineSdkClass(source), `passes the prefilter: ${source}`);
    assert.equal(rewriteSdkClasses(source, '/x.js', 'commonjs', OPTIONS), undefined, source);
  }
});

test('the locate step: a class as bundlers write it gets one block right after its brace, named or anonymous, nested in strings and templates around it', () => {
  const forms = [
    `var Ao=class${PROTOCOL_BODY};`,
    `class el${PROTOCOL_BODY}`,
    `const q = "}{", w = \`\${"{"}\`; var init_p = __esm(() => { P = class ${PROTOCOL_BODY}; }); const z = /[}{]/g;`,
    `(function(m){m.exports = class ${PROTOCOL_BODY}})(module);`,
    `class D { static x = "_onnotification"; _onnotification(){} _onresponse(){} _onrequest(){} _progressHandlers = new Map(); }`,
    `class E { constructor(){ f(this, "_progressHandlers", new Map()); } _onnotification(){} _onresponse(){} _onrequest(){} }`,
  ];
  for (const source of forms) {
    const out = rewriteSdkClasses(source, '/x.js', 'commonjs', OPTIONS);
    assert.ok(out !== undefined, source);
    const blocks = out.match(BLOCK);
    assert.equal(blocks.length, 1, out);
    assert.ok(new RegExp(`class\\s*\\w*\\s*\\{static\\{try\\{typeof globalThis\\.${GLOBAL}`).test(out), out);
    vm.compileFunction(out, ['exports', 'require', 'module', '__filename', '__dirname', '__esm', 'P', 'f']);
  }
});

test('the locate step ends on a source that ends in a number, and reads a regular expression after a control head', () => {
  // Both pass the prefilter; the first used to lex forever (a number at the very end).
  const endsInNumber = `// _progressHandlers _onnotification _onrequest\nmodule.exports=1`;
  assert.equal(rewriteSdkClasses(endsInNumber, '/n.js', 'commonjs', OPTIONS), undefined);
  assert.equal(rewriteSdkClasses(Buffer.from(`${endsInNumber}.5e+3`), '/n2.js', 'commonjs', OPTIONS), undefined);
  // `if (x) /"/.test(y)`: a regex, so the quote in it opens no string; the class after it is found.
  const afterIf = `if (x) /"/.test(y); var P = class ${PROTOCOL_BODY};`;
  const out = rewriteSdkClasses(afterIf, '/r.js', 'commonjs', OPTIONS);
  assert.ok(out !== undefined && out.match(BLOCK).length === 1, out);
  vm.compileFunction(out, ['x', 'y']);
});

test('a cache entry is used only where it names class-body braces of the very source; a tampered one is passed over', () => {
  const source = `var P = class ${PROTOCOL_BODY}; /* tampered-cache case */`;
  const first = rewriteSdkClasses(source, '/c.js', 'commonjs', OPTIONS);
  assert.ok(first !== undefined);
  const files = fs.readdirSync(cache).filter((f) => f.endsWith('.json'));
  const key = files.find((f) => JSON.parse(fs.readFileSync(path.join(cache, f), 'utf8')).at.some(([offset]) => offset === source.indexOf('{') + 1));
  assert.ok(key, 'the entry for this source is in the cache');
  // An entry pointing somewhere else, or carrying code for its generation, is not used: the source is located again.
  for (const at of [[[3, 'protocol', 1]], [[source.indexOf('{') + 1, 'protocol', '1);process.exit(9);(']], [[source.indexOf('{') + 1, 'evil', 1]]]) {
    fs.writeFileSync(path.join(cache, key), JSON.stringify({ at }));
    assert.equal(rewriteSdkClasses(source, '/c.js', 'commonjs', OPTIONS), first);
  }
});
