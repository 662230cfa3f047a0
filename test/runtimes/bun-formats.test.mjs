// `mcp-ordered-dispatch/register` under Bun decides a module's format as
// Node does, whatever the application's package.json says:
//   - apps in a folder whose package.json says `"type": "module"` (its
//     node_modules in it: the SDK's CommonJS dependencies, ajv and
//     cross-spawn, under that folder), 1.x and 2.x, ES module (`app.js`) and
//     CommonJS (`app.cjs`): stock loses the progress; under `bun --preload
//     <register>` and with register loaded by BUN_INSPECT_PRELOAD (how
//     opencode's executable takes a preload), 0 lost and nothing on stderr;
//   - a real host's bundled Client, ES-module `.js` chunks outside any
//     dist/esm/ (mcp-remote 0.15.1's, a devDependency), loaded as the host
//     loads it under `bun --preload <register>`: 0 lost; stock: all lost;
//   - `bun test --preload <register>` in that folder; a preload the user set
//     beside register's, by --preload or BUN_INSPECT_PRELOAD;
//   - where Bun gives register no way in (a CommonJS bundle run as the entry
//     script, or imported by an ES module): one warning names the file, and
//     it runs stock.
import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES, assertBunTestNeedsRegister } from '../support/runtimes.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';
import { ROOT, RAW_SERVER, PROGRESS, buildBundles } from '../support/bundles.mjs';

const REGISTER = fileURLToPath(import.meta.resolve('mcp-ordered-dispatch/register'));
const REPRO = path.join(ROOT, 'test', 'support', 'repro.cjs');
const { bun } = RUNTIMES;
const skip = bun ? false : 'bun is not installed here';

const SDKS = {
  1: { client: '@modelcontextprotocol/sdk/client/index.js', stdio: '@modelcontextprotocol/sdk/client/stdio.js' },
  2: { client: '@modelcontextprotocol/client', stdio: '@modelcontextprotocol/client/stdio' },
};

/** The ways register is loaded into a `bun` run: { name, args, env }; stock first. */
const STOCK = { name: 'stock', args: [], env: {} };
const WAYS = [
  { name: 'bun --preload <register>', args: ['--preload', REGISTER], env: {} },
  { name: 'BUN_INSPECT_PRELOAD=<register>', args: [], env: { BUN_INSPECT_PRELOAD: REGISTER } },
];

let project;

/** Hard links of `from` (a directory tree) at `to`: the packages are real directories under the project, not links out of it. */
function linkTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const [a, b] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isDirectory()) linkTree(a, b);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(a), b);
    else {
      try {
        fs.linkSync(a, b);
      } catch {
        fs.copyFileSync(a, b);
      }
    }
  }
}

/** The SDK packages and everything they depend on, from the repository's node_modules into `nodeModules`. */
function installSdkInto(nodeModules) {
  const from = path.join(ROOT, 'node_modules');
  const todo = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client'];
  const done = new Set();
  while (todo.length > 0) {
    const name = todo.pop();
    if (done.has(name) || !fs.existsSync(path.join(from, name, 'package.json'))) continue;
    done.add(name);
    linkTree(path.join(from, name), path.join(nodeModules, name));
    const pkg = JSON.parse(fs.readFileSync(path.join(from, name, 'package.json'), 'utf8'));
    todo.push(...Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }));
  }
}

function appBody(generation) {
  // What register did, read by the keys it marks the classes with: the Protocol patched, the stdio transport framed.
  return `const marked = (C, key) => { for (let p = C.prototype; p !== null; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, Symbol.for(key))) return true; return false; };
const r = await runRepro({ Client, StdioClientTransport, generation: ${generation} }, { pairs: 1, progress: ${PROGRESS}, mode: 'all-in-one', serverPath: process.env.RAW_SERVER });
console.log(JSON.stringify({ lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount, failed: r.callsFailed, patched: marked(Client, 'mcp-ordered-dispatch.patch'), framing: marked(StdioClientTransport, 'mcp-ordered-dispatch.stdio-patch') }));`;
}

