// A command that cannot be started ends `run` as it ends a shell: exit 126 or
// 127 and one line naming the cause, on every Node line. A host file held open
// for writing (ETXTBSY) is the case no check can foresee: Node 22 and 24 end
// the process when process.execve() fails (there `run` execs through the
// native launcher, which gets the error back), Node 26 throws, and Node 20's
// spawn() throws it instead of emitting it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { runCommand, show } from '../support/spawn-node.mjs';
import { installedNode, LINES } from '../../scripts/node-lines.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
// The ETXTBSY cases run on Linux (.ci/run, the release workflow's Linux jobs), every Node line there.
const LINUX = process.platform === 'linux';
const NODES = [[`this Node (${process.version})`, () => process.execPath], ...(LINUX ? LINES.map((v) => [`Node ${v}`, () => installedNode(v)]) : [])];

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-exec-fails-'));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function cleanEnv() {
  const env = { ...process.env };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
  return env;
}

/** `run`'s own lines on stderr (Node 22 to 26 also warn that process.execve() is experimental). */
const ownLines = (stderr) => stderr.split('\n').filter((line) => line.startsWith('mcp-ordered-dispatch run:'));

for (const [label, nodeOf] of NODES) {
  test(`${label}: a host held open for writing (ETXTBSY) ends run with 126 and one line`, { skip: !LINUX && 'ETXTBSY is made here with a copy of /bin/true' }, async (t) => {
    const host = path.join(dir, `busy-${label.replace(/\W+/g, '-')}`);
    fs.copyFileSync('/bin/true', host);
    fs.chmodSync(host, 0o755);
    const writer = fs.openSync(host, 'r+');
    t.after(() => fs.closeSync(writer));
    const r = await runCommand(nodeOf(), [BIN, 'run', '--', host], { cwd: dir, env: cleanEnv() });
    assert.equal(r.code, 126, show(r));
    const lines = ownLines(r.stderr);
    assert.equal(lines.length, 1, show(r));
    assert.match(lines[0], /busy-.*: Text file busy/, show(r));
  });

  test(`${label}: a command not found ends run with 127 and one line`, async () => {
    const r = await runCommand(nodeOf(), [BIN, 'run', '--', 'mcp-od-no-such-command'], { cwd: dir, env: cleanEnv() });
    assert.equal(r.code, 127, show(r));
    assert.deepEqual(ownLines(r.stderr), ['mcp-ordered-dispatch run: mcp-od-no-such-command: command not found'], show(r));
  });
}

test("setup's function path (the native launcher): a host held open for writing ends with 126 and one line, as a shell's", { skip: !LINUX && 'ETXTBSY is made here with a copy of /bin/true' }, async (t) => {
  const { nativeLauncher } = createRequire(import.meta.url)('../../lib/native/launcher.cjs');
  const plans = fs.mkdtempSync(path.join(dir, 'plans-'));
  const host = path.join(dir, 'busy-host');
  fs.copyFileSync('/bin/true', host);
  fs.chmodSync(host, 0o755);
  const env = { ...cleanEnv(), PATH: `${dir}:${process.env.PATH}`, MCP_ORDERED_DISPATCH_CACHE_DIR: plans };
  const start = () => runCommand(nativeLauncher(), [`--node=${process.execPath}`, `--cli=${BIN}`, `--plans=${plans}`, '--', 'busy-host'], { cwd: dir, env });
  assert.equal((await start()).code, 0, 'planned while not busy');
  const writer = fs.openSync(host, 'r+');
  t.after(() => fs.closeSync(writer));
  const r = await start();
  assert.equal(r.code, 126, show(r));
  assert.deepEqual(ownLines(r.stderr), ['mcp-ordered-dispatch run: busy-host: Text file busy (os error 26)'], show(r));
});
