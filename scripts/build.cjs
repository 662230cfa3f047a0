#!/usr/bin/env node
'use strict';
// Builds the native addon with cargo into the napi-rs layout:
// <root>/mcp-ordered-dispatch.<platformArchABI>.node (what `napi build --platform`
// writes; lib/native/platform.cjs names it and the loader looks there in a clone),
// and the native launcher (crates/launcher) beside it:
// <root>/mcp-ordered-dispatch-launcher.<platformArchABI>[.exe].
//
//   node scripts/build.cjs             release build
//   node scripts/build.cjs --debug     debug build
//   node scripts/build.cjs --prebuild  release build, check that it loads, and stage
//                                      npm/<platformArchABI>/ (the .node and LICENSE)
//                                      so that `npm pack` there makes the platform package
//   node scripts/build.cjs --stage     no build: copy LICENSE into every npm/<target>/, and each
//                                      target's native launcher from artifacts/ (the release
//                                      workflow, once the artifacts are in)
//   node scripts/build.cjs --launcher-artifact=TRIPLE
//                                      no build: the native launcher cargo built for TRIPLE
//                                      into artifacts/ (the release workflow's build job)
//   node scripts/build.cjs --sync-versions
//                                      no build: set package.json's optionalDependencies to
//                                      the platform packages of napi.targets at the root's
//                                      exact version (`npm version` runs it, with `napi version`)
//
// The repository's `prepare` script runs --prebuild: on the root project's
// `npm install` and before `npm pack`, never when the package is installed from
// a registry. Each build also writes the bundler plugin's runtime as one
// module (lib/plugin/runtime-bundle.cjs) with the devDependency esbuild.
// Otherwise uses only Node built-ins. Honours CARGO (cargo binary),
// CARGO_BUILD_JOBS and CARGO_TARGET_DIR (the artifact path is taken from
// cargo's own JSON output).

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const {
  platformArchABI, localBuildPath, localLauncherPath, launcherFileName, binaryFileName, npmDirOf, platformPackageName, targets, tripleToAbi, packageRoot,
} = require('../lib/native/platform.cjs');

const { replaceFile } = require('../lib/shape/cache.cjs');

const ROOT = packageRoot();

// The addon's package in the Cargo workspace (crates/napi) and its library name;
// the native launcher's package and binary (crates/launcher).
const PACKAGE = 'mcp-ordered-dispatch';
const LIB_NAME = 'mcp_ordered_dispatch';
const LAUNCHER = 'mcp-ordered-dispatch-launcher';
const MIN_RUST = '1.88';

function cargoCommand() {
  return process.env.CARGO || 'cargo';
}

function rustMissingMessage(detail) {
  return (
    `mcp-ordered-dispatch: cannot build the native addon from source: ${detail}.\n` +
    `Building from source needs Rust >= ${MIN_RUST} with cargo on PATH (see https://rustup.rs).`
  );
}

/** Checks that `file` loads in a fresh Node process. Returns null or the error text. */
function checkLoads(file) {
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(file)})`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error) return String(r.error.message || r.error);
  if (r.status !== 0) return (r.stderr || '').trim() || `exit code ${r.status}`;
  return null;
}

/** `cargo build` with `args` (JSON messages on stdout); its compiler-artifact messages. */
function cargoBuild(args) {
  const cargo = cargoCommand();
  const jobs = process.env.CARGO_BUILD_JOBS;
  const all = ['build', ...args, '--message-format=json-render-diagnostics', ...(jobs ? ['--jobs', jobs] : [])];
  console.log(`[mcp-ordered-dispatch] ${cargo} ${all.join(' ')}  (in ${ROOT})`);
  const r = spawnSync(cargo, all, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error) {
    if (r.error.code === 'ENOENT') throw new Error(rustMissingMessage(`\`${cargo}\` was not found`));
    throw r.error;
  }
  if (r.status !== 0) {
    throw new Error(`mcp-ordered-dispatch: cargo build failed (exit code ${r.status}, signal ${r.signal || 'none'})`);
  }
  const artifacts = [];
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const msg = JSON.parse(line);
      if (msg.reason === 'compiler-artifact' && msg.target) artifacts.push(msg);
    } catch {
      // Not a message.
    }
  }
  return artifacts;
}

function build({ debug = false, verify = false } = {}) {
  const profile = debug ? [] : ['--release'];
  const ext = process.platform === 'win32' ? '.dll' : process.platform === 'darwin' ? '.dylib' : '.so';
  let artifact = null;
  for (const msg of cargoBuild(['-p', PACKAGE, '--lib', ...profile])) {
    if (msg.target.name !== LIB_NAME || !msg.target.kind.includes('cdylib')) continue;
    artifact = msg.filenames.find((f) => f.endsWith(ext)) || artifact;
  }
  if (!artifact || !fs.existsSync(artifact)) {
    throw new Error(`mcp-ordered-dispatch: cargo did not report a ${ext} cdylib for ${LIB_NAME}`);
  }

  const dest = localBuildPath();
  copyReplacing(artifact, dest);
  console.log(`[mcp-ordered-dispatch] ${debug ? 'debug' : 'release'} build: copied ${artifact} -> ${dest}`);

  if (verify) {
    const err = checkLoads(dest);
    if (err) throw new Error(`mcp-ordered-dispatch: the freshly built ${dest} does not load: ${err}`);
    console.log(`[mcp-ordered-dispatch] verified: ${dest} loads`);
  }

  const launcher = cargoBuild(['-p', LAUNCHER, '--bin', LAUNCHER, ...profile]).find((msg) => msg.target.name === LAUNCHER && msg.executable)?.executable;
  if (!launcher || !fs.existsSync(launcher)) throw new Error(`mcp-ordered-dispatch: cargo did not report the ${LAUNCHER} executable`);
  copyReplacing(launcher, localLauncherPath());
  console.log(`[mcp-ordered-dispatch] copied ${launcher} -> ${localLauncherPath()}`);
  return { addon: dest, launcher: localLauncherPath() };
}

