// install() patches every SDK copy beneath the project, not only the ones
// the project itself resolves: a dependency's own copy (npm and yarn nest
// it in node_modules/<dep>/node_modules, at any depth; pnpm keeps it in
// node_modules/.pnpm). Each is listed in `patched` with where it is, and the
// nested copy the dependency runs on loses no progress afterwards (stock it
// loses all of it: the reproduction runs both, each in its own process).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, show } from '../support/spawn-node.mjs';
import { makeNestedProject, ROOT } from '../support/nested-project.mjs';

let project;
let script;

before(() => {
  project = makeNestedProject();
  script = path.join(project.dir, 'app.cjs');
  // Installs (or not), then drives the nested 1.23.0 copy's own Client, as `dep` would.
  fs.writeFileSync(
    script,
    `const path = require('node:path');
     const { runRepro } = require(${JSON.stringify(path.join(ROOT, 'test', 'support', 'repro.cjs'))});
     (async () => {
       let patched = [];
       if (process.argv[2] === 'install') patched = require(${JSON.stringify(path.join(ROOT, 'entries', 'index.cjs'))}).install({ cwd: __dirname }).patched;
       const nested = ${JSON.stringify(project.copies.nested)};
       const { Client } = require(path.join(nested, 'dist/cjs/client/index.js'));
       const { StdioClientTransport } = require(path.join(nested, 'dist/cjs/client/stdio.js'));
       const r = await runRepro({ Client, StdioClientTransport, generation: 1 }, { pairs: 3, progress: 20, mode: 'all-in-one' });
       console.log(JSON.stringify({ patched, lost: r.lost, expected: r.progressExpected, onerrors: r.onerrorCount }));
     })();\n`,
  );
});

after(() => project && fs.rmSync(project.dir, { recursive: true, force: true }));

test('stock: the nested copy loses all 60 of 60 coalesced progress notifications', async () => {
  const r = await runCommand(process.execPath, [script], { cwd: project.dir, timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  const out = JSON.parse(r.stdout);
  assert.equal(out.expected, 60);
  assert.equal(out.lost, 60, show(r));
});

test('install(): every copy beneath the project is patched and listed with its path; the nested copy loses nothing', async () => {
  const r = await runCommand(process.execPath, [script, 'install'], { cwd: project.dir, timeout: 120_000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
  const out = JSON.parse(r.stdout);
  const listed = out.patched.map((p) => `${p.name}@${p.version} ${p.build}${p.nested ? ` nested ${path.relative(project.dir, p.installedAt)}` : ''}`).sort();
  assert.deepEqual(listed, [
    '@modelcontextprotocol/client@2.0.0 cjs nested node_modules/dep/node_modules/inner/node_modules/@modelcontextprotocol/client',
    '@modelcontextprotocol/client@2.0.0 esm nested node_modules/dep/node_modules/inner/node_modules/@modelcontextprotocol/client',
    '@modelcontextprotocol/sdk@1.2.0 cjs nested node_modules/.pnpm/other@1.0.0/node_modules/@modelcontextprotocol/sdk',
    '@modelcontextprotocol/sdk@1.2.0 esm nested node_modules/.pnpm/other@1.0.0/node_modules/@modelcontextprotocol/sdk',
    '@modelcontextprotocol/sdk@1.23.0 cjs nested node_modules/dep/node_modules/@modelcontextprotocol/sdk',
    '@modelcontextprotocol/sdk@1.23.0 esm nested node_modules/dep/node_modules/@modelcontextprotocol/sdk',
    '@modelcontextprotocol/sdk@1.32.2 cjs',
    '@modelcontextprotocol/sdk@1.32.2 esm',
  ]);
  for (const p of out.patched) assert.ok(fs.existsSync(p.file), `${p.file} exists`);
  assert.equal(out.expected, 60);
  assert.equal(out.lost, 0, show(r));
  assert.equal(out.onerrors, 0, show(r));
});
