// `setup` edits a startup file as a careful editor does, tried as a user
// would try it (the command, in a temporary home): two setups at once keep
// every user line and both hosts; a write that fails midway (a file-size
// limit) leaves the file byte-identical; a block with no end line, a second
// block, or a block edited by hand is refused and nothing is deleted; CRLF
// markers are still the block; bytes that are not UTF-8 survive setup and
// --undo; a symlink, a dangling one too, stays a link; mode and owner stay;
// a hard-linked file is refused; a block an older setup wrote is read.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand, show } from '../support/spawn-node.mjs';
import { makeHome, BIN, BEGIN, END } from './fixtures/setup-home.mjs';

const POSIX = process.platform === 'win32' && 'startup files are tried on Linux and macOS';
const ROUNDS = 30;
const LINES = 20_000;

let space;
before(() => {
  space = makeHome('mcp-od-edit-');
});
after(() => space?.remove());

/** A folder of its own for one case, and `setup --shell=bash --rc=FILE ARGS` on a file in it. */
function room(name) {
  const dir = path.join(space.home, name);
  fs.mkdirSync(dir);
  const file = path.join(dir, 'bashrc');
  const setup = (...args) => space.setup(['--shell=bash', `--rc=${file}`, ...args]);
  return { dir, file, setup };
}

/** The hosts the state line of `text`'s block holds. */
const hostsIn = (text) => JSON.parse(/takes this block out \((\{.*\})\)/.exec(text)[1]).hosts;

/** That `setup ARGS` was refused naming `file` and a line, and `file` holds `bytes` still. */
function assertRefused(r, file, bytes, line) {
  assert.equal(r.code, 2, show(r));
  assert.ok(r.stderr.includes(`${file}:${line}: `) && r.stderr.includes('Nothing was changed.'), show(r));
  assert.deepEqual(fs.readFileSync(file), bytes, 'the file as it was');
}

