// ARCHITECTURE.md's layout tree against the repository: every path the tree
// names exists, and it names every tracked file at the root and under lib/
// and crates/ (the code a newcomer reads), so the map cannot drift from the
// territory. The tree is the first ```text block under "## Layout".
// And lib/'s imports: no module loop, and no loop between its folders (each
// folder a room whose imports go one way), counting every relative
// require() and import, at the top of a file or inside a function.
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

const LIB = path.join(ROOT, 'lib');
const SPECIFIER = /\brequire\s*\(\s*(['"])(\.\.?\/[^'"]+)\1\s*\)|\bimport\s*\(\s*(['"])(\.\.?\/[^'"]+)\3\s*\)|\b(?:from|import)\s+(['"])(\.\.?\/[^'"]+)\5/g;

/** Every .cjs/.mjs/.js file under `dir`, as paths relative to `dir` with '/'. */
function sourcesUnder(dir) {
  return fs.readdirSync(dir, { recursive: true })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => /\.(c|m)?js$/.test(f))
    .sort();
}

/** The relative specifiers `text` requires or imports, comment lines left out. */
export function specifiersOf(text) {
  const code = text.split('\n').filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line)).join('\n');
  return [...code.matchAll(SPECIFIER)].map((m) => m[2] ?? m[4] ?? m[6]);
}

/** lib/'s module graph: Map of file (relative to lib/) -> Set of the files under lib/ it requires or imports. */
export function moduleGraph(libDir) {
  const graph = new Map();
  for (const file of sourcesUnder(libDir)) {
    const targets = new Set();
    for (const spec of specifiersOf(fs.readFileSync(path.join(libDir, file), 'utf8'))) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (!target.startsWith('../')) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The folder of a file under lib/ (its first segment). */
const folderOf = (file) => file.split('/')[0];

/** The folders' graph of a module graph: Map of folder -> Map of folder -> the first [from, to] file edge. */
export function folderGraph(graph) {
  const folders = new Map();
  for (const [from, targets] of graph) {
    const a = folderOf(from);
    if (!folders.has(a)) folders.set(a, new Map());
    for (const to of targets) {
      const b = folderOf(to);
      if (a !== b && !folders.get(a).has(b)) folders.get(a).set(b, [from, to]);
    }
  }
  return folders;
}

/**
 * Every loop of a graph (Map of node -> Set or Map keyed by node) as the
 * node path [a, b, ..., a], each once, starting at its least node; at most
 * `limit` of them. lib/'s graphs are small and sparse, so a depth-first
 * search from each node, through greater nodes only, is enough.
 */
export function loops(graph, limit = 100) {
  const next = (n) => [...(graph.get(n)?.keys() ?? [])].sort();
  const found = [];
  for (const start of [...graph.keys()].sort()) {
    const path = [start];
    const on = new Set(path);
    const walk = (n) => {
      for (const m of next(n)) {
        if (found.length >= limit) return;
        if (m === start) found.push([...path, start]);
        else if (m > start && !on.has(m)) {
          path.push(m);
          on.add(m);
          walk(m);
          on.delete(m);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return found;
}

test('lib/: no module requires or imports itself through a loop', () => {
  const graph = moduleGraph(LIB);
  assert.ok(graph.size > 30, `lib/ has its modules (${graph.size})`);
  assert.deepEqual(loops(graph).map((cycle) => cycle.map((f) => `lib/${f}`).join(' -> ')), [], 'module loops in lib/');
});

test('lib/: no loop between its folders', () => {
  const folders = folderGraph(moduleGraph(LIB));
  assert.ok(folders.size >= 8, `lib/'s folders (${[...folders.keys()]})`);
  const named = loops(folders).map((cycle) =>
    `${cycle.join(' -> ')} (${cycle.slice(1).map((b, i) => folders.get(cycle[i]).get(b).map((f) => `lib/${f}`).join(' -> ')).join('; ')})`,
  );
  assert.deepEqual(named, [], 'folder loops in lib/');
});

test('the loop finder finds a loop and names it', () => {
  const graph = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a', 'd'])], ['d', new Set()], ['e', new Set(['e'])]]);
  assert.deepEqual(loops(graph), [['a', 'b', 'c', 'a'], ['e', 'e']]);
  assert.deepEqual(loops(new Map([['a', new Set(['b'])], ['b', new Set()]])), []);
  assert.deepEqual(specifiersOf("const x = require('./x.cjs');\n// require('./comment.cjs')\nimport y from '../y.mjs';\nawait import('./z.mjs');\nrequire('node:fs');"), ['./x.cjs', '../y.mjs', './z.mjs']);
});

/** ARCHITECTURE.md's "What each folder may import" table: Map of folder -> Set of folders ('nothing': empty). */
export function allowedImports(markdown) {
  const section = markdown.split(/^## What each folder may import$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, 'ARCHITECTURE.md has a "## What each folder may import" section');
  const allowed = new Map();
  for (const [, folder, may] of section.matchAll(/^\| `lib\/([\w-]+)\/` \|[^|]*\| ([^|]+) \|$/gm)) {
    allowed.set(folder, new Set(may.trim() === 'nothing' ? [] : [...may.matchAll(/`([\w-]+)`/g)].map((m) => m[1])));
  }
  return allowed;
}

test('lib/: each folder imports only what ARCHITECTURE.md says it may, and the table names every folder', () => {
  const allowed = allowedImports(fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8'));
  const folders = folderGraph(moduleGraph(LIB));
  const onDisk = fs.readdirSync(LIB, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  assert.deepEqual([...allowed.keys()].sort(), onDisk, 'the table has one row per folder of lib/');
  const outside = [];
  for (const [from, targets] of folders) {
    for (const [to, [a, b]] of targets) if (!allowed.get(from)?.has(to)) outside.push(`${from} -> ${to} (lib/${a} -> lib/${b})`);
  }
  assert.deepEqual(outside, [], 'imports the table does not allow');
});
