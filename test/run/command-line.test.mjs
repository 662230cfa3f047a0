// The command line is read once, by one parser over one table per
// subcommand: `--name value` and `--name=value` alike, `--` and positionals
// handled the same way everywhere; run's options only before its command
// (everything after is the command's, a second --report included); the
// usage text lists each table's options and no internal one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-command-line-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function env() {
  const e = { ...process.env, MCP_ORDERED_DISPATCH_CACHE_DIR: path.join(dir, 'cache') };
  for (const name of ['NODE_TEST_CONTEXT', 'MCP_ORDERED_DISPATCH_RUN', 'MCP_ORDERED_DISPATCH_REPORT', 'NODE_OPTIONS']) delete e[name];
  return e;
}
const cli = (...args) => runCommand(process.execPath, [BIN, ...args], { cwd: dir, env: env() });
const PRINT_ARGS = path.join(dir, 'print-args.cjs');
fs.writeFileSync(PRINT_ARGS, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n');

test('run: its options stand before the command; from the command on, every argument is the command\'s', async () => {
  const [dashed, bare, unknown] = await Promise.all([
    cli('run', '--report', '--', process.execPath, PRINT_ARGS, '--report', '--plan-file=x'),
    cli('run', process.execPath, PRINT_ARGS, '--report'),
    cli('run', '--reprot', process.execPath),
  ]);
  assert.equal(dashed.code, 0, show(dashed));
  assert.deepEqual(JSON.parse(dashed.stdout), ['--report', '--plan-file=x']);
  assert.equal(dashed.stderr.split('\n').filter((l) => l.includes('the report of this run goes to')).length, 1, show(dashed));
  assert.equal(bare.code, 0, show(bare));
  assert.deepEqual(JSON.parse(bare.stdout), ['--report']);
  assert.doesNotMatch(bare.stderr, /report of this run/);
  assert.equal(unknown.code, 2, show(unknown));
  assert.match(unknown.stderr, /run: unknown option --reprot \(to give it to the command, put -- before the command/);
});

test('every subcommand: --name value and --name=value alike, a missing value and an unknown option said once', async () => {
  const rc = path.join(dir, 'rc');
  const [spaced, missing, flagValue, help] = await Promise.all([
    cli('setup', '--shell', 'bash', '--rc', rc, 'claude'),
    cli('doctor', '--pairs'),
    cli('report', '--json=yes'),
    cli('setup', '-h'),
  ]);
  assert.equal(spaced.code, 0, show(spaced));
  assert.ok(spaced.stdout.includes(`the block in ${rc} now holds claude`), show(spaced));
  assert.ok(fs.readFileSync(rc, 'utf8').includes('claude() {'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /doctor: --pairs needs a value \(N\)/);
  assert.equal(flagValue.code, 2);
  assert.match(flagValue.stderr, /report: --json takes no value/);
  assert.equal(help.code, 0);
  // The usage, from the same tables: every option of each, the internal one of run left out.
  for (const line of ['run [--report] [--] COMMAND', 'report [--json] [FILE]', 'setup [--shell=bash|zsh|fish|powershell] [--rc=FILE] [--remove] [--undo] [--print-env] HOST...', 'doctor [--cwd=DIR] [--json] [--pairs=N]']) {
    assert.ok(help.stdout.includes(`mcp-ordered-dispatch ${line}`), `${line}\n${help.stdout}`);
  }
  assert.doesNotMatch(help.stdout, /plan-file/);
});
