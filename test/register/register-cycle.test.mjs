// A CommonJS application with a require cycle runs under register with
// nothing on stderr. While a module of a cycle is still loading, Node gives
// its exports object a prototype that warns on every read of a property it
// lacks ("Accessing non-existent property 'Protocol' of module exports inside
// circular dependency"); register's Module._load wrapper looks at every
// require()'s exports, and must not be the one that reads them that way.
// The cycle's modules also load the SDK (1.x CommonJS), which must still be patched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show, pathWithThisNode, preload } from '../support/spawn-node.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-cycle-'));
  const sdk = (p) => JSON.stringify(path.join(root, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'cjs', p));
  // a -> b -> a (half loaded) and a -> c -> b (half loaded): reads of missing properties on both.
  fs.writeFileSync(path.join(dir, 'a.cjs'), `exports.early = 1;\nconst b = require('./b.cjs');\nrequire('./c.cjs');\nexports.Client = require(${sdk('client/index.js')}).Client;\nexports.late = b.fromA;\n`);
  fs.writeFileSync(path.join(dir, 'b.cjs'), `const a = require('./a.cjs');\nconst { StdioClientTransport } = require(${sdk('client/stdio.js')});\nmodule.exports = { fromA: a.early, StdioClientTransport };\n`);
  fs.writeFileSync(path.join(dir, 'c.cjs'), `const b = require('./b.cjs');\nconst a = require('./a.cjs');\nmodule.exports = { b, a };\n`);
  fs.writeFileSync(
    path.join(dir, 'main.cjs'),
    `const a = require('./a.cjs');\nconst { isPatched, isStdioPatched } = require(${JSON.stringify(path.join(root, 'entries', 'index.cjs'))});\n` +
      `const { Protocol } = require(${sdk('shared/protocol.js')});\n` +
      `console.log(JSON.stringify({ late: a.late, patched: isPatched(Protocol), stdio: isStdioPatched(require('./b.cjs').StdioClientTransport) }));\n`,
  );
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

function cleanEnv() {
  const env = { ...process.env, PATH: pathWithThisNode() };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  return env;
}

test('stock: the cycle itself runs quietly (the app reads only what its modules define)', async () => {
  const r = await runCommand(process.execPath, [path.join(dir, 'main.cjs')], { cwd: dir, env: cleanEnv() });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '', show(r));
  assert.deepEqual(JSON.parse(r.stdout), { late: 1, patched: false, stdio: false });
});

for (const flag of ['--require', '--import']) {
  test(`${flag} mcp-ordered-dispatch/register: a CommonJS app with require cycles writes nothing to stderr, and its SDK is patched`, async () => {
    const entry = path.join(root, 'entries', flag === '--require' ? 'register.cjs' : 'register.mjs');
    const r = await runCommand(process.execPath, [...preload(flag, entry), path.join(dir, 'main.cjs')], { cwd: dir, env: cleanEnv() });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '', show(r));
    assert.deepEqual(JSON.parse(r.stdout), { late: 1, patched: true, stdio: true });
  });
}
