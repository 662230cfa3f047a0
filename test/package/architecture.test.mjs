// ARCHITECTURE.md's layout tree against the repository: every path the tree
// names exists, and it names every tracked file at the root and under lib/
// and crates/ (the code a newcomer reads), so the map cannot drift from the
// territory. The tree is the first ```text block under "## Layout".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMPLETE = ['lib/', 'crates/'];

/** The paths the layout tree lists: files, and folders with a trailing slash. */
export function layoutPaths(markdown) {
  const section = markdown.split(/^## Layout$/m)[1];
  assert.ok(section, 'ARCHITECTURE.md has a "## Layout" section');
  const block = /```text\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the Layout section has a ```text tree');
  const stack = [];
  const paths = [];
  for (const line of block[1].split('\n')) {
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    assert.equal(indent % 2, 0, `two spaces per level: ${JSON.stringify(line)}`);
    const name = line.trim().split(/\s+/)[0];
    stack.length = indent / 2;
    const full = stack.join('') + name;
    paths.push(full);
    if (name.endsWith('/')) stack.push(name);
  }
  return paths;
}

test('ARCHITECTURE.md: its layout tree matches the repository', () => {
  const listed = layoutPaths(fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8'));
  assert.ok(listed.length > 40, `the tree lists the layout (${listed.length} paths)`);
  for (const p of listed) {
    assert.ok(fs.existsSync(path.join(ROOT, p)), `${p} (in ARCHITECTURE.md) exists`);
    assert.equal(fs.statSync(path.join(ROOT, p)).isDirectory(), p.endsWith('/'), `${p}: a folder exactly when it ends with /`);
  }
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && fs.existsSync(path.join(ROOT, f)));
  const wanted = tracked.filter((f) => !f.includes('/') ? !f.startsWith('.') : COMPLETE.some((dir) => f.startsWith(dir)));
  const missing = wanted.filter((f) => !listed.includes(f));
  assert.deepEqual(missing, [], 'every file at the root, under lib/ and under crates/ is in the tree');
});
