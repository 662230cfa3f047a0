// Wine's limits, in one table, for `npm run test:windows` (scripts/test-windows.mjs):
// each limit names the tests it covers (file, and a pattern of the test's name).
// They skip only when the suites run under Wine: test:windows preloads
// test/support/wine/preload.mjs, which applies this table only where
// underWine() holds; on Linux, macOS and a real Windows nothing here applies.
// test:windows counts the skips per limit, lists the tests' own skips on
// Windows by their reasons, and fails on a skip with no reason.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Wine, not Windows: its system32 has winecfg.exe, which no Windows has. */
export function underWine() {
  return process.platform === 'win32' && fs.existsSync(path.join(process.env.SystemRoot ?? 'C:\\windows', 'system32', 'winecfg.exe'));
}

/**
 * Under Wine every process start costs about a second, and the machine's Node
 * starts children through Wine's loader: timeouts of tests' children are
 * scaled by this one factor (test/support/spawn-node.mjs,
 * test/native/support/memory-safety-child.mjs). Under an emulator
 * (scripts/test-arm64.mjs: qemu-user) MCP_ORDERED_DISPATCH_TIMEOUT_SCALE sets it.
 */
export const TIMEOUT_SCALE = Number(process.env.MCP_ORDERED_DISPATCH_TIMEOUT_SCALE) || (underWine() ? 6 : 1);

/** Each limit: what Wine lacks, and the tests it covers: [file under test/, pattern of the name]. */
export const LIMITS = [
  {
    limit: 'no directory symlinks or junctions',
    why: "Wine's CreateSymbolicLink and junctions make no directory link, so a project linking this package into node_modules cannot be laid out",
    tests: [
      ['patch/bundled-external.test.mjs', /./],
      ['patch/nested-copies.test.mjs', /./],
      // Its Bun-compiled fixtures are built in a folder whose node_modules links this clone's (test/support/bundles.mjs).
      ['doctor/doctor-executable.test.mjs', /./],
      // The stock and upstream-fixed SDK copies' projects link every other package of this clone (test/patch/support/upstream-fixed.cjs).
      ['patch/upstream-fixed.test.mjs', /./],
      ['patch/inherent-differences.test.mjs', /./],
      ['patch/onerror-throws.test.mjs', /./],
      ['patch/protocol-fuzz.test.mjs', /./],
      ['progress/late-response.test.mjs', /./],
    ],
  },
  {
    limit: "cmd.exe cannot run npm's .cmd shims",
    why: "Wine's cmd.exe fails on the shims npm writes (the product never goes through cmd.exe: run reads a shim through to its target)",
    tests: [['register/register-failsoft.test.mjs', /npm --version/], ['register/register-quiet.test.mjs', /npm children/]],
  },
  {
    limit: "Bun writes an internal error to stderr for each file it opens",
    why: "Bun for Windows under Wine prints 'Internal error: directory mismatch for directory …' on stderr for every package.json it reads, so a process that reads more files (register's) prints more lines; stdout, status and the rest match",
    tests: [['run/call-forms.test.mjs', /^Bun:/]],
  },
  {
    limit: 'resident memory is not a real Windows working set',
    why: "Wine's process memory counters are not Windows': only a real Windows shows the RSS bound (heap and external memory are still bounded)",
    tests: [['patch/memory.test.mjs', /RSS/]],
  },
];

/** The limit covering test `name` in `file` (a path), if it runs under Wine. */
export function limitOf(file, name) {
  if (!underWine()) return undefined;
  const rel = path.relative(TEST_DIR, file).split(path.sep).join('/');
  return LIMITS.find(({ tests }) => tests.some(([f, pattern]) => rel === f && pattern.test(name)));
}
