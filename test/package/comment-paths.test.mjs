// Every repository path a comment or a doc names exists: a newcomer follows
// these pointers first, and a file renamed without its comments sends them
// nowhere. Read: the comments of the code under lib/, crates/, test/, bench/,
// scripts/, bin/ and at the root, and the whole text of the root's and docs/'s
// Markdown. A named path is a file, a folder (trailing /), a glob (`*`, `**`)
// or a pattern with <placeholders>; each must match something tracked or on
// disk (untracked new files count).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CODE_DIRS = ['lib/', 'crates/', 'test/', 'bench/', 'scripts/', 'bin/'];
const CODE_EXT = /\.(?:cjs|mjs|js|ts|cts|mts|rs)$/;
const TOML = /(?:^|\/)Cargo\.toml$/;

/**
 * Paths named on purpose that are not repository paths: (file that names it,
 * the path as written). Keep this short; each entry says why.
 */
const NOT_REPOSITORY_PATHS = new Set([
  // A user's own project in the example: where they keep their cassettes.
  'docs/record-replay.md test/cassettes/session.ndjson',
]);

/** A path as it starts in text: one of the repository's top folders, not inside a longer path or word. */
const PATH = /(?<![\w./@$-])((?:lib|crates|test|bench|scripts|docs)\/[\w.*/<>-]*)/g;

/** The comment texts of a source file (line and block comments; `#` lines in TOML), or the whole text of Markdown. */
export function commentsOf(file, text) {
  if (file.endsWith('.md')) return [text];
  if (TOML.test(file)) return text.match(/#[^\n]*/g) ?? [];
  return text.match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g) ?? [];
}

/** The repository paths a text names, as written (trailing sentence punctuation dropped). */
export function pathsIn(text) {
  const found = [];
  for (const match of text.matchAll(PATH)) {
    const named = match[1].replace(/[.,;:]+$/, '');
    found.push(named);
  }
  return found;
}

/** Whether a named path (file, folder, glob or <placeholder> pattern) matches a file or folder of the repository. */
export function exists(named, files, folders) {
  const pattern = named.replace(/<[^<>/]*>/g, '*');
  if (!pattern.includes('*')) {
    return named.endsWith('/') ? folders.has(named) : files.has(named) || folders.has(`${named}/`);
  }
  const source = pattern
    .split(/(\*\*\/?|\*)/)
    .map((part) => (part === '**' || part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${source}$`);
  for (const f of files) if (re.test(f)) return true;
  for (const d of folders) if (re.test(d) || re.test(d.slice(0, -1))) return true;
  return false;
}

/** Every (file, named path) pair whose path does not exist in the given listing. */
export function stalePaths(listing, read) {
  const files = new Set(listing);
  const folders = new Set();
  for (const f of listing) {
    for (let i = f.indexOf('/'); i !== -1; i = f.indexOf('/', i + 1)) folders.add(f.slice(0, i + 1));
  }
  const scanned = listing.filter((f) => (f.includes('/')
    ? (CODE_DIRS.some((dir) => f.startsWith(dir)) && (CODE_EXT.test(f) || TOML.test(f))) || /^docs\/[^/]+\.md$/.test(f)
    : CODE_EXT.test(f) || f.endsWith('.md') || TOML.test(f)));
  const stale = [];
  for (const file of scanned) {
    for (const comment of commentsOf(file, read(file))) {
      for (const named of pathsIn(comment)) {
        if (NOT_REPOSITORY_PATHS.has(`${file} ${named}`)) continue;
        if (!exists(named, files, folders)) stale.push(`${file}: ${named}`);
      }
    }
  }
  return [...new Set(stale)];
}

/** Tracked files and untracked ones not ignored, that are on disk. */
function repositoryFiles() {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile());
}

test('comment paths: every lib/, crates/, test/, bench/, scripts/ or docs/ path a comment or doc names exists', () => {
  const listing = repositoryFiles();
  assert.ok(listing.length > 100, `the listing has the repository (${listing.length} files)`);
  const stale = stalePaths(listing, (f) => fs.readFileSync(path.join(ROOT, f), 'utf8'));
  assert.deepEqual(stale, [], `comments or docs name paths that are not in the repository:\n${stale.join('\n')}`);
});

test('comment paths: the check catches a renamed file, folder, glob and placeholder path', () => {
  // Comment markers and globs built at run time: written out, they would open
  // comments in this file that name these paths.
  const [line, open, close, any] = ['/'.repeat(2), '/' + '*', '*' + '/', '/' + '*'];
  const texts = {
    'lib/a/new.cjs': [
      `${line} lib/a/new.cjs, lib/a/, test/<stage>${any}.test.mjs, crates/core/src/x.rs.`,
      `const s = 'lib/gone.cjs'; ${line} only comments are read: lib/a/old.cjs`,
      `${open} lib/gone/ ${close} ${line} test${any}${any}.test.cjs and test/<stage>${any}.test.cjs`,
      `${line} ../lib/a/old.cjs (relative) and https://x.test/lib/a/old.cjs are not repository paths`,
    ].join('\n'),
    'test/s/one.test.mjs': '',
    'crates/core/src/x.rs': `${line}! see lib/a/old.cjs and crates/core/src/x.rs`,
    'crates/core/Cargo.toml': '# see docs/gone.md\nname = "lib/not-a-comment"',
    'docs/guide.md': 'Read `lib/a/new.cjs` and `docs/old.md`.',
    'README.md': 'See docs/guide.md and test/s/.',
  };
  const stale = stalePaths(Object.keys(texts), (f) => texts[f]);
  assert.deepEqual(stale.sort(), [
    'crates/core/Cargo.toml: docs/gone.md',
    'crates/core/src/x.rs: lib/a/old.cjs',
    'docs/guide.md: docs/old.md',
    'lib/a/new.cjs: lib/a/old.cjs',
    'lib/a/new.cjs: lib/gone/',
    'lib/a/new.cjs: test/*/*.test.cjs',
    'lib/a/new.cjs: test/<stage>/*.test.cjs',
  ]);
});
