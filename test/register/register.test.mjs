// `node --import mcp-ordered-dispatch/register` and `node --require
// mcp-ordered-dispatch/register`: real child processes running the stdio
// reproduction (all-in-one writes: the stock SDK loses every progress
// notification) with no install() call in the application.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preload } from '../support/spawn-node.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RUNNERS = { esm: 'test/support/repro-esm.mjs', cjs: 'test/support/repro-cjs.cjs' };

function run(nodeArgs, script, args, cwd = root) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${script} exited ${code}: ${stderr}`));
      else resolve({ result: JSON.parse(stdout.trim().split('\n').pop()), stderr });
    });
  });
}

const reproArgs = (sdk) => [`--sdk=${sdk}`, '--patched=0', '--pairs=3', '--concurrency=2', '--mode=all-in-one'];

for (const [flag, entry] of [
  ['--import', 'mcp-ordered-dispatch/register'],
  ['--require', 'mcp-ordered-dispatch/register'],
]) {
  for (const build of ['esm', 'cjs']) {
    test(`node ${flag} ${entry}: an ${build.toUpperCase()} app on SDK 1.x and 2.x loses nothing`, async () => {
      for (const sdk of [1, 2]) {
        const { result, stderr } = await run([flag, entry], RUNNERS[build], reproArgs(sdk));
        assert.equal(result.progressExpected, 18);
        assert.equal(result.lost, 0, JSON.stringify(result));
        assert.equal(result.onerrorCount, 0, JSON.stringify(result.onerrors));
        assert.doesNotMatch(stderr, /Warning/);
      }
    });
  }
}

test('register frames the stdio transports natively too (ESM and CJS builds, 1.x and 2.x); MCP_ORDERED_DISPATCH_FRAMING=off opts out', async () => {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(process.cwd() + '/x.js');
    const { isStdioPatched } = require('./lib/patch/transports.cjs');
    const classes = [
      (await import('@modelcontextprotocol/sdk/client/stdio.js')).StdioClientTransport,
      require('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport,
      (await import('@modelcontextprotocol/client/stdio')).StdioClientTransport,
      require('@modelcontextprotocol/server/stdio').StdioServerTransport,
    ];
    console.log(JSON.stringify(classes.map(isStdioPatched)));`;
  const probe = (env) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'mcp-ordered-dispatch/register', '--input-type=module', '-e', script], { cwd: root, env: { ...process.env, ...env } });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => process.stderr.write(c));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
    });
  assert.deepEqual(await probe({}), [true, true, true, true]);
  assert.deepEqual(await probe({ MCP_ORDERED_DISPATCH_FRAMING: 'off' }), [false, false, false, false]);
});

test('without register the same app loses progress (the check above can fail)', async () => {
  const { result } = await run([], RUNNERS.esm, reproArgs(1));
  assert.equal(result.lost, result.progressExpected);
});

// A copy of the SDK that only a dependency resolves: node_modules/dep/node_modules/@modelcontextprotocol/...
const nested = path.join(root, 'test', '.tmp', 'nested');

before(() => {
  fs.rmSync(nested, { recursive: true, force: true });
  const dep = path.join(nested, 'node_modules', 'dep');
  for (const name of ['sdk', 'client']) {
    fs.cpSync(path.join(root, 'node_modules', '@modelcontextprotocol', name), path.join(dep, 'node_modules', '@modelcontextprotocol', name), {
      recursive: true,
      filter: (src) => !/\.(map|d\.ts|d\.mts|d\.cts)$/.test(src),
    });
  }
  fs.writeFileSync(path.join(dep, 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', exports: { import: './index.mjs', require: './index.cjs' } }));
  const sdkFor = (g) =>
    g === 1
      ? ['@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/client/stdio.js']
      : ['@modelcontextprotocol/client', '@modelcontextprotocol/client/stdio'];
  const esm = [1, 2]
    .map((g) => {
      const [c, s] = sdkFor(g);
      return `import { Client as C${g} } from '${c}';\nimport { StdioClientTransport as T${g} } from '${s}';`;
    })
    .join('\n');
  fs.writeFileSync(
    path.join(dep, 'index.mjs'),
    `${esm}\nexport const sdks = { 1: { Client: C1, StdioClientTransport: T1 }, 2: { Client: C2, StdioClientTransport: T2 } };\n`,
  );
  const cjs = [1, 2]
    .map((g) => {
      const [c, s] = sdkFor(g);
      return `  ${g}: { Client: require('${c}').Client, StdioClientTransport: require('${s}').StdioClientTransport },`;
    })
    .join('\n');
  fs.writeFileSync(path.join(dep, 'index.cjs'), `exports.sdks = {\n${cjs}\n};\n`);
  const app = (load) => `${load}
const { runRepro } = require(${JSON.stringify(path.join(root, 'test', 'support', 'repro.cjs'))});
(async () => {
  const out = {};
  for (const generation of [1, 2]) {
    const { Client, StdioClientTransport } = sdks[generation];
    out[generation] = await runRepro({ Client, StdioClientTransport, generation }, { pairs: 2, mode: 'all-in-one' });
  }
  console.log(JSON.stringify(out));
})();
`;
  fs.writeFileSync(path.join(nested, 'app.cjs'), app(`const { sdks } = require('dep');`));
  fs.writeFileSync(
    path.join(nested, 'app.mjs'),
    app(`import { createRequire } from 'node:module';\nimport { sdks } from 'dep';\nconst require = createRequire(import.meta.url);`),
  );
});

after(() => fs.rmSync(path.join(root, 'test', '.tmp'), { recursive: true, force: true }));

for (const [flag, app] of [
  ['--import', 'app.mjs'],
  ['--require', 'app.cjs'],
]) {
  test(`register (${flag}) also patches an SDK copy that only a nested dependency resolves (${app})`, async () => {
    const entry = path.join(root, 'entries', flag === '--import' ? 'register.mjs' : 'register.cjs');
    const { result } = await run(preload(flag, entry), path.join(nested, app), [], nested);
    for (const generation of ['1', '2']) {
      assert.equal(result[generation].progressExpected, 6);
      assert.equal(result[generation].lost, 0, JSON.stringify(result[generation]));
    }
    const stock = await run([], path.join(nested, app), [], nested);
    for (const generation of ['1', '2']) assert.equal(stock.result[generation].lost, 6, 'stock loses everything');
  });
}
