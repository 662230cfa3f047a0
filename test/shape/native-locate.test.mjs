// The addon's locate step (crates/core/src/shape.rs, `locateClasses`)
// against the JavaScript one (lib/shape/classes.cjs), the reference: over
// every .js/.mjs/.cjs file under node_modules (bounded by the bytes compared,
// never by time; the count and megabytes compared are reported), both must agree on whether the
// text lexes and, for every class without `extends`, on its offsets and its
// method and set names, in order - and sdkClassesIn() must give the same SDK
// records either way. Then the cases only a byte-level reading can get
// wrong: non-ASCII text (offsets in UTF-16 units), a Buffer with invalid
// UTF-8, a string with a lone surrogate, and sources that do not lex; and
// the shared cases (test/shape/cases.json) the Rust tests run too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CASES, GRAMMAR, grammarCases } from './cases.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { locateClasses } = require('../../lib/shape/classes.cjs');
const { sdkClassesIn, jsSdkClassesIn, nativeSdkClassesIn } = require('../../lib/shape/sdk-classes.cjs');
const addon = require('../../lib/native/addon.cjs').load();

/** What the walk over node_modules compares at most, in path order: the SDK copies and thousands of other modules (150 MB took 11 s of the suite). */
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** Files larger than this are left out (a module this size is a data file). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** A shape every class has: the native step then returns every class without `extends`. */
const EVERY_CLASS = [{ methods: [], sets: [] }];

/** The JavaScript's classes without `extends` as the addon returns them (names each once, in order). */
function jsClasses(text) {
  const classes = locateClasses(text);
  if (classes === undefined) return null;
  return classes.filter((c) => !c.extends).map((c) => ({ start: c.start, open: c.open, end: c.end, methods: [...c.methods], sets: [...c.sets] }));
}

/** sdkClassesIn() records as plain data. */
const plain = (records) => records?.map((r) => ({ ...r, methods: [...r.methods], sets: [...r.sets] }));

function* sources(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(file);
    else if (entry.isFile() && /\.[cm]?js$/.test(entry.name)) yield file;
  }
}

test('native and JavaScript locate steps agree on the modules under node_modules (the first 64 MB, in path order)', (t) => {
  const started = Date.now();
  let files = 0;
  let bytes = 0;
  let classes = 0;
  let unlexed = 0;
  let sdk = 0;
  let left = 0;
  for (const file of sources(fs.realpathSync(path.join(ROOT, 'node_modules')))) {
    if (bytes >= MAX_TOTAL_BYTES) {
      left++;
      continue;
    }
    const buffer = fs.readFileSync(file);
    if (buffer.length > MAX_FILE_BYTES) continue;
    const text = buffer.toString('utf8');
    const expected = jsClasses(text);
    assert.deepEqual(addon.locateClasses(text, EVERY_CLASS), expected, file);
    assert.deepEqual(addon.locateClasses(buffer, EVERY_CLASS), expected, `${file} (Buffer)`);
    const records = plain(jsSdkClassesIn(text));
    assert.deepEqual(plain(nativeSdkClassesIn(addon, text)), records, `${file} (SDK records)`);
    files++;
    bytes += buffer.length;
    classes += expected?.length ?? 0;
    if (expected === null) unlexed++;
    sdk += records?.length ?? 0;
  }
  t.diagnostic(`${files} files, ${(bytes / 1e6).toFixed(1)} MB compared in ${((Date.now() - started) / 1000).toFixed(1)} s: ${classes} classes, ${sdk} SDK classes, ${unlexed} files that do not lex; ${left} files left past the byte budget`);
  assert.ok(files > 1000 && sdk >= 4, `compared ${files} files, ${sdk} SDK classes`);
});

test('the shared cases (test/shape/cases.json and every entry of lib/shape/grammar.cjs): the addon finds what the JavaScript finds', () => {
  const sources = [...CASES.tokens, ...CASES.unlexed, ...CASES.classes].map((c) => c.source).concat(grammarCases(GRAMMAR).map(([source]) => source));
  for (const { source, error } of CASES.unlexed) assert.equal(addon.lexFailure(source), error, JSON.stringify(source));
  for (const source of sources) {
    const expected = jsClasses(source);
    assert.deepEqual(addon.locateClasses(source, EVERY_CLASS), expected, JSON.stringify(source));
    assert.deepEqual(addon.locateClasses(Buffer.from(source), EVERY_CLASS), expected, `${JSON.stringify(source)} (Buffer)`);
  }
});

test('non-ASCII text, invalid UTF-8, lone surrogates and sources that do not lex', () => {
  const body = '{constructor(){this._progressHandlers=new Map}_onnotification(e){}_onresponse(e){}_onrequest(e,t){}}';
  // Two- and four-byte characters before, in and around the class: offsets are UTF-16 indices.
  const text = `var s = "caf\u00e9 \u{1F600}"; /* \u2028 */ var P\u00e9 = class ${body.replace('(e){}', '(\u00e9){ "\u{1F600}" }')};\u00a0var Q = class{x\u{1F600}(){}};`;
  const records = plain(jsSdkClassesIn(text));
  assert.equal(records.length, 1);
  assert.deepEqual(plain(nativeSdkClassesIn(addon, text)), records);
  assert.deepEqual(addon.locateClasses(text, EVERY_CLASS), jsClasses(text));
  assert.equal(text.slice(records[0].open - 1, records[0].open), '{');
  // Invalid UTF-8 in a Buffer reads as Buffer.toString() reads it (U+FFFD per maximal subpart).
  const invalid = Buffer.concat([Buffer.from('var a = "'), Buffer.from([0xe2, 0x82, 0xff, 0xc0, 0x80]), Buffer.from(`"; var P = class ${body};`)]);
  assert.deepEqual(plain(nativeSdkClassesIn(addon, invalid)), plain(jsSdkClassesIn(invalid.toString('utf8'))));
  // Lone surrogates: names that differ only there are two names in JavaScript; sdkClassesIn() gives the reference.
  const lone = `var P = class ${body.replace('{constructor', '{a\ud800(){}a\udc00(){}constructor')};`;
  assert.equal(jsSdkClassesIn(lone)[0].methods.size, 6);
  assert.deepEqual(plain(sdkClassesIn(lone)), plain(jsSdkClassesIn(lone)));
  for (const bad of [...CASES.unlexed.map((c) => c.source), `var P = class ${body}}`]) {
    assert.equal(addon.locateClasses(bad, EVERY_CLASS), null, JSON.stringify(bad));
    assert.equal(sdkClassesIn(bad), undefined, JSON.stringify(bad));
  }
});

test('sdkClassesIn uses the addon when it loads, with the same records as the reference', () => {
  const file = path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/shared/protocol.js');
  const text = fs.readFileSync(file, 'utf8');
  const calls = [];
  const real = addon.locateClasses;
  // Observe (not replace) the addon's entry point: the records still come from it.
  addon.locateClasses = (...args) => {
    calls.push(args[0].length);
    return real(...args);
  };
  try {
    assert.deepEqual(plain(sdkClassesIn(text)), plain(jsSdkClassesIn(text)));
    assert.deepEqual(plain(sdkClassesIn(fs.readFileSync(file))), plain(jsSdkClassesIn(text)));
  } finally {
    addon.locateClasses = real;
  }
  assert.equal(calls.length, 2);
  assert.deepEqual(sdkClassesIn(text).map((c) => [c.kind, c.generation]), [['protocol', 1]]);
});