describe('setup edits a startup file as a careful editor does', { skip: POSIX, concurrency: true }, () => {
  test(`two setups at once, ${ROUNDS} rounds, on a ${LINES}-line file: every user line kept, both hosts in one block`, { timeout: 240_000 }, async () => {
    const { dir, file, setup } = room('race');
    const original = Buffer.from(Array.from({ length: LINES }, (_, i) => `export USER_SETTING_${i}="value ${i}"\n`).join(''));
    for (let round = 0; round < ROUNDS; round++) {
      fs.writeFileSync(file, original);
      const [a, b] = await Promise.all([setup('hosta'), setup('hostb')]);
      assert.equal(a.code, 0, show(a));
      assert.equal(b.code, 0, show(b));
      const after = fs.readFileSync(file);
      assert.ok(after.subarray(0, original.length).equals(original), `round ${round}: the user's lines, first and whole`);
      const rest = after.subarray(original.length).toString('utf8');
      assert.ok(rest.startsWith(`${BEGIN}\n`) && rest.endsWith(`${END}\n`), `round ${round}: then the block alone`);
      assert.deepEqual(hostsIn(rest).sort(), ['hosta', 'hostb'], `round ${round}: both hosts`);
    }
    assert.deepEqual(fs.readdirSync(dir), ['bashrc'], 'no lock or temporary file left');
  });

  test('a write that fails midway (a file-size limit): the file is byte-identical and no temporary file is left', async () => {
    const { dir, file } = room('limit');
    const original = Buffer.from(Array.from({ length: 500 }, (_, i) => `alias a${i}='echo ${i}'\n`).join(''));
    fs.writeFileSync(file, original);
    // bash counts ulimit -f in 1024-byte blocks; three hosts' block is longer than what is left under the limit.
    const blocks = Math.ceil(original.length / 1024);
    const r = await runCommand('bash', ['-c', `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, BIN, 'setup', '--shell=bash', `--rc=${file}`, 'hosta', 'hostb', 'hostc'], { env: space.env() });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /EFBIG|too large/i, show(r));
    assert.deepEqual(fs.readFileSync(file), original);
    assert.deepEqual(fs.readdirSync(dir), ['bashrc']);
  });

  test('a block with no end line: setup and --undo refuse, naming the line, and delete nothing', async () => {
    const { file, setup } = room('no-end');
    fs.writeFileSync(file, 'before\n');
    assert.equal((await setup('hosta')).code, 0);
    const cut = fs.readFileSync(file, 'utf8').replace(`${END}\n`, '') + 'my line after the block\n';
    fs.writeFileSync(file, cut);
    const bytes = fs.readFileSync(file);
    assertRefused(await setup('hostb'), file, bytes, 2);
    assertRefused(await setup('--undo'), file, bytes, 2);
  });

  test('a second block, and a block edited by hand: refused, nothing deleted', async () => {
    const { file, setup } = room('two');
    assert.equal((await setup('hosta')).code, 0);
    const block = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, `${block}my line between\n${block}`);
    const two = fs.readFileSync(file);
    assertRefused(await setup('hostb'), file, two, block.split('\n').length + 1);
    assertRefused(await setup('--undo'), file, two, block.split('\n').length + 1);
    // A line of the user's added inside the block, then the state line changed.
    for (const edited of [block.replace('  fi\n', '  fi\n  echo mine\n'), block.replace('"newline":true', '"newline":false')]) {
      fs.writeFileSync(file, edited);
      assertRefused(await setup('hostb'), file, Buffer.from(edited), 2);
      assertRefused(await setup('--undo'), file, Buffer.from(edited), 2);
    }
  });

  test('markers with CRLF endings are the block: rewritten in place, not a second one', async () => {
    const { file, setup } = room('crlf');
    fs.writeFileSync(file, 'mine\n');
    assert.equal((await setup('hosta')).code, 0);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    const r = await setup('hostb');
    assert.equal(r.code, 0, show(r));
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text.split(BEGIN).length, 2, 'one block');
    assert.deepEqual(hostsIn(text), ['hosta', 'hostb']);
    assert.equal((await setup('--undo')).code, 0);
    assert.equal(fs.readFileSync(file, 'utf8'), 'mine\r\n');
  });

  test('bytes that are not UTF-8 (Latin-1): setup keeps them, --undo gives the file back byte for byte', async () => {
    const { file, setup } = room('latin1');
    const original = Buffer.from('PS1="caf\xe9> "\n# \xff\xfe\nexport X=1', 'latin1');
    fs.writeFileSync(file, original);
    assert.equal((await setup('hosta')).code, 0);
    assert.deepEqual(fs.readFileSync(file).subarray(0, original.length), original);
    assert.equal((await setup('--undo')).code, 0);
    assert.deepEqual(fs.readFileSync(file), original);
  });

  test('a symlinked startup file stays a link, a dangling one too; mode and owner stay', async () => {
    const { dir } = room('links');
    const run = (link, ...args) => space.setup(['--shell=bash', `--rc=${link}`, ...args]);
    // Dangling: setup creates the target, --undo removes it again; the link stays.
    const dangling = path.join(dir, 'dangling');
    const target = path.join(dir, 'dotfiles', 'bashrc');
    fs.symlinkSync(target, dangling);
    assert.equal((await run(dangling, 'hosta')).code, 0);
    assert.ok(fs.lstatSync(dangling).isSymbolicLink(), 'still a link');
    assert.ok(fs.readFileSync(target, 'utf8').includes(BEGIN), 'the block in its target');
    assert.equal((await run(dangling, '--undo')).code, 0);
    assert.ok(fs.lstatSync(dangling).isSymbolicLink(), 'still a link after --undo');
    assert.equal(fs.existsSync(target), false, 'the target setup created is gone again');
    // Live, to a file of mode 0600 (owned by another user, where this test may give it one).
    const live = path.join(dir, 'live');
    const real = path.join(dir, 'real-bashrc');
    fs.writeFileSync(real, 'mine\n', { mode: 0o600 });
    fs.chmodSync(real, 0o600);
    const owner = process.getuid?.() === 0 ? 65534 : undefined;
    if (owner !== undefined) fs.chownSync(real, owner, owner);
    fs.symlinkSync(real, live);
    assert.equal((await run(live, 'hosta')).code, 0);
    assert.ok(fs.lstatSync(live).isSymbolicLink());
    const st = fs.statSync(real);
    assert.equal(st.mode & 0o777, 0o600, 'mode kept');
    if (owner !== undefined) assert.deepEqual([st.uid, st.gid], [owner, owner], 'owner kept');
    assert.equal((await run(live, '--undo')).code, 0);
    assert.equal(fs.readFileSync(real, 'utf8'), 'mine\n');
  });

  test('a hard-linked file is refused (a rename would leave the other name behind); a block from before the state line kept its hosts', async () => {
    const { dir, file, setup } = room('kinds');
    fs.writeFileSync(file, 'mine\n');
    const other = path.join(dir, 'other-name');
    fs.linkSync(file, other);
    const r = await setup('hosta');
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /has 2 hard links/);
    assert.equal(fs.readFileSync(other, 'utf8'), 'mine\n');
    fs.rmSync(other);
    // The block as setup wrote it before this version: no hosts or digest in its state line.
    const old = `mine\n${BEGIN}\n# mcp-ordered-dispatch setup --undo takes this block out ({"created":false,"newline":true})\noldhost() {\n  command oldhost "$@"\n}\n${END}\n`;
    fs.writeFileSync(file, old);
    const added = await setup('hosta');
    assert.match(added.stdout, /now holds oldhost, hosta: /, show(added));
    assert.equal((await setup('--undo')).code, 0);
    assert.equal(fs.readFileSync(file, 'utf8'), 'mine\n');
  });
});