// Written beside, then renamed: never rewrite in place a library another process has mapped.
function copyReplacing(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  replaceFile(to, fs.readFileSync(from), fs.statSync(from).mode & 0o777);
}

/** Copy LICENSE into every platform package folder (each tarball carries it). */
function stageLicenses() {
  for (const abi of targets().map(tripleToAbi)) {
    const dir = npmDirOf(abi);
    if (!fs.existsSync(path.join(dir, 'package.json'))) {
      throw new Error(`mcp-ordered-dispatch: ${dir}/package.json is missing (run \`napi create-npm-dirs\`)`);
    }
    copyReplacing(path.join(ROOT, 'LICENSE'), path.join(dir, 'LICENSE'));
  }
}

/** Where the release keeps a target's native launcher between its jobs: artifacts/, named as a clone's build. */
function launcherArtifact(abi) {
  return path.join(ROOT, 'artifacts', path.basename(localLauncherPath(abi)));
}

/** The release's build job: the native launcher cargo built for `triple`, into artifacts/. */
function collectLauncher(triple) {
  const built = path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), triple, 'release', launcherFileName(tripleToAbi(triple)));
  copyReplacing(built, launcherArtifact(tripleToAbi(triple)));
  console.log(`[mcp-ordered-dispatch] ${built} -> ${launcherArtifact(tripleToAbi(triple))}`);
}

/** The release's publish job: every target's native launcher from artifacts/ into its npm/<abi>/, executable (artifacts lose the bit). */
function stageLaunchers() {
  for (const abi of targets().map(tripleToAbi)) {
    const from = launcherArtifact(abi);
    if (!fs.existsSync(from)) throw new Error(`mcp-ordered-dispatch: ${from} is missing: the build job of ${abi} did not upload its native launcher`);
    fs.mkdirSync(npmDirOf(abi), { recursive: true });
    replaceFile(path.join(npmDirOf(abi), launcherFileName(abi)), fs.readFileSync(from), 0o755);
  }
}

/** Put this machine's build (the addon and the native launcher) into npm/<abi>/, ready for `npm pack` there. */
function stage({ addon = localBuildPath(), launcher = localLauncherPath() } = {}) {
  const abi = platformArchABI();
  stageLicenses();
  const dest = path.join(npmDirOf(abi), binaryFileName(abi));
  copyReplacing(addon, dest);
  copyReplacing(launcher, path.join(npmDirOf(abi), launcherFileName(abi)));
  console.log(`[mcp-ordered-dispatch] staged ${dest} and ${launcherFileName(abi)}`);
  return dest;
}

/** optionalDependencies: one platform package per napi target, at the root's exact version. */
function syncVersions() {
  const file = path.join(ROOT, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  pkg.optionalDependencies = Object.fromEntries(
    targets().map((t) => [platformPackageName(tripleToAbi(t)), pkg.version]).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
  console.log(`[mcp-ordered-dispatch] optionalDependencies at ${pkg.version}`);
}

/** The bundler plugin's runtime as one module (made again when its files changed). */
function runtimeBundle() {
  let esbuild;
  try {
    esbuild = require('esbuild');
  } catch {
    console.log('[mcp-ordered-dispatch] esbuild is not installed (a devDependency): the bundler plugin will take its runtime unbundled');
    return;
  }
  console.log(`[mcp-ordered-dispatch] plugin runtime: ${path.relative(ROOT, require('../lib/plugin/runtime-bundle.cjs').writeRuntimeBundle(esbuild))}`);
}

module.exports = { build, stage, syncVersions, stageLicenses, checkLoads, rustMissingMessage, MIN_RUST };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const unknown = argv.filter((a) => !['--debug', '--prebuild', '--release', '--stage', '--sync-versions'].includes(a) && !a.startsWith('--launcher-artifact='));
  if (unknown.length) {
    console.error(`usage: node scripts/build.cjs [--debug | --release | --prebuild | --stage | --sync-versions | --launcher-artifact=TRIPLE]  (unknown: ${unknown.join(' ')})`);
    process.exit(2);
  }
  try {
    const artifact = argv.find((a) => a.startsWith('--launcher-artifact='));
    if (artifact !== undefined) collectLauncher(artifact.slice('--launcher-artifact='.length));
    else if (argv.includes('--sync-versions')) syncVersions();
    else if (argv.includes('--stage')) {
      stageLicenses();
      stageLaunchers();
    }
    else {
      const prebuild = argv.includes('--prebuild');
      const built = build({ debug: argv.includes('--debug'), verify: prebuild });
      if (prebuild) stage(built);
      runtimeBundle();
    }
  } catch (err) {
    console.error(err && err.message ? err.message : err);
    process.exit(1);
  }
}
