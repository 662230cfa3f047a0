// The per-child rule's own rows (lib/rule/children.cjs), pure: what each
// child gets from what it is, with the facts a test gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';

const { childFix } = createRequire(import.meta.url)('../../lib/rule/children.cjs');

test('the script a runtime runs: none for inline code, a REPL, stdin, a test runner or a package runner', () => {
  const self = { file: '/usr/bin/node', compiled: false, scripts: new Set([path.resolve('/app/host.js')]), spacedPath: false };
  const facts = { compiled: () => undefined, holdsSdk: () => false, scriptHoldsSdk: (file) => file === path.resolve('/app/cli.js') || file === path.resolve('/app/dist/index.js') };
  const cases = [
    ['/usr/bin/node', ['cli.js', '-p', 'x'], true],
    ['/usr/bin/node', ['--require', 'a.cjs', '--import=b.mjs', '-r', 'c.cjs', 'cli.js'], true],
    ['/usr/bin/node', ['--max-old-space-size=4096', '--no-warnings', 'dist/index.js'], true],
    ['/usr/bin/node', ['--', 'cli.js'], true],
    ['/usr/bin/node', ['-e', 'x', 'cli.js'], false],
    ['/usr/bin/node', ['--print=1', 'cli.js'], false],
    ['/usr/bin/node', ['--test', 'cli.js'], false],
    ['/usr/bin/node', ['-', 'cli.js'], false],
    ['/usr/bin/node', [], false],
    ['/opt/bun/bin/bun', ['run', 'cli.js'], true],
    ['/opt/bun/bin/bun', ['--smol', 'cli.js'], true],
    ['/opt/bun/bin/bun', ['test', 'cli.js'], false],
    ['/opt/bun/bin/bun', ['x', 'cli.js'], false],
  ];
  for (const [file, args, sdk] of cases) {
    assert.equal(childFix({ file, args, cwd: '/app', byTransport: false }, self, true, facts).reason, sdk ? 'SDK_SCRIPT' : undefined, `${file} ${args.join(' ')}`);
  }
});

test('childFix: SDK_SCRIPT, STEP and SDK_EXECUTABLE in a fixed thread and a launcher; RUNNER from a launcher only; RELAUNCH never from a process with no main script', () => {
  const self = { file: '/usr/bin/node', compiled: false, scripts: new Set([path.resolve('/app/host.js')]), spacedPath: false };
  const noMain = { ...self, scripts: new Set() };
  const bun = { kind: 'bun', execArgv: '--smol --', blocksBunOptions: true, layout: { moduleBytes: 52, offsetsBytes: 32 } };
  const facts = (holds) => ({
    compiled: (file) => (file === '/opt/host' ? bun : file.startsWith('/app/') ? undefined : { kind: 'native' }),
    holdsSdk: (file) => file === '/opt/host',
    launchesSdkExecutable: (file) => file === '/app/bin/kilo',
    scriptHoldsSdk: (file) => holds.map((h) => path.resolve(h)).includes(path.resolve(file)),
    isRunner: (file) => ['/npm/bin/npx-cli.js', '/app/node_modules/.bin/tsx'].map((f) => path.resolve(f)).includes(path.resolve(file)),
    isFile: (file) => path.resolve(file) === path.resolve('/app/tool.js'),
  });
  const child = (file, args) => ({ file, args, cwd: '/app', byTransport: false });
  const rows = [
    [child('/usr/bin/node', ['cli.js']), self, true, ['/app/cli.js'], 'put-back', 'SDK_SCRIPT'],
    [child('/usr/bin/node', ['cli.js']), self, false, ['/app/cli.js'], 'put-back', 'SDK_SCRIPT'],
    [child('/usr/bin/node', ['tool.js']), self, false, ['/app/cli.js'], undefined, undefined],
    [child('/usr/bin/node', ['/npm/bin/npx-cli.js', 'some-host']), self, false, [], 'put-back', 'RUNNER'],
    [child('/usr/bin/node', ['/npm/bin/npx-cli.js', 'some-host']), self, true, [], undefined, undefined],
    [child('/app/node_modules/.bin/tsx', ['server.ts']), self, false, [], 'put-back', 'RUNNER'],
    [child('/app/node_modules/.bin/tsx', ['server.ts']), self, true, [], undefined, undefined],
    [child('/opt/bun/bin/bun', ['x', 'some-host']), self, false, [], 'put-back', 'RUNNER'],
    [child('/opt/bun/bin/bun', ['run', 'dev']), self, false, [], 'put-back', 'RUNNER'],
    [child('/opt/bun/bin/bun', ['run', 'tool.js']), self, false, [], undefined, undefined],
    [child('/opt/bun/bin/bun', ['x', 'some-host']), self, true, [], undefined, undefined],
    [child('/usr/bin/node', ['other.js']), self, true, ['/app/cli.js'], undefined, undefined],
    [child('/usr/bin/node', ['--test', 'cli.js']), self, true, ['/app/cli.js'], undefined, undefined],
    [child('/usr/bin/node', ['host.js']), self, true, [], 'put-back', 'RELAUNCH'],
    [child('/usr/bin/node', ['-p', '1']), noMain, true, [], undefined, undefined],
    [child('/opt/host', []), self, false, [], 'put-back', 'SDK_EXECUTABLE'],
    [child('/opt/host', []), self, true, [], 'put-back', 'SDK_EXECUTABLE'],
    [child('/bin/sh', ['-c', 'node cli.js']), self, true, ['/app/cli.js'], undefined, undefined],
    [child('/app/bin/cli', []), self, true, ['/app/bin/cli'], 'put-back', 'SDK_SCRIPT'],
    [child('/app/bin/kilo', []), self, true, [], 'put-back', 'STEP'],
    [child('/app/bin/kilo', []), self, false, [], 'put-back', 'STEP'],
    [child('/app/bin/other', []), self, true, [], undefined, undefined],
  ];
  for (const [c, s, fixed, holds, fix, reason] of rows) {
    const decision = childFix(c, s, fixed, facts(holds));
    assert.deepEqual([decision.fix, decision.reason], [fix, reason], `${c.file} ${c.args.join(' ')} (fixed: ${fixed})`);
  }
  assert.deepEqual(childFix(child('/opt/host', []), self, false, facts([])).carriers, ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD']);
});
