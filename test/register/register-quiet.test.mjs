// `register` costs a process nothing it does not use and prints nothing, on
// the Node line this file runs on (`npm test` runs it on the machine's Node
// and on each line of scripts/node-lines.mjs):
//   - `--import`/`--require mcp-ordered-dispatch/register`, and the same in
//     NODE_OPTIONS (every `node`, `npm`, `npx` a host starts): nothing on
//     stderr — in particular no DEP0205 deprecation of module.register() on
//     Node 26 — whether the process loads the SDK or not;
//   - module.registerHooks() wherever Node has it, module.register() only
//     where it does not (checked with a spy preloaded before register);
//   - a process that never loads the SDK loads neither the addon nor the
//     patcher nor SDK discovery; one that loads the SDK loads the stdio
//     readers only when a transport starts, and SDK discovery not at all;
//   - an SDK class found by shape is located by the addon (the JavaScript
//     tokenizer never loads), and from the cache without the locate step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Module from 'node:module';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const node = process.execPath;
const hasRegisterHooks = typeof Module.registerHooks === 'function';

function cleanEnv(extra = {}) {
  const env = { ...process.env, PATH: pathWithThisNode(), ...extra };
  delete env.NODE_TEST_CONTEXT;
  if (!('NODE_OPTIONS' in extra)) delete env.NODE_OPTIONS;
  return env;
}

// An application's first lines: the SDK client and its stdio transport (1.x
// ESM, 2.x ESM, 1.x CJS), then its own output.
const SDK_APP_ESM = `
  import { Client as C1 } from '@modelcontextprotocol/sdk/client/index.js';
  import { StdioClientTransport as T1 } from '@modelcontextprotocol/sdk/client/stdio.js';
  import { Client as C2 } from '@modelcontextprotocol/client';
  import { StdioClientTransport as T2 } from '@modelcontextprotocol/client/stdio';
  import { createRequire } from 'node:module';
  const require = createRequire(process.cwd() + '/x.js');
  const { isPatched, isStdioPatched } = require('./entries/index.cjs');
  const cjs = require('@modelcontextprotocol/sdk/client/index.js');
  const { Protocol: P1 } = await import('@modelcontextprotocol/sdk/shared/protocol.js');
  const { Protocol: P2 } = await import('@modelcontextprotocol/client');
  const { Protocol: P1c } = require('@modelcontextprotocol/sdk/shared/protocol.js');
  console.log(JSON.stringify({ app: 'ran', patched: [isPatched(P1), isPatched(P2), isPatched(P1c), isStdioPatched(T1), isStdioPatched(T2)], cjs: typeof cjs.Client }));
`;

/**
 * An ES module spy, imported after register, that prints the files of lib/
 * in the require cache as the process exits (itself never in that cache; a
 * CommonJS preload would be, and register looks at what was required before it).
 */
function writeSpy(dir) {
  const spy = path.join(dir, 'spy.mjs');
  fs.writeFileSync(
    spy,
    `import path from 'node:path';
     import { createRequire } from 'node:module';
     const require = createRequire(import.meta.url);
     const lib = ${JSON.stringify(path.join(root, 'lib'))};
     process.on('exit', () => console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(lib)).map((f) => path.relative(lib, f).split(path.sep).join('/')).sort())));\n`,
  );
  return spy;
}

const REGISTER_FLAGS = [
  ['--import', 'mcp-ordered-dispatch/register'],
  ['--require', 'mcp-ordered-dispatch/register'],
];

for (const [flag, entry] of REGISTER_FLAGS) {
  test(`node ${process.version} ${flag} ${entry}: -e 0 exits 0 with nothing on stderr`, async () => {
    const r = await runCommand(node, [flag, entry, '-e', '0'], { cwd: root, env: cleanEnv() });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '', show(r));
  });

  test(`node ${process.version} ${flag} ${entry}: an app importing the SDK client and stdio transport is patched, nothing on stderr`, async () => {
    const r = await runCommand(node, [flag, entry, '--input-type=module', '-e', SDK_APP_ESM], { cwd: root, env: cleanEnv() });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '', show(r));
    assert.deepEqual(JSON.parse(r.stdout), { app: 'ran', patched: [true, true, true, true, true], cjs: 'function' });
  });
}