before(() => {
  if (skip) return;
  // Under the repository's .cache (gitignored): the same file system as its node_modules, for hard links.
  fs.mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
  project = fs.mkdtempSync(path.join(ROOT, '.cache', 'bun-type-module-'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'type-module-app', private: true, type: 'module' }));
  installSdkInto(path.join(project, 'node_modules'));
  for (const [generation, { client, stdio }] of Object.entries(SDKS)) {
    fs.writeFileSync(path.join(project, `app${generation}.js`), `import { Client } from '${client}';
import { StdioClientTransport } from '${stdio}';
import { createRequire } from 'node:module';
const { runRepro } = createRequire(import.meta.url)(${JSON.stringify(REPRO)});
${appBody(generation)}
`);
    fs.writeFileSync(path.join(project, `app${generation}.cjs`), `const { Client } = require('${client}');
const { StdioClientTransport } = require('${stdio}');
const { runRepro } = require(${JSON.stringify(REPRO)});
(async () => {
${appBody(generation)}
})();
`);
  }
});
after(() => {
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

/** Run `file` with `bun` in `cwd` the `way` register is loaded: its JSON line with stderr. */
async function runBun(way, file, cwd) {
  const env = { ...process.env, RAW_SERVER, RAW_SERVER_NODE: process.execPath, ...way.env };
  delete env.NODE_OPTIONS;
  const r = await runCommand(bun.command, [...way.args, file], { cwd, env, timeout: 120_000 });
  assert.equal(r.code, 0, `${way.name} ${file}: ${show(r)}`);
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), stderr: r.stderr };
}

for (const generation of Object.keys(SDKS)) {
  for (const app of [`app${generation}.js`, `app${generation}.cjs`]) {
    test(`bun: an SDK ${generation}.x ${app.endsWith('.cjs') ? 'CommonJS' : 'ES module'} app in a "type": "module" folder: stock loses; under register (--preload, BUN_INSPECT_PRELOAD) it runs, 0 lost, stderr empty`, { skip }, async () => {
      const stock = await runBun(STOCK, app, project);
      assert.deepEqual({ lost: stock.lost, patched: stock.patched, framing: stock.framing }, { lost: PROGRESS, patched: false, framing: false }, `stock: ${JSON.stringify(stock)}`);
      for (const way of WAYS) {
        const r = await runBun(way, app, project);
        assert.deepEqual(r, { lost: 0, expected: PROGRESS, onerrors: 0, failed: 0, patched: true, framing: true, stderr: '' }, way.name);
      }
    });
  }
}

test("bun: mcp-remote 0.15.1's bundled Client (ES-module .js chunks outside dist/esm/), loaded as the host loads it: stock loses all; under bun --preload register none, nothing printed", { skip }, async () => {
  const dist = path.join(ROOT, 'node_modules', 'mcp-remote', 'dist');
  // The chunk holding the bundled SDK client, imported as mcp-remote's own entries import it: a static import.
  const chunk = fs.readdirSync(dist).filter((f) => /^chunk-.*\.js$/.test(f)).find((f) => {
    const text = fs.readFileSync(path.join(dist, f), 'utf8');
    return text.includes('_progressHandlers') && /\n\s*Client,\n/.test(text);
  });
  assert.ok(chunk, `a chunk of ${dist} exporting Client`);
  const app = path.join(project, 'mcp-remote-host.js');
  fs.writeFileSync(app, `import { Client } from ${JSON.stringify(path.join(dist, chunk))};
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRequire } from 'node:module';
const { runRepro } = createRequire(import.meta.url)(${JSON.stringify(REPRO)});
const inspect = (client) => { for (let p = Object.getPrototypeOf(client); p !== null; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, Symbol.for('mcp-ordered-dispatch.patch'))) return { patched: true }; return { patched: false }; };
const r = await runRepro({ Client, StdioClientTransport, generation: 2 }, { pairs: 1, progress: ${PROGRESS}, mode: 'all-in-one', serverPath: process.env.RAW_SERVER, inspect });
console.log(JSON.stringify({ lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount, ...r.inspected }));
`);
  const stock = await runBun(STOCK, app, project);
  assert.deepEqual({ lost: stock.lost, patched: stock.patched }, { lost: PROGRESS, patched: false }, JSON.stringify(stock));
  const r = await runBun(WAYS[0], app, project);
  assert.deepEqual(r, { lost: 0, expected: PROGRESS, onerrors: 0, patched: true, stderr: '' });
});

