// A plans folder another user can change is never trusted, however they swap
// it: the native launcher opens every folder on the way from the root with no
// link followed (a link only where its user or root put it, in a folder no
// one else can change) and reads the plan file from the descriptor it judged.
// Here another user (nobody, through setpriv: the test runs as root) swaps the
// folder setup named between a link to the user's real plans and a link to
// their own plan, which sets NODE_OPTIONS to a preload of theirs, while the
// user starts the host through the launcher again and again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';
import { TIMEOUT_SCALE } from '../support/wine/limits.mjs';

const require = createRequire(import.meta.url);
const BIN = fileURLToPath(new URL('../../bin/mcp-ordered-dispatch.cjs', import.meta.url));
const { nativeLauncher } = require('../../lib/native/launcher.cjs');
const NOBODY = 65534;
const ROUNDS = 60;
// renameat2's number, by the architecture of the perl that calls it (under test:arm64's qemu-user this Node is arm64, the machine's perl x64).
const PERL_ARCH = process.platform === 'linux' ? spawnSync('perl', ['-MConfig', '-e', 'print $Config{archname}'], { encoding: 'utf8' }).stdout ?? '' : '';
const RENAMEAT2 = /^x86_64/.test(PERL_ARCH) ? 316 : /^aarch64/.test(PERL_ARCH) ? 276 : undefined;
const skip = process.platform !== 'linux' || RENAMEAT2 === undefined ? 'setpriv, perl and renameat2 (x64, arm64) are Linux\'s'
  : process.getuid() !== 0 ? 'runs the other user as nobody, which only root can (setpriv)'
    : !fs.existsSync('/usr/bin/setpriv') && 'no setpriv';

let mine;
let theirs;
before(() => {
  mine = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-race-mine-'));
  theirs = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-race-theirs-'));
});
after(() => {
  for (const d of [mine, theirs]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

test(`a plans folder another user swaps in a loop is never started directly: ${ROUNDS} starts, none with their variables`, { skip, timeout: 300_000 * TIMEOUT_SCALE }, async (t) => {
  const plans = path.join(mine, 'plans');
  fs.mkdirSync(plans, { mode: 0o700 });
  fs.mkdirSync(path.join(mine, 'bin'));
  const host = path.join(mine, 'bin', 'race-host');
  fs.writeFileSync(host, `#!/bin/sh\nprintf '%s\\n' "NODE_OPTIONS=$NODE_OPTIONS"\n`, { mode: 0o755 });
  const env = { PATH: `${path.dirname(host)}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: mine, MCP_ORDERED_DISPATCH_CACHE_DIR: plans };
  const start = (records) => runCommand(nativeLauncher(), [`--node=${process.execPath}`, `--cli=${BIN}`, `--plans=${records}`, '--', 'race-host'], { cwd: mine, env });
  // The user's own plan, started directly from their folder.
  const first = await start(plans);
  assert.equal(first.code, 0, show(first));
  const name = `run-${Buffer.from('race-host').toString('hex')}.json`;
  const good = JSON.parse(fs.readFileSync(path.join(plans, name), 'utf8'));
  // The other user's folder, their plan in it (the same key, their preload), and the link setup named.
  fs.chownSync(theirs, NOBODY, NOBODY);
  fs.chmodSync(theirs, 0o755);
  const evil = path.join(theirs, 'evil');
  fs.mkdirSync(evil, { mode: 0o700 });
  fs.writeFileSync(path.join(evil, name), JSON.stringify({ ...good, set: { ...good.set, NODE_OPTIONS: '--require=/their/preload.cjs' } }), { mode: 0o600 });
  for (const f of [evil, path.join(evil, name)]) fs.chownSync(f, NOBODY, NOBODY);
  const swapped = path.join(theirs, 'plans');
  fs.symlinkSync(plans, swapped);
  fs.symlinkSync('evil', path.join(theirs, 'other'));
  for (const link of [swapped, path.join(theirs, 'other')]) fs.lchownSync(link, NOBODY, NOBODY);
  // renameat2(AT_FDCWD, "other", AT_FDCWD, "plans", RENAME_EXCHANGE) as fast as it goes, as the attacker did.
  const swap = `my ($n, $a, $b) = (${RENAMEAT2}, "other", "plans"); for (my $i = 0; $i < 50_000_000; $i++) { syscall($n, -100, $a, -100, $b, 2) == 0 or die "renameat2: $!" }`;
  const swapper = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'perl', '-e', swap], { cwd: theirs, stdio: 'ignore' });
  t.after(() => swapper.kill('SIGKILL'));
  for (let i = 0; i < ROUNDS; i++) {
    const r = await start(swapped);
    assert.equal(r.code, 0, show(r));
    assert.doesNotMatch(r.stdout, /their\/preload/, `start ${i + 1} started the other user's plan directly`);
    assert.match(r.stdout, /NODE_OPTIONS=.*register\.cjs/, show(r));
  }
  assert.equal(swapper.exitCode, null, 'the other user swapped the folder the whole time');
});
