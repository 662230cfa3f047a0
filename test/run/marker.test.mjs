// The environment marker (lib/rule/marker.cjs) holds where ours begins, not a
// copy of the user's option lists: under `run`, a user's NODE_OPTIONS near
// the size one variable may have (128 KiB on Linux) still starts the host,
// as it starts directly; and a host that took ours out gives the commands
// it runs the user's value byte for byte, odd spacing and all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const LINUX = process.platform === 'linux';

function userEnv(nodeOptions) {
  const env = { ...process.env, NODE_OPTIONS: nodeOptions };
  for (const name of ['NODE_TEST_CONTEXT', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
  return env;
}

// A host that loads the SDK (register takes ours out) and prints what a command it runs gets as NODE_OPTIONS:
// a shell on POSIX, a Node child on Windows (no /bin/sh there; every value below is one Node accepts).
const PRINTER = process.platform === 'win32'
  ? [process.execPath, ['-e', 'process.stdout.write(process.env.NODE_OPTIONS ?? "")']]
  : ['/bin/sh', ['-c', 'printf %s "$NODE_OPTIONS"']];
const HOST = `await import('@modelcontextprotocol/sdk/client/index.js');
const { execFileSync } = await import('node:child_process');
process.stdout.write(JSON.stringify(execFileSync(...${JSON.stringify(PRINTER)}, { encoding: 'utf8' })));`;

// Linux only (.ci/run, the release workflow's Linux jobs): the limit it tests is Linux's.
test('a NODE_OPTIONS of 130,950 bytes: the host starts under run as it does directly (the marker copied it, over the 128 KiB a variable may hold)', { skip: !LINUX && 'the 128 KiB limit of one variable is Linux\'s' }, async () => {
  const unit = ' --no-deprecation';
  const value = `--max-old-space-size=300${unit.repeat(Math.floor((130_950 - 24) / unit.length))}`;
  assert.ok(value.length > 130_900 && value.length <= 130_950, String(value.length));
  const script = 'process.stdout.write(String(process.env.NODE_OPTIONS.length))';
  const direct = await runCommand(process.execPath, ['-e', script], { cwd: ROOT, env: userEnv(value) });
  assert.equal(direct.code, 0, show(direct));
  const r = await runCommand(process.execPath, [BIN, 'run', '--', process.execPath, '-e', script], { cwd: ROOT, env: userEnv(value) });
  assert.equal(r.code, 0, show(r));
  assert.ok(Number(r.stdout) > value.length, `the host got ours after the user's: ${r.stdout}`);
});

test('a host that took ours out gives its commands the user\'s NODE_OPTIONS byte for byte', async () => {
  for (const value of ['  --max-old-space-size=300   --no-deprecation ', '', '--title="a  b"']) {
    const r = await runCommand(process.execPath, [BIN, 'run', '--', process.execPath, '--input-type=module', '-e', HOST], { cwd: ROOT, env: userEnv(value) });
    assert.equal(r.code, 0, show(r));
    assert.equal(JSON.parse(r.stdout), value, show(r));
  }
});