test('bun test --preload register in a "type": "module" folder: a test asserting every progress notification arrives passes (and fails without it)', { skip }, async () => {
  const spec = path.join(project, 'progress.test.js');
  fs.writeFileSync(spec, `import { test, expect } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRequire } from 'node:module';
const { runRepro } = createRequire(import.meta.url)(${JSON.stringify(REPRO)});
test('every progress notification arrives', async () => {
  const r = await runRepro({ Client, StdioClientTransport, generation: 1 }, { pairs: 1, progress: ${PROGRESS}, mode: 'all-in-one', serverPath: process.env.RAW_SERVER });
  expect(r.progressReceived).toBe(${PROGRESS});
  expect(r.onerrorCount).toBe(0);
}, 60000);
`);
  await assertBunTestNeedsRegister(spec, { cwd: project, env: { ...process.env, RAW_SERVER, RAW_SERVER_NODE: process.execPath }, register: REGISTER });
});

test('bun: a CommonJS bundle holding the SDK that Bun loads through no hook (run as the entry script; imported by an ES module) is named in one warning and runs stock; require()d, it is patched', { skip }, async () => {
  const out = fs.mkdtempSync(path.join(project, 'bundle-'));
  const [{ file }] = await buildBundles(out, ({ app, bundler, format, variant }) => `${app} ${bundler} ${format} ${variant}` === 'sdk1 esbuild cjs minify');
  fs.writeFileSync(path.join(out, 'imports.mjs'), `import ${JSON.stringify(file)};\n`);
  fs.writeFileSync(path.join(out, 'requires.cjs'), `require(${JSON.stringify(file)});\n`);
  const warned = (stderr) => stderr.split('\n').filter((line) => line.includes('MCP_ORDERED_DISPATCH_UNREACHED'));
  for (const [entry, why] of [[file, `the CommonJS entry module ${file}`], [path.join(out, 'imports.mjs'), `the CommonJS module ${file}, which an ES module imports`]]) {
    const r = await runBun(WAYS[0], entry, out);
    assert.equal(r.lost, PROGRESS, `${entry}: ${JSON.stringify(r)}`);
    const lines = warned(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0].includes(why), lines[0]);
    assert.deepEqual(r.stderr.split('\n').filter((line) => line !== '' && !lines.includes(line) && !/--trace-warnings/.test(line)), []);
  }
  const required = await runBun(WAYS[0], path.join(out, 'requires.cjs'), out);
  assert.deepEqual({ lost: required.lost, patched: required.patched, stderr: required.stderr }, { lost: 0, patched: true, stderr: '' });
});

test('bun: a preload the user set keeps working beside register\'s, whichever way each is loaded (--preload, BUN_INSPECT_PRELOAD): both run, 0 lost, stderr empty', { skip }, async () => {
  const other = path.join(project, 'other-preload.cjs');
  const mark = path.join(project, 'other-preload.txt');
  fs.writeFileSync(other, `require('node:fs').appendFileSync(${JSON.stringify(mark)}, 'ran\\n');\n`);
  for (const way of [
    { name: 'theirs by BUN_INSPECT_PRELOAD, register by --preload', args: ['--preload', REGISTER], env: { BUN_INSPECT_PRELOAD: other } },
    { name: 'theirs by --preload, register by BUN_INSPECT_PRELOAD', args: ['--preload', other], env: { BUN_INSPECT_PRELOAD: REGISTER } },
    { name: 'both by --preload', args: ['--preload', other, '--preload', REGISTER], env: {} },
  ]) {
    fs.rmSync(mark, { force: true });
    const r = await runBun(way, 'app1.js', project);
    assert.deepEqual({ lost: r.lost, patched: r.patched, stderr: r.stderr }, { lost: 0, patched: true, stderr: '' }, way.name);
    assert.equal(fs.readFileSync(mark, 'utf8'), 'ran\n', `${way.name}: their preload ran once`);
  }
});
