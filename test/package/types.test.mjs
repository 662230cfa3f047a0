// TypeScript users: test/package/types/*.mts|*.cts use the public API and
// mcp-ordered-dispatch/testing the way a user's test would (imported by the
// package's own name, so through its `exports` map), and must compile with
// `tsc --noEmit --strict`; testing.d.ts itself must check too. README's
// examples compile the same way (test/support/readme-examples.mjs), and the
// declarations name exactly what the package exports at run time, down to
// the members of its classes (the native ones from the built addon).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { ROOT, tsc, compileExamples, compiledExamples, examplesIn } from '../support/readme-examples.mjs';
import { declaredSurface, runtimeMembers, runtimeStatics, missing } from './support/declarations.mjs';

const require = createRequire(import.meta.url);

test('the TypeScript examples (ESM and CommonJS) compile with tsc --noEmit --strict', async () => {
  const { code, output } = await tsc('test/package/types/tsconfig.json');
  assert.equal(code, 0, output);
});

test('testing.d.ts compiles on its own with tsc --noEmit --strict', async () => {
  const { code, output } = await tsc('test/package/types/tsconfig.dts.json');
  assert.equal(code, 0, output);
});

test("README's JavaScript and TypeScript examples compile with tsc --strict (checkJs), against the package's own types", async () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = examplesIn(readme);
  const compiled = compiledExamples(readme);
  const skipped = blocks.filter((b) => b.skip !== undefined);
  // Most examples are compiled; the few that cannot be say why, next to them.
  assert.ok(compiled.length >= 6, `only ${compiled.length} README examples found to compile`);
  assert.ok(skipped.length <= 3, `too many README blocks marked not compiled: ${skipped.map((b) => `line ${b.line} (${b.skip})`).join(', ')}`);
  const { code, output, files } = await compileExamples(readme);
  assert.equal(code, 0, `tsc --strict on README's examples (${files.join(', ')}):\n${output}`);
});

test('the examples in docs/, CONTRIBUTING.md and ARCHITECTURE.md compile with tsc --strict too', async () => {
  const pages = [...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'CONTRIBUTING.md', 'ARCHITECTURE.md'];
  // One tsc for every page: each example's file is named after its page and line.
  const { code, output, files } = await compileExamples(pages.map((page) => [fs.readFileSync(path.join(ROOT, page), 'utf8'), page.replace(/[/.]/g, '-')]));
  assert.equal(code, 0, `tsc --strict on the examples (${files.join(', ')}):\n${output}`);
  assert.ok(files.length >= 3, `${files.length} examples compiled in ${pages.join(', ')}`);
});

test('the README check fails on a wrong example (a wrong argument, an unknown option), and insists on tagged fences', async () => {
  const broken = [
    '# Broken',
    '```ts',
    "import { classify, Dispatcher } from 'mcp-ordered-dispatch';",
    "classify({ jsonrpc: '2.0', method: 'm' }, 3);",
    'new Dispatcher({ sdk: 2, onResponse() {}, onRequest() {}, onNotification() {}, onInvalid() {}, onError() {}, ordered: true });',
    '```',
    '<!-- example: not compiled (a fragment) -->',
    '```js',
    'this is not JavaScript',
    '```',
  ].join('\n');
  const { code, output } = await compileExamples(broken, 'broken');
  assert.notEqual(code, 0, output);
  assert.match(output, /broken\.md-L2\.mts\(2,\d+\): error TS2345/, output);
  assert.match(output, /broken\.md-L2\.mts\(3,\d+\): error TS2353: .*'ordered'/, output);
  assert.doesNotMatch(output, /L8/, 'the marked block is not compiled');
  assert.throws(() => examplesIn('text\n```\nplain\n```\n'), /must name its language/);
});

function checkSurface(label, declared, exportsObject, internal = []) {
  const runtime = new Set(Object.keys(exportsObject).filter((n) => n !== 'default' && !internal.includes(n)));
  const names = new Set(declared.values.keys());
  assert.deepEqual(missing(runtime, names), [], `${label}: exported at run time but not declared`);
  assert.deepEqual(missing(names, runtime), [], `${label}: declared but not exported at run time`);
  for (const [name, kind] of declared.values) {
    const actual = typeof exportsObject[name];
    assert.equal(kind === 'const' ? actual !== 'function' : actual === 'function', true, `${label}: ${name} is declared a ${kind} but is a ${actual}`);
  }
}

