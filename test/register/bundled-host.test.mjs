// A real host that bundles the SDK: mcp-remote 0.15.1 (from the registry)
// carries @modelcontextprotocol/client 2.0.0 inside its dist/chunk-*.js,
// renamed nowhere but found by no path either. Its own bundled Client class,
// loaded from its dist/, is driven against the raw coalescing server (with
// the 2.x StdioClientTransport): stock it loses all 60 progress
// notifications; under `--import mcp-ordered-dispatch/register` none, and
// nothing is printed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCommand, show, pathWithThisNode } from '../support/spawn-node.mjs';
import { ROOT, RAW_SERVER, PROGRESS } from '../support/bundles.mjs';

const DIST = path.join(ROOT, 'node_modules', 'mcp-remote', 'dist');
let dir;
let app;
let chunk;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-host-'));
  // The chunk that holds the bundled SDK client: the one that exports `Client` and defines the Protocol's members.
  chunk = fs
    .readdirSync(DIST)
    .filter((f) => /^chunk-.*\.js$/.test(f))
    .map((f) => path.join(DIST, f))
    .find((f) => {
      const text = fs.readFileSync(f, 'utf8');
      return text.includes('_progressHandlers') && /\n\s*Client,\n/.test(text);
    });
  app = path.join(dir, 'host-app.mjs');
  fs.writeFileSync(
    app,
    `import { createRequire } from 'node:module';
     const require = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))});
     const { Client } = await import(${JSON.stringify(pathToFileURL(chunk).href)});
     const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
     const { runRepro } = require('./test/support/repro.cjs');
     const r = await runRepro({ Client, StdioClientTransport, generation: 2 }, { pairs: 1, progress: ${PROGRESS}, mode: 'all-in-one', serverPath: ${JSON.stringify(RAW_SERVER)},
       inspect: (client) => { let p = Object.getPrototypeOf(client); for (; p !== null; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, Symbol.for('mcp-ordered-dispatch.patch'))) return { patched: true, name: Client.name }; return { patched: false, name: Client.name }; } });
     console.log(JSON.stringify({ lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount, ...r.inspected }));\n`,
  );
  // Resolved from the repository (the app file lives in a temp dir).
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
});

after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function env() {
  const e = { ...process.env, PATH: pathWithThisNode(), MCP_ORDERED_DISPATCH_CACHE_DIR: path.join(dir, 'cache') };
  delete e.NODE_TEST_CONTEXT;
  delete e.NODE_OPTIONS;
  return e;
}

test('mcp-remote 0.15.1 ships its own bundled SDK client', () => {
  assert.ok(chunk, `a chunk of ${DIST} exporting Client`);
  assert.equal(JSON.parse(fs.readFileSync(path.join(DIST, '..', 'package.json'), 'utf8')).version, '0.15.1');
});

test("stock: mcp-remote's bundled Client loses all 60 coalesced progress notifications", async () => {
  const r = await runCommand(process.execPath, [app], { cwd: dir, env: env(), timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(out.expected, PROGRESS);
  assert.equal(out.lost, PROGRESS, show(r));
  assert.equal(out.patched, false);
});

test("--import register: mcp-remote's bundled Client is patched where it is defined and loses none; nothing printed", async () => {
  const r = await runCommand(process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'entries', 'register.mjs')).href, app], { cwd: dir, env: env(), timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(out.lost, 0, show(r));
  assert.equal(out.onerrors, 0, show(r));
  assert.equal(out.patched, true, show(r));
});
