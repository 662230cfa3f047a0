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
let staged;
let tarball;
// As the release workflow stages it: in a GitHub Actions job, which names the repository.
const RELEASE_ENV = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'example-org/mcp-ordered-dispatch' };
const URL = `${RELEASE_ENV.GITHUB_SERVER_URL}/${RELEASE_ENV.GITHUB_REPOSITORY}`;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-lint-'));
  staged = path.join(dir, 'stage');
  tarball = pack.pack(dir, { env: RELEASE_ENV, into: staged });
});

after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

test('the published package.json is a user\'s: no scripts, no devDependencies, no overrides; ES module types ship', () => {
  const manifest = tarManifest(tarball);
  for (const key of pack.REPOSITORY_ONLY) assert.equal(manifest[key], undefined, `${key} is not in the published package.json`);
  const repo = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.ok(repo.scripts.prepare, 'the repository still builds through prepare');
  assert.equal(manifest.type, 'commonjs');
  const files = tarList(tarball);
  for (const f of ['entries/index.d.mts', 'entries/register.d.mts', 'entries/testing.d.mts', 'README.md', 'CHANGELOG.md', 'LICENSE']) assert.ok(files.includes(f), `${f} ships`);
  const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  assert.match(changelog, new RegExp(`^## ${repo.version.replaceAll('.', '\\.')}\\b`, 'm'), 'CHANGELOG.md has a section for this version');
});

test('repository, homepage and bugs: from the repository the release runs in, in the main and every platform package', () => {
  const manifest = tarManifest(tarball);
  assert.deepEqual(manifest.repository, { type: 'git', url: `git+${URL}.git` });
  assert.equal(manifest.homepage, `${URL}#readme`);
  assert.deepEqual(manifest.bugs, { url: `${URL}/issues` });
  const repo = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(repo.repository, undefined, "the repository's own package.json names no repository (a fork publishes its own)");

  // --release writes them into the platform packages too (here into a copy of npm/).
  const npmDir = path.join(dir, 'npm');
  fs.cpSync(path.join(ROOT, 'npm'), npmDir, { recursive: true });
  pack.stage({ release: true, env: RELEASE_ENV, npmDir, into: staged });
  const targets = fs.readdirSync(npmDir);
  assert.equal(targets.length, 8);
  for (const target of targets) {
    const platform = JSON.parse(fs.readFileSync(path.join(npmDir, target, 'package.json'), 'utf8'));
    assert.equal(platform.homepage, `${URL}#readme`, target);
    assert.deepEqual(platform.repository, manifest.repository, target);
  }
  // Where nothing names the repository (no Actions environment; this clone has no GitHub origin), a release stage refuses.
  if (!pack.repositoryFields({}).repository) {
    assert.throws(() => pack.stage({ release: true, env: {}, npmDir, into: staged }), /--release: no repository to name/);
  }
  pack.stage({ env: RELEASE_ENV, into: staged }); // leave the stage as before() made it, for the checks below
});

test('the generated entry files (every plugin entry, the .d.mts of the others) are current (npm run types)', () => {
  const r = sh(process.execPath, [path.join(ROOT, 'scripts', 'types.cjs'), '--check'], { cwd: ROOT, allowFail: true });
  assert.equal(r.status, 0, r.out);
});

test('publint: no message of any kind', async () => {
  const { publint } = await import('publint');
  const { messages } = await publint({ pkgDir: staged, pack: 'npm', strict: true });
  assert.deepEqual(messages.map((m) => `${m.type} ${m.code} ${JSON.stringify(m.args)}`), []);
});

test('@arethetypeswrong/cli: no problem for any entry point under node10, node16 (CJS and ESM) or bundler', () => {
  const bin = path.join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  const r = sh(process.execPath, [bin, '--format', 'json', tarball], { cwd: ROOT, allowFail: true });
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.problems, {}, r.out);
  const entries = Object.keys(report.analysis.entrypoints);
  assert.deepEqual(entries.sort(), ['.', './bun', './esbuild', './package.json', './register', './rolldown', './rollup', './rspack', './testing', './vite', './webpack']);
  for (const [entry, { resolutions }] of Object.entries(report.analysis.entrypoints)) {
    for (const mode of ['node10', 'node16-cjs', 'node16-esm', 'bundler']) {
      assert.ok(resolutions[mode]?.resolution, `${entry} resolves under ${mode}`);
    }
  }
  assert.equal(r.status, 0, r.out);
});
