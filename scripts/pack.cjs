#!/usr/bin/env node
'use strict';
// The main package as users get it: `npm pack` of a staged copy whose
// package.json is a user's - no scripts (the repository's `prepare` builds
// the addon, `test`, `bench`, ... run files the package does not ship), no
// devDependencies or overrides. The repository's own package.json keeps
// them, so `npm install` in a clone still builds through `prepare`.
//
//   node scripts/pack.cjs [--dest DIR]   stage npm-pack-tmp/main and pack it into DIR
//                                        (default: the working directory); prints the tarball
//   node scripts/pack.cjs --stage        stage only (the release workflow publishes that folder)
//
// Stages what package.json's `files` names, plus the files npm always
// includes (README, LICENSE, CHANGELOG). Uses only Node built-ins.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const STAGE = path.join(ROOT, 'npm-pack-tmp', 'main');
/** What the repository's package.json has that a user's does not. */
const REPOSITORY_ONLY = ['scripts', 'devDependencies', 'overrides'];
const ALWAYS = ['README.md', 'LICENSE', 'CHANGELOG.md'];

/** The package.json users install: the repository's without REPOSITORY_ONLY. */
function userManifest(manifest) {
  const out = { ...manifest };
  for (const key of REPOSITORY_ONLY) delete out[key];
  return out;
}

function stage() {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  fs.rmSync(STAGE, { recursive: true, force: true });
  fs.mkdirSync(STAGE, { recursive: true });
  for (const entry of [...new Set([...manifest.files, ...ALWAYS])]) {
    const from = path.join(ROOT, entry);
    if (!fs.existsSync(from)) {
      if (ALWAYS.includes(entry)) continue;
      throw new Error(`package.json files names ${entry}, which is not in ${ROOT}`);
    }
    fs.cpSync(from, path.join(STAGE, entry), { recursive: true });
  }
  fs.writeFileSync(path.join(STAGE, 'package.json'), `${JSON.stringify(userManifest(manifest), null, 2)}\n`);
  return STAGE;
}

/** Stage and pack into `dest`: the tarball's path. */
function pack(dest = process.cwd()) {
  const dir = stage();
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
  if (argv.includes('--stage')) console.log(stage());
  else {
    const i = argv.indexOf('--dest');
    console.log(pack(i >= 0 ? argv[i + 1] : undefined));
  }
}

module.exports = { stage, pack, userManifest, REPOSITORY_ONLY, STAGE };
