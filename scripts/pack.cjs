#!/usr/bin/env node
'use strict';
// The main package as users get it: `npm pack` of a staged copy whose
// package.json is a user's - no scripts (the repository's `prepare` builds
// the addon, `test`, `bench`, ... run files the package does not ship), no
// devDependencies or overrides. The repository's own package.json keeps
// them, so `npm install` in a clone still builds through `prepare`.
//
//   node scripts/pack.cjs [--dest DIR]   stage a copy of its own and pack it into DIR
//                                        (default: the working directory); prints the tarball
//   node scripts/pack.cjs --stage        stage only
//   node scripts/pack.cjs --stage --release
//                                        the release workflow's: stage, and fail unless the
//                                        repository fields are known; they also go into every
//                                        npm/<target>/package.json (the platform packages)
//
// `repository`, `homepage` and `bugs` come from the GitHub repository the
// release runs in (GITHUB_SERVER_URL and GITHUB_REPOSITORY, which every
// Actions job has; provenance ties the package to that same repository), or
// else from the clone's `origin` remote when it is on GitHub. They are not
// written into the repository's package.json, so a fork publishes its own.
//
// Stages what package.json's `files` names, plus the files npm always
// includes (README, LICENSE, CHANGELOG), and the bundler plugin's runtime
// as one module (lib/plugin/runtime-bundle.cjs, made with the devDependency
// esbuild from the staged files). Otherwise uses only Node built-ins.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const STAGE = path.join(ROOT, 'npm-pack-tmp', 'main');
/** What the repository's package.json has that a user's does not. */
const REPOSITORY_ONLY = ['scripts', 'devDependencies', 'overrides', 'allowScripts'];
const ALWAYS = ['README.md', 'LICENSE', 'CHANGELOG.md'];

/**
 * `repository`, `homepage` and `bugs` for the repository this runs in: from
 * GitHub Actions' environment, else from a GitHub `origin` remote; {} when
 * neither names one.
 */
function repositoryFields(env = process.env) {
  let url;
  if (env.GITHUB_REPOSITORY) url = `${env.GITHUB_SERVER_URL || 'https://github.com'}/${env.GITHUB_REPOSITORY}`;
  else {
    const r = spawnSync('git', ['-C', ROOT, 'remote', 'get-url', 'origin'], { encoding: 'utf8' });
    const m = r.status === 0 ? /github\.com[:/]([\w.-]+\/[\w.-]+?)(?:\.git)?\s*$/.exec(r.stdout) : null;
    if (m) url = `https://github.com/${m[1]}`;
  }
  if (!url) return {};
  return { repository: { type: 'git', url: `git+${url}.git` }, homepage: `${url}#readme`, bugs: { url: `${url}/issues` } };
}

/** The package.json users install: the repository's without REPOSITORY_ONLY, with `fields` where it has none. */
function userManifest(manifest, fields = {}) {
  const out = { ...fields, ...manifest };
  for (const key of REPOSITORY_ONLY) delete out[key];
  return out;
}

function stage({ release = false, env = process.env, npmDir = path.join(ROOT, 'npm'), into = STAGE } = {}) {
  const fields = repositoryFields(env);
  if (release && !fields.repository) {
    throw new Error('scripts/pack.cjs --release: no repository to name (GITHUB_REPOSITORY is not set and origin is not a GitHub remote)');
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into, { recursive: true });
  for (const entry of [...new Set([...manifest.files, ...ALWAYS])]) {
    const from = path.join(ROOT, entry);
    if (!fs.existsSync(from)) {
      if (ALWAYS.includes(entry)) continue;
      throw new Error(`package.json files names ${entry}, which is not in ${ROOT}`);
    }
    fs.cpSync(from, path.join(into, entry), { recursive: true });
  }
  fs.writeFileSync(path.join(into, 'package.json'), `${JSON.stringify(userManifest(manifest, fields), null, 2)}\n`);
  // The plugin's runtime as one module, made from the staged files (it bundles the package.json written above).
  require(path.join(into, 'lib', 'plugin', 'runtime-bundle.cjs')).writeRuntimeBundle(require('esbuild'));
  if (release) {
    for (const target of fs.readdirSync(npmDir)) {
      const file = path.join(npmDir, target, 'package.json');
      if (!fs.existsSync(file)) continue;
      const platform = JSON.parse(fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, `${JSON.stringify({ ...platform, ...fields }, null, 2)}\n`);
    }
  }
  return into;
}

/**
 * Stage (with `options` as for stage(); by default into a fresh directory of
 * its own, removed after, so that packs running at once never share a stage)
 * and pack into `dest`: the tarball's path.
 */
function pack(dest = process.cwd(), options = {}) {
  const own = options.into === undefined ? fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'mcp-od-stage-')) : undefined;
  try {
    return packStaged(stage({ ...options, into: options.into ?? own }), dest);
  } finally {
    if (own !== undefined) fs.rmSync(own, { recursive: true, force: true });
  }
}

function packStaged(dir, dest) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', path.resolve(dest)], {
    cwd: dir,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  const [{ filename }] = JSON.parse(r.stdout);
  return path.join(path.resolve(dest), filename);
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (argv.includes('--stage')) console.log(stage({ release: argv.includes('--release') }));
  else {
    const i = argv.indexOf('--dest');
    console.log(pack(i >= 0 ? argv[i + 1] : undefined));
  }
}

module.exports = { stage, pack, userManifest, repositoryFields, REPOSITORY_ONLY, STAGE };
