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
      // Its fixtures link this clone's node_modules (test/support/bundles.mjs), as does each test below.
      ['doctor/doctor-compiled.test.mjs', /./],
      ['doctor/doctor.test.mjs', /an SDK copy that cannot be patched/],
      ['register/bundled-host.test.mjs', /./],
      ['runtimes/doctor.test.mjs', /./],
      ['doctor/doctor-nested.test.mjs', /./],
      // Bundles built in folders linking this clone's node_modules (test/support/bundles.mjs's resolvingHome).
      ['plugin/artifacts.test.mjs', /^a Bun-compiled executable \(bun build --compile\)/],
      ['plugin/bundlers.test.mjs', /./],
      ['plugin/rollup.test.mjs', /./],
      ['plugin/webpack.test.mjs', /./],
      ['plugin/esbuild-output.test.mjs', /./],
      ['plugin/source-maps.test.mjs', /./],
      ['plugin/webpack-outputs.test.mjs', /./],
      ['register/bundled.test.mjs', /./],
      ['run/run.test.mjs', /^a Bun-compiled (client )?executable/],
      ['run/user-preload.test.mjs', /^this Node: |^run puts register's --require/],
      ['runtimes/bun-bytecode.test.mjs', /./],
      ['runtimes/bun-compiled.test.mjs', /./],
      ['runtimes/bun-formats.test.mjs', /^bun: a CommonJS bundle holding the SDK that Bun loads through no hook/],
    ],
  },
  {
    limit: "cmd.exe cannot run npm's .cmd shims",
    why: "Wine's cmd.exe fails on the shims npm writes (the product never goes through cmd.exe: run reads a shim through to its target)",
    tests: [
      ['register/register-failsoft.test.mjs', /npm --version/],
      ['register/register-quiet.test.mjs', /npm children/],
      // They pack and install this package with npm (npm.cmd, through cmd.exe, as on a real Windows).
      ['package/lint.test.mjs', /./],
      ['package/pack.test.mjs', /^(?!our platform names agree|MCP_ORDERED_DISPATCH_NATIVE names exactly)/],
      ['package/registry.test.mjs', /./],
    ],
  },
  {
    limit: 'no Rust toolchain for Windows',
    why: "the platform packages' test builds the addon from source (scripts/build.cjs --prebuild), and no Windows cargo is installed in the Wine prefix (test:windows cross-builds the addon on the Linux side)",
    tests: [['package/pack.test.mjs', /^our platform names agree|^MCP_ORDERED_DISPATCH_NATIVE names exactly/]],
  },
  {
    limit: "Bun writes an internal error to stderr for each file it opens",
    why: "Bun for Windows under Wine prints 'Internal error: directory mismatch for directory …' on stderr for every package.json it reads, so a process that reads more files (register's) prints more lines; stdout, status and the rest match",
    tests: [
      ['run/call-forms.test.mjs', /^Bun:/],
      ['register/debug-lines.test.mjs', /^bun:/],
      ['runtimes/in-code.test.mjs', /^bun:/],
      ['runtimes/register.test.mjs', /^bun:? /],
      ['runtimes/bun-formats.test.mjs', /^bun:? /],
    ],
  },
  {
    limit: 'a Bun-compiled executable cannot open its working directory',
    why: "Bun for Windows' compiled executables under Wine end at start with 'ENOENT opening root directory \".\"'",
    tests: [['runtimes/in-code.test.mjs', /^a Bun-compiled executable with no addon inside/]],
  },
  {
    limit: 'Deno does not start',
    why: "Deno for Windows under Wine ends at start with V8's 'Fatal process out of memory: SegmentedTable::InitializeTable' (exit 0x80000003): the address space it reserves is not given",
    tests: [
      ['runtimes/in-code.test.mjs', /^deno/],
      ['runtimes/register.test.mjs', /^deno/],
      ['register/typeless.test.mjs', /^Deno/],
      ['run/run.test.mjs', /^deno run without -A/],
    ],
  },
  {
    limit: "Node's fetch cannot connect to a loopback server",
    why: "undici's connect (fetch, EventSource, WebSocket) to 127.0.0.1 under Wine fails with 'connect UNKNOWN'",
    tests: [
      ['patch/transports.test.mjs', /\b(sse|streamable-http|websocket) \(/],
      ['testing/record-replay.test.mjs', /over Streamable HTTP/],
      // The test lists the inspector's targets with fetch, to release a process waiting for a debugger.
      ['run/inspector.test.mjs', /a typed run under each inspector flag/],
    ],
  },
  {
    limit: 'a Node with no console aborts reading its process title',
    why: "under Wine, a Node started with pipes and no console aborts at libuv's assertion on process_title (uv/src/win/util.c) when it reads process.title, as server-everything does",
    tests: [['run/run.test.mjs', /its stdio MCP servers run by node and by bun/]],
  },
  {
    limit: 'no git for Windows',
    why: "the house rules list the repository's files with git ls-files, and a Windows git is not installed in the Wine prefix (a real Windows runner has one)",
    tests: [
      ['package/architecture.test.mjs', /layout tree matches the repository/],
      ['package/comment-paths.test.mjs', /^comment paths: every/],
      ['package/exports.test.mjs', /^every export of a lib\/ file|^an import from a test is no use/],
      ['package/sizes.test.mjs', /^lib\/: no file over 400 lines/],
      ['package/warnings.test.mjs', /^no process\.emitWarning\(\) in lib\//],
    ],
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