test(`node ${process.version}: NODE_OPTIONS=--import mcp-ordered-dispatch/register — node and npm children write nothing to stderr`, async () => {
  const env = cleanEnv({ NODE_OPTIONS: '--import mcp-ordered-dispatch/register' });
  const plain = await runCommand(node, ['-e', 'console.log("child ok")'], { cwd: root, env });
  assert.equal(plain.code, 0, show(plain));
  assert.equal(plain.stdout, 'child ok\n', show(plain));
  assert.equal(plain.stderr, '', show(plain));

  const app = await runCommand(node, ['--input-type=module', '-e', SDK_APP_ESM], { cwd: root, env });
  assert.equal(app.code, 0, show(app));
  assert.equal(app.stderr, '', show(app));
  assert.deepEqual(JSON.parse(app.stdout).patched, [true, true, true, true, true]);

  // npm runs on this same Node (PATH has it first): its own check.
  const npm = await runCommand(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['--version'], { cwd: root, env });
  assert.equal(npm.code, 0, show(npm));
  assert.match(npm.stdout, /^\d+\.\d+\.\d+/, show(npm));
  assert.equal(npm.stderr, '', show(npm));
});

test(`node ${process.version}: register uses module.${hasRegisterHooks ? 'registerHooks' : 'register'}() (${hasRegisterHooks ? 'in-thread' : 'no registerHooks on this line'})`, async () => {
  // A preload that records which of the two the register entry calls.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-spy-'));
  try {
    const spy = path.join(dir, 'spy.cjs');
    fs.writeFileSync(
      spy,
      `const Module = require('node:module');
       const calls = [];
       for (const name of ['register', 'registerHooks']) {
         const original = Module[name];
         if (typeof original !== 'function') continue;
         Module[name] = function (...args) { calls.push(name); return original.apply(this, args); };
       }
       process.on('exit', () => console.log(JSON.stringify(calls)));\n`,
    );
    for (const [flag, entry] of REGISTER_FLAGS) {
      const r = await runCommand(node, ['--require', spy, flag, entry, '-e', '0'], { cwd: root, env: cleanEnv() });
      assert.equal(r.code, 0, show(r));
      assert.deepEqual(JSON.parse(r.stdout), [hasRegisterHooks ? 'registerHooks' : 'register'], `${flag}: ${show(r)}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(`node ${process.version}: a process with register that never loads the SDK loads no addon, patcher or SDK discovery`, async () => {
  // What of lib/ is in the require cache as the process exits: an ES module
  // spy imported after register reads it then (itself never in that cache;
  // a CommonJS preload would be, and register looks at what was required before it).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-cache-'));
  try {
    const spy = writeSpy(dir);
    for (const [flag, entry] of REGISTER_FLAGS) {
      // Requires nothing after register: register's own entry is all.
      const bare = await runCommand(node, [flag, entry, '--import', pathToFileURL(spy).href, '-e', '0'], { cwd: root, env: cleanEnv() });
      assert.equal(bare.code, 0, show(bare));
      // The hooks' side (lib/register/hooks.cjs, and the rewrite gates of lib/shape/rewrite.cjs with the
      // prefilter's lib/adapters/modules.cjs) loads either way:
      // where Node has no registerHooks, to register module.register()'s hooks; where it has, to look at the
      // spy itself (every module takes the prefilter: an SDK copy may be bundled into any file).
      // Under --require, require(esm) caches lib/register/install-hooks.mjs too.
      const expected = [...(flag === '--import' ? [] : ['register/gate.cjs', 'register/install-hooks.mjs', 'register/sandboxed.cjs']), 'adapters/modules.cjs', 'register/hooks.cjs', 'shape/globals.cjs', 'shape/rewrite.cjs'].sort();
      assert.deepEqual(JSON.parse(bare.stdout), expected, `${flag}: ${show(bare)}`);
      // Requires a module (not the SDK): the hooks' side loads to look at it, nothing heavier.
      const some = await runCommand(node, [flag, entry, '--import', pathToFileURL(spy).href, '-e', "require('node:util')"], { cwd: root, env: cleanEnv() });
      assert.equal(some.code, 0, show(some));
      const loaded = JSON.parse(some.stdout);
      assert.ok(loaded.includes('register/hooks.cjs'), `${flag}: register's hooks looked at the require: ${loaded}`);
      for (const heavy of ['native/addon.cjs', 'classify/dispatch.cjs', 'patch/protocol.cjs', 'discover/discover.cjs', 'discover/package-of.cjs', 'patch/transports.cjs', 'stdio/read-buffer.cjs', 'progress/tokens.cjs', 'register/esm-transform.cjs', 'patch/records.cjs', 'adapters/v1.cjs', 'adapters/v2.cjs', 'adapters/upstream.cjs', 'adapters/common.cjs']) {
        assert.ok(!loaded.includes(heavy), `${flag}: ${heavy} loaded at start: ${loaded}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(`node ${process.version}: with register, using the SDK loads the patcher (importing it does not) but not the stdio readers or SDK discovery until a transport starts`, async () => {
  // An application that imports the client and its stdio transport of both
  // generations (ES modules), with USE constructs a Client of each (register
  // patches a class at its first use), and with START also starts and closes
  // one transport of each (a real child that exits at once); it prints what
  // of lib/ is in the require cache then.
  const app = `import path from 'node:path';
    import { createRequire } from 'node:module';
    import { StdioClientTransport as T1 } from '@modelcontextprotocol/sdk/client/stdio.js';
    import { StdioClientTransport as T2 } from '@modelcontextprotocol/client/stdio';
    import { Client as C1 } from '@modelcontextprotocol/sdk/client/index.js';
    import { Client as C2 } from '@modelcontextprotocol/client';
    const require = createRequire(import.meta.url);
    const lib = ${JSON.stringify(path.join(root, 'lib'))};
    if (process.env.USE) for (const C of [C1, C2]) new C({ name: 'c', version: '1' });
    if (process.env.START) {
      for (const T of [T1, T2]) {
        const t = new T({ command: process.execPath, args: ['-e', ''] });
        await t.start();
        await t.close();
      }
    }
    console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(lib)).map((f) => path.relative(lib, f).split(path.sep).join('/')).sort()));`;
  const [flag, entry] = REGISTER_FLAGS.find(([f]) => f === '--import');
  const argv = [flag, entry, '--input-type=module', '-e', app];
  const imported = await runCommand(node, argv, { cwd: root, env: cleanEnv() });
  assert.equal(imported.code, 0, show(imported));
  for (const later of ['patch/protocol.cjs', 'native/addon.cjs', 'patch/transports.cjs', 'adapters/v1.cjs', 'adapters/v2.cjs']) assert.ok(!JSON.parse(imported.stdout).includes(later), `${later} not loaded before the SDK is used: ${imported.stdout}`);
  const loaded = await runCommand(node, argv, { cwd: root, env: cleanEnv({ USE: '1' }) });
  assert.equal(loaded.code, 0, show(loaded));
  const files = JSON.parse(loaded.stdout);
  for (const needed of ['patch/protocol.cjs', 'native/addon.cjs', 'patch/transports.cjs', 'discover/package-of.cjs']) assert.ok(files.includes(needed), `${needed} loaded with the SDK: ${files}`);
  for (const later of ['stdio/read-buffer.cjs', 'stdio/thread-read-buffer.cjs', 'discover/discover.cjs']) assert.ok(!files.includes(later), `${later} not loaded before a transport starts: ${files}`);
  // The SDK-load path's files (both generations' adapters here): 19 shared
  // (the rewrite gates, lib/shape/rewrite.cjs and globals.cjs, the loader's
  // lib/native/platform.cjs and opened.cjs, and run's environment rule with
  // lib/patch/fix-env.cjs among them), one adapter each, and on
  // registerHooks lines the in-thread ES module transform; and the deferred
  // patch's lib/patch/deferred.cjs, the patcher's lib/patch/machinery.cjs,
  // and its code cache's lib/register/code-cache.cjs with lib/shape/cache.cjs
  // (the folder) and lib/native/file-identity.cjs.
  assert.ok(files.length <= (hasRegisterHooks ? 27 : 26), `${files.length} files of lib/ loaded with the SDK: ${files}`);
  const started = await runCommand(node, argv, { cwd: root, env: cleanEnv({ START: '1', USE: '1' }) });
  assert.equal(started.code, 0, show(started));
  const after = JSON.parse(started.stdout);
  for (const reader of ['stdio/read-buffer.cjs', 'stdio/thread-read-buffer.cjs']) assert.ok(after.includes(reader), `${reader} loaded once a transport started: ${after}`);
  assert.ok(!after.includes('discover/discover.cjs'), `discover.cjs is for install() and doctor only: ${after}`);
});

test(`node ${process.version}: with register, an app that loads one SDK generation loads only that generation's adapter`, async () => {
  const lib = path.join(root, 'lib');
  const cached = `;process.on('exit', () => console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(lib)})).map((f) => path.relative(${JSON.stringify(lib)}, f).split(path.sep).join('/')))));`;
  const prelude = "import path from 'node:path'; import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
  const [flag, entry] = REGISTER_FLAGS.find(([f]) => f === '--import');
  for (const [generation, client] of [
    [1, '@modelcontextprotocol/sdk/client/index.js'],
    [2, '@modelcontextprotocol/client'],
  ]) {
    // A Client constructed: its class is patched at its first use.
    const use = `import { Client } from ${JSON.stringify(client)}; new Client({ name: 'c', version: '1' });`;
    const r = await runCommand(node, [flag, entry, '--input-type=module', '-e', `${use} ${prelude}${cached}`], { cwd: root, env: cleanEnv() });
    assert.equal(r.code, 0, show(r));
    const files = JSON.parse(r.stdout);
    assert.ok(files.includes(`adapters/v${generation}.cjs`), `${generation}.x: its adapter loaded: ${files}`);
    assert.ok(!files.includes(`adapters/v${3 - generation}.cjs`), `${generation}.x: the other adapter not loaded: ${files}`);
  }
});

test(`node ${process.version}: a module holding an SDK class by shape is located by the addon: the JavaScript tokenizer never loads, and from the cache neither does the locate step`, async () => {
  // ARCHITECTURE.md's "What loads when": the search by shape's files, as the
  // process exits, with a cold cache and then a warm one (a CommonJS module:
  // its hook runs on the main thread on every line).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-located-'));
  try {
    const spy = writeSpy(dir);
    // A bundled Protocol as esbuild leaves it: a renamed class, known by its members.
    fs.writeFileSync(path.join(dir, 'bundle.cjs'), 'var Ao = class {constructor(){this._progressHandlers=new Map}_onnotification(e){}_onresponse(e){}_onrequest(e,t){}};\nmodule.exports = Ao;\n');
    // (Its members alone: the patcher then refuses it with a warning; that its text was changed is what counts here.)
    const app = `const Ao = require(${JSON.stringify(path.join(dir, 'bundle.cjs'))}); console.log(JSON.stringify(String(Ao).startsWith('class {static{')));`;
    for (const [flag, entry] of REGISTER_FLAGS) {
      const env = cleanEnv({ MCP_ORDERED_DISPATCH_CACHE_DIR: path.join(dir, `cache${flag}`) });
      for (const [run, expected] of [['cold', ['shape/blocks.cjs', 'shape/cache.cjs', 'shape/globals.cjs', 'shape/rewrite.cjs', 'shape/sdk-classes.cjs']], ['warm', ['shape/blocks.cjs', 'shape/cache.cjs', 'shape/globals.cjs', 'shape/rewrite.cjs']]]) {
        const r = await runCommand(node, [flag, entry, '--import', pathToFileURL(spy).href, '-e', app], { cwd: root, env });
        assert.equal(r.code, 0, show(r));
        const [changed, loadedLine] = r.stdout.trim().split('\n').slice(-2);
        assert.equal(changed, 'true', `${flag}, ${run}: the class got its block: ${show(r)}`);
        const loaded = JSON.parse(loadedLine);
        assert.deepEqual(loaded.filter((f) => f.startsWith('shape/')), expected, `${flag}, ${run}: ${loaded}`);
        if (run === 'cold') assert.ok(loaded.includes('native/addon.cjs'), `${flag}: the addon located it: ${loaded}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(`node ${process.version}: a process loading large packages without the SDK pays only the prefilter: the locate step never loads`, async () => {
  // What of lib/ is cached as the process exits, as above; the packages go through the load hooks (CommonJS and ES modules).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-prefilter-'));
  try {
    const spy = writeSpy(dir);
    const app = "require('typescript'); require('zod'); require('ajv'); await import('rollup'); await import('webpack');";
    for (const [flag, entry] of REGISTER_FLAGS) {
      const r = await runCommand(node, [flag, entry, '--import', pathToFileURL(spy).href, '--input-type=module', '-e', `import { createRequire } from 'node:module'; const require = createRequire(process.cwd() + '/x.js'); ${app}`], { cwd: root, env: cleanEnv() });
      assert.equal(r.code, 0, show(r));
      assert.equal(r.stderr, '', show(r));
      const loaded = JSON.parse(r.stdout.trim().split('\n').pop());
      for (const heavy of ['shape/cache.cjs', 'shape/sdk-classes.cjs', 'shape/classes.cjs', 'shape/tokens.cjs', 'shape/blocks.cjs', 'adapters/shape.cjs', 'native/addon.cjs', 'patch/protocol.cjs']) {
        assert.ok(!loaded.includes(heavy), `${flag}: ${heavy} loaded: ${loaded}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
