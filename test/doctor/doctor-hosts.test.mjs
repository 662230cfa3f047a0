// doctor in an app's folder names the hosts its host SDKs start (one table,
// lib/doctor/hosts.cjs) and says whether `run -- node app.mjs` reaches each,
// and why not: apps built here on stand-ins of each host SDK's package
// (only its name and version: doctor reads nothing else of it), their hosts
// real programs built in the test:
//   - @opencode-ai/sdk: `opencode` on PATH, a Bun-compiled executable holding
//     the SDK whose built-in arguments end with `--`: reached (BUN_INSPECT_PRELOAD);
//   - @kilocode/sdk: `kilo` on PATH, a Node launcher holding no SDK with that
//     executable beside it (Kilo's bin/kilo and bin/.kilo): reached;
//   - @qwen-code/sdk: its dist/cli/cli.js, an esbuild bundle holding the SDK:
//     reached (and its copy a bundled row, as any bundle's);
//   - @anthropic-ai/claude-agent-sdk: its platform package's `claude`, a
//     native executable holding no JavaScript: NOT reached, exit 1;
//   - a host SDK whose host is not installed: not found, named.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { RUNTIMES } from '../support/runtimes.mjs';
import { ESM_BANNER } from '../support/bundles.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const NOT_LINUX = process.platform !== 'linux' && 'the hosts are built for Linux here (a launcher with a #! line, an executable without .exe)';
let dir;

before(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-doctor-hosts-')));
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** An app folder depending on `sdks` ({ name: version }), stand-ins of each package: its folder. */
function app(name, sdks) {
  const at = path.join(dir, name);
  fs.mkdirSync(at, { recursive: true });
  fs.writeFileSync(path.join(at, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', dependencies: sdks }));
  for (const [sdk, version] of Object.entries(sdks)) {
    fs.mkdirSync(path.join(at, 'node_modules', sdk), { recursive: true });
    fs.writeFileSync(path.join(at, 'node_modules', sdk, 'package.json'), JSON.stringify({ name: sdk, version }));
  }
  return at;
}

async function doctor(cwd, pathDirs) {
  const env = { ...process.env, PATH: [...pathDirs, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter) };
  delete env.NODE_OPTIONS;
  const r = await runCommand(process.execPath, [BIN, 'doctor', '--cwd', cwd], { cwd, env, timeout: 120_000 });
  return { ...r, line: (host) => r.stdout.split('\n').find((l) => l.startsWith(`- ${host}, started by`)) ?? `(no line for ${host})\n${show(r)}` };
}

test('doctor names the host each host SDK starts and whether run reaches it: a Bun executable on PATH, a launcher beside one, a bundle, a native executable, one not installed', { skip: NOT_LINUX || (RUNTIMES.bun === undefined && 'bun is not installed for this platform'), timeout: 300_000 }, async () => {
  const { buildCompiled, KINDS } = await import('../support/compiled.mjs');
  const esm = KINDS.find((k) => k.kind === 'esm');
  const [exe] = buildCompiled(path.join(dir, 'compiled'), { apps: ['sdk1'], kinds: [{ ...esm, kind: 'esm-blocked', flags: [...esm.flags, '--compile-exec-argv=--smol --'] }] });
  const opencodeBin = path.join(dir, 'opencode-bin');
  fs.mkdirSync(opencodeBin);
  fs.copyFileSync(exe.file, path.join(opencodeBin, 'opencode'));
  const kiloBin = path.join(dir, 'kilo-cli', 'bin');
  fs.mkdirSync(kiloBin, { recursive: true });
  fs.copyFileSync(exe.file, path.join(kiloBin, '.kilo'));
  fs.copyFileSync(path.join(ROOT, 'test', 'run', 'fixtures', 'programs', 'launcher.cjs'), path.join(kiloBin, 'kilo'));
  fs.chmodSync(path.join(kiloBin, 'kilo'), 0o755);

  const opencode = app('opencode-app', { '@opencode-ai/sdk': '1.19.6' });
  const kilo = app('kilo-app', { '@kilocode/sdk': '7.4.20' });
  const qwen = app('qwen-app', { '@qwen-code/sdk': '0.1.7' });
  const { buildSync } = await import('esbuild');
  buildSync({ entryPoints: [path.join(ROOT, 'test', 'run', 'fixtures', 'host.mjs')], bundle: true, platform: 'node', format: 'esm', banner: { js: ESM_BANNER }, outfile: path.join(qwen, 'node_modules', '@qwen-code', 'sdk', 'dist', 'cli', 'cli.js'), logLevel: 'silent' });
  const agent = app('agent-app', { '@anthropic-ai/claude-agent-sdk': '0.3.337', [`@anthropic-ai/claude-agent-sdk-linux-${process.arch}`]: '0.3.337' });
  fs.copyFileSync('/bin/true', path.join(agent, 'node_modules', '@anthropic-ai', `claude-agent-sdk-linux-${process.arch}`, 'claude'));

  const [o, k, q, a, missing] = await Promise.all([doctor(opencode, [opencodeBin]), doctor(kilo, [kiloBin]), doctor(qwen, []), doctor(agent, []), doctor(kilo, [])]);
  assert.match(o.line('opencode'), /started by @opencode-ai\/sdk@1\.19\.6 \(.*opencode-bin\/opencode\): reached by `mcp-ordered-dispatch run -- node app\.mjs`: it is a Bun-compiled executable holding the SDK, .*BUN_INSPECT_PRELOAD/);
  assert.equal(o.code, 0, show(o));
  assert.match(k.line('Kilo'), /started by @kilocode\/sdk@7\.4\.20 \(.*kilo-cli\/bin\/kilo\): reached by `mcp-ordered-dispatch run -- node app\.mjs`: it is a launcher holding no SDK that starts .*\/\.kilo: it is a Bun-compiled executable holding the SDK/);
  assert.equal(k.code, 0, show(k));
  assert.match(q.line('Qwen Code'), /started by @qwen-code\/sdk@0\.1\.7 \(.*dist\/cli\/cli\.js\): reached by `mcp-ordered-dispatch run -- node app\.mjs`: it is a script that holds the SDK/);
  assert.match(q.stdout, /patched by register \| bundled/, 'the bundle\'s copy is its own row, never an all-clear (exit 1)');
  assert.match(a.line('Claude Code'), /NOT reached by `mcp-ordered-dispatch run`: it is a native executable that holds no JavaScript register can reach/);
  assert.equal(a.code, 1, show(a));
  assert.match(missing.line('Kilo'), /: not found: Kilo was not found: @kilocode\/sdk looks for `kilo` on PATH, which it starts; install it, and run doctor again\./);
  assert.equal(missing.code, 1, show(missing));
});