function checkMembers(label, declaredMembers, instance, Class) {
  const actual = runtimeMembers(instance);
  assert.deepEqual(missing(actual, declaredMembers.instance), [], `${label}: public members not declared`);
  assert.deepEqual(missing(declaredMembers.instance, actual), [], `${label}: declared members that do not exist`);
  if (Class) {
    const statics = runtimeStatics(Class);
    assert.deepEqual(missing(statics, declaredMembers.statics), [], `${label}: static members not declared`);
    assert.deepEqual(missing(declaredMembers.statics, statics), [], `${label}: declared static members that do not exist`);
  }
}

test('index.d.ts declares exactly what the package exports (CJS and ESM entries) and every public member of its classes', async () => {
  const declared = declaredSurface(path.join(ROOT, 'entries', 'index.d.ts'));
  const cjs = require('../../entries/index.cjs');
  checkSurface('index.cjs', declared, cjs);
  checkSurface('index.mjs', declared, await import('../../entries/index.mjs'));

  // The classes, each with a live instance: the native ones from the built addon.
  const addon = require('../../lib/native/addon.cjs').load();
  const callbacks = { onResponse() {}, onRequest() {}, onNotification() {}, onInvalid() {}, onError() {} };
  const instances = {
    Dispatcher: [new addon.Dispatcher(callbacks), addon.Dispatcher],
    ProgressTokens: [new addon.ProgressTokens(), addon.ProgressTokens],
    NativeReadBuffer: [new cjs.NativeReadBuffer(), cjs.NativeReadBuffer],
    StdioFramingError: [new cjs.StdioFramingError('m', 0, 1, 'blank-line'), cjs.StdioFramingError],
    UnsupportedSdkError: [new cjs.UnsupportedSdkError('m'), cjs.UnsupportedSdkError],
    NativeAddonError: [new cjs.NativeAddonError('m'), cjs.NativeAddonError],
  };
  assert.deepEqual([...declared.classes.keys()].sort(), Object.keys(instances).sort(), 'the declared classes are those checked here');
  for (const [name, [instance, Class]] of Object.entries(instances)) checkMembers(`class ${name}`, declared.classes.get(name), instance, Class);
  // Plain objects the API returns, against their interfaces.
  checkMembers('DispatcherStats (Dispatcher#stats())', declared.interfaces.get('DispatcherStats'), instances.Dispatcher[0].stats());

  // Everything the addon exports is public (and declared above) or one of its
  // internal pieces, so a binding added in Rust without a type fails here.
  const INTERNAL = ['StdioFramer', 'StdioThreadReader', 'boundary', '_testPanic', 'locateClasses', 'lexFailure'];
  const unknown = Object.keys(addon).filter((n) => !declared.values.has(n) && !INTERNAL.includes(n));
  assert.deepEqual(unknown, [], 'the native addon exports names index.d.ts does not declare (add a type, or list them as internal here)');
});

test('testing.d.ts declares exactly what mcp-ordered-dispatch/testing exports, and WireTap what tapWire returns', async () => {
  const declared = declaredSurface(path.join(ROOT, 'entries', 'testing.d.ts'));
  const cjs = require('../../entries/testing.cjs');
  checkSurface('testing.cjs', declared, cjs);
  checkSurface('testing.mjs', declared, await import('../../entries/testing.mjs'));
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const tap = cjs.tapWire(new Client({ name: 'types', version: '1.0.0' }));
  try {
    checkMembers('WireTap (tapWire())', declared.interfaces.get('WireTap'), tap);
  } finally {
    tap.untap();
  }
});

test('register.d.ts declares no exports, as register.cjs exports nothing outside the vm sandboxes', () => {
  const declared = declaredSurface(path.join(ROOT, 'entries', 'register.d.ts'));
  assert.equal(declared.values.size, 0);
  // In a child process: requiring it installs the hooks.
  const r = spawnSync(process.execPath, ['-p', "JSON.stringify(Object.keys(require('./entries/register.cjs')))"], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), []);
});
