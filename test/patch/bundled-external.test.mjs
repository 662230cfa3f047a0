// A host that bundles its own code, SDK included, and patches in code: it
// keeps mcp-ordered-dispatch external (esbuild --external:mcp-ordered-dispatch,
// as docs/how-it-works.md's "Which hosts register reaches" says) and hands the bundled, minified
// classes to patchProtocol() and patchStdioTransport(), which read them by
// shape (no local or helper names). Stock the bundle loses all 60 coalesced
// progress notifications; patched, none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';
import { ROOT, RAW_SERVER, PROGRESS } from '../support/bundles.mjs';

const require = createRequire(import.meta.url);
let dir;
let bundle;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-external-'));
  // The host's install: this package as a dependency, resolved at run time.
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'mcp-ordered-dispatch'), 'junction');
  const entry = path.join(dir, 'host.mjs');
  fs.writeFileSync(
    entry,
    `import { patchProtocol, patchStdioTransport } from 'mcp-ordered-dispatch';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runRepro } from ${JSON.stringify(path.join(ROOT, 'test', 'support', 'repro.cjs'))};
if (process.argv[2] === 'patch') { patchProtocol(Protocol); patchStdioTransport(StdioClientTransport); }
runRepro({ Client, StdioClientTransport, generation: 1 }, { pairs: 1, progress: ${PROGRESS}, mode: 'all-in-one', serverPath: process.env.RAW_SERVER })
  .then((r) => console.log(JSON.stringify({ lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount, name: Protocol.name })));
`,
  );
  bundle = path.join(dir, 'host.bundle.cjs');
  await require('esbuild').build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    external: ['mcp-ordered-dispatch'],
    nodePaths: [path.join(ROOT, 'node_modules')],
    logLevel: 'silent',
  });
});

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function run(args) {
  const env = { ...process.env, PATH: pathWithThisNode(), RAW_SERVER };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  const r = await runCommand(process.execPath, [bundle, ...args], { cwd: dir, env, timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  return { ...JSON.parse(r.stdout.trim().split('\n').pop()), r };
}

test('the bundle keeps mcp-ordered-dispatch a require() and holds the SDK, renamed', () => {
  const text = fs.readFileSync(bundle, 'utf8');
  assert.match(text, /require\("mcp-ordered-dispatch"\)/);
  assert.ok(!text.includes('class Protocol'), 'the minifier renamed Protocol');
});

test('stock: the bundled host loses all 60 coalesced progress notifications', async () => {
  const out = await run([]);
  assert.equal(out.lost, PROGRESS, show(out.r));
});

test('patchProtocol() and patchStdioTransport() on the bundled, minified classes: none lost, nothing printed', async () => {
  const out = await run(['patch']);
  assert.equal(out.r.stderr, '', show(out.r));
  assert.equal(out.lost, 0, show(out.r));
  assert.equal(out.onerrors, 0, show(out.r));
});
