// A seeded mutation pass over real files: the two locate steps, JavaScript
// (lib/shape/classes.cjs over tokens.cjs, the reference) and the addon's
// (crates/core/src/shape.rs, `locateClasses`), must agree on sources broken
// the ways a hand-kept tokenizer gets wrong - cut short, a stray quote,
// slash, backtick or brace put anywhere - both where the mutant still lexes
// (the same classes, offsets and names) and where it does not (both refuse
// it, for the same reason: the addon's lexFailure() names it as the
// JavaScript's LexError does). Bounded by count: FILES files sampled from node_modules by the seed,
// MUTANTS mutants of each. Seed it otherwise with
// MCP_ORDERED_DISPATCH_MUTATION_SEED=<n> to look further.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { prng } from '../patch/support/protocol-script.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { tokenize, LexError } = require('../../lib/shape/tokens.cjs');
const { locateClasses } = require('../../lib/shape/classes.cjs');
const addon = require('../../lib/native/addon.cjs').load();

const SEED = Number(process.env.MCP_ORDERED_DISPATCH_MUTATION_SEED ?? 40);
const PACKAGES = 48;
const FILES = 64;
const MUTANTS = 24;
/** Sampled files are between these sizes (bytes): big enough to hold classes, small enough to stay within a few seconds. */
const MIN_BYTES = 2 * 1024;
const MAX_BYTES = 96 * 1024;
/** A shape every class has: the addon then returns every class without `extends`. */
const EVERY_CLASS = [{ methods: [], sets: [] }];

/** `FILES` .js/.mjs/.cjs files of node_modules, chosen by `random` from `PACKAGES` packages. */
function sample(random) {
  const top = path.join(ROOT, 'node_modules');
  const packages = [];
  for (const name of fs.readdirSync(top).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of fs.readdirSync(path.join(top, name)).sort()) packages.push(path.join(top, name, sub));
    else packages.push(path.join(top, name));
  }
  const files = [];
  const chosen = new Set();
  while (chosen.size < Math.min(PACKAGES, packages.length)) chosen.add(packages[Math.floor(random() * packages.length)]);
  const candidates = [...chosen].sort().map((dir) =>
    fs.readdirSync(dir, { recursive: true })
      .filter((f) => /\.[cm]?js$/.test(f) && !f.split(path.sep).includes('node_modules'))
      .sort()
      .map((f) => path.join(dir, f))
      .filter((f) => {
        try {
          const { size } = fs.statSync(f);
          return size >= MIN_BYTES && size <= MAX_BYTES;
        } catch {
          return false;
        }
      }),
  ).filter((list) => list.length > 0);
  for (let k = 0; files.length < FILES && candidates.length > 0; k++) {
    const list = candidates[k % candidates.length];
    files.push(list.splice(Math.floor(random() * list.length), 1)[0]);
    if (list.length === 0) candidates.splice(k % candidates.length, 1);
  }
  return files;
}

const STRAYS = ["'", '"', '/', '`', '{', '}', '${', '/*', '//', '*/', '\\'];

/** One mutant of `text`: [how, source]. Never splits a surrogate pair. */
function mutate(text, random) {
  let at = Math.floor(random() * (text.length + 1));
  const code = text.charCodeAt(at - 1);
  if (code >= 0xd800 && code <= 0xdbff) at--;
  const kind = Math.floor(random() * (STRAYS.length + 1));
  if (kind === STRAYS.length) return [`cut at ${at}`, text.slice(0, at)];
  return [`${JSON.stringify(STRAYS[kind])} at ${at}`, text.slice(0, at) + STRAYS[kind] + text.slice(at)];
}

/** The JavaScript's classes without `extends`, as the addon gives them; null and the kind when the source does not lex. */
function reference(text) {
  try {
    tokenize(text, { token() {}, substitutionEnd() {} });
  } catch (error) {
    if (!(error instanceof LexError)) throw error;
    assert.equal(locateClasses(text), undefined);
    return { classes: null, failure: error.message };
  }
  const classes = locateClasses(text).filter((c) => !c.extends).map((c) => ({ start: c.start, open: c.open, end: c.end, methods: [...c.methods], sets: [...c.sets] }));
  return { classes, failure: undefined };
}

test(`seeded mutants of real files (seed ${SEED}): both locate steps find the same classes, and refuse the same sources for the same reason`, (t) => {
  const random = prng(SEED); // mulberry32: the same mutants for the same seed on every machine
  const files = sample(random);
  assert.ok(files.length >= FILES / 2, `sampled ${files.length} files`);
  const failures = new Map();
  let lexed = 0;
  let classes = 0;
  let bytes = 0;
  for (const file of files) {
    const original = fs.readFileSync(file, 'utf8');
    for (let m = 0; m <= MUTANTS; m++) {
      const [how, text] = m === 0 ? ['as it is', original] : mutate(original, random);
      const where = `${path.relative(ROOT, file)}, ${how}`;
      const { classes: expected, failure } = reference(text);
      assert.deepEqual(addon.locateClasses(text, EVERY_CLASS), expected, where);
      assert.equal(addon.lexFailure(text), failure ?? null, `${where}: the failure`);
      if (!/[\ud800-\udfff]/.test(text)) assert.deepEqual(addon.locateClasses(Buffer.from(text), EVERY_CLASS), expected, `${where} (Buffer)`);
      if (failure === undefined) {
        lexed++;
        classes += expected.length;
      } else failures.set(failure, (failures.get(failure) ?? 0) + 1);
      bytes += text.length;
    }
  }
  const total = files.length * (MUTANTS + 1);
  const refused = total - lexed;
  t.diagnostic(`${files.length} files, ${total} sources (${(bytes / 1e6).toFixed(1)} M characters): ${lexed} lex (${classes} classes), ${refused} do not: ${[...failures].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  // Not a vacuous pass: many mutants lex, many do not, for most of the ways a source can fail.
  assert.ok(lexed > total / 5 && refused > total / 5, `${lexed} lexed, ${refused} refused`);
  assert.ok(failures.size >= 5, `failures of ${failures.size} kinds: ${[...failures.keys()]}`);
  assert.ok(classes > 0, 'the sampled files hold classes');
});
