// The ecosystem's own package checks on the main tarball as it is published
// (scripts/pack.cjs: a staged copy with a user's package.json): publint, and
// @arethetypeswrong/cli for every entry point under every resolution mode
// (node10, node16 from CommonJS and from ES modules, bundler). Both must find
// nothing at all - no error, no warning, no suggestion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, sh, tarManifest, tarList } from './support/packing.mjs';

const require = createRequire(import.meta.url);
const pack = require('../../scripts/pack.cjs');

let dir;
let tarball;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-lint-'));
  tarball = pack.pack(dir);
});

after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

test('the published package.json is a user\'s: no scripts, no devDependencies, no overrides; ES module types ship', () => {
  const manifest = tarManifest(tarball);
  for (const key of pack.REPOSITORY_ONLY) assert.equal(manifest[key], undefined, `${key} is not in the published package.json`);
  const repo = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.ok(repo.scripts.prepare, 'the repository still builds through prepare');
  assert.equal(manifest.type, 'commonjs');
  const files = tarList(tarball);
  for (const f of ['index.d.mts', 'register.d.mts', 'testing.d.mts', 'README.md', 'CHANGELOG.md', 'LICENSE']) assert.ok(files.includes(f), `${f} ships`);
  const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  assert.match(changelog, new RegExp(`^## ${repo.version.replaceAll('.', '\\.')}\\b`, 'm'), 'CHANGELOG.md has a section for this version');
});

test('the .d.mts files are generated from the .d.ts files and current (npm run types)', () => {
  const r = sh(process.execPath, [path.join(ROOT, 'scripts', 'types.cjs'), '--check'], { cwd: ROOT, allowFail: true });
  assert.equal(r.status, 0, r.out);
});

test('publint: no message of any kind', async () => {
  const { publint } = await import('publint');
  const { messages } = await publint({ pkgDir: pack.STAGE, pack: 'npm', strict: true });
  assert.deepEqual(messages.map((m) => `${m.type} ${m.code} ${JSON.stringify(m.args)}`), []);
});

test('@arethetypeswrong/cli: no problem for any entry point under node10, node16 (CJS and ESM) or bundler', () => {
  const bin = path.join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  const r = sh(process.execPath, [bin, '--format', 'json', tarball], { cwd: ROOT, allowFail: true });
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.problems, {}, r.out);
  const entries = Object.keys(report.analysis.entrypoints);
  assert.deepEqual(entries.sort(), ['.', './package.json', './register', './testing']);
  for (const [entry, { resolutions }] of Object.entries(report.analysis.entrypoints)) {
    for (const mode of ['node10', 'node16-cjs', 'node16-esm', 'bundler']) {
      assert.ok(resolutions[mode]?.resolution, `${entry} resolves under ${mode}`);
    }
  }
  assert.equal(r.status, 0, r.out);
});
