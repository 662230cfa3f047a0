// Benchmark: what the fix costs a compiled host's start, the three starts a
// Claude Code user makes every day, side by side with the same start stock,
// in one run: wall time of the whole start, runs interleaved (each variant
// first in turn), medians. Target: ≤ 1.10× stock for each.
//
//   claude -p          a whole `claude -p` session against a fake Messages
//                      API on 127.0.0.1 (test/support/fake-messages-api.mjs)
//                      with one stdio MCP server (the raw server, run by this
//                      Node), whose `progress` tool it calls once (3 progress
//                      notifications), to its exit
//   claude mcp list    the same home, connecting to the server and exiting
//   TUI first prompt   the interactive TUI in a pseudo-terminal (util-linux
//                      `script`), from its start to its prompt on screen;
//                      then Ctrl-C twice
//
// Claude Code is npm run check:hosts's (.cache/hosts); each start runs in a
// home of its own. The variants of each start:
//
//   stock      the host alone
//   run        `mcp-ordered-dispatch run -- claude …`, the Node launcher on --node
//   setup      what `setup`'s shell function runs: the native launcher
//              (crates/launcher) replaying the plan `run` recorded (the
//              warm-up start records it)
//   env        the environment `run` gives the host, with no launcher at
//              all: register's own cost, in the host and in the stdio server
//              it starts
//   … before   (with --before=DIR, a checkout of an earlier commit with its
//              build) `run` and `env` through that checkout's bin and plan
//
// The table's notes split each start's cost: the launcher (run − env for
// the Node one, setup − env for the native one) and register (env − stock).
// Two rows read parts alone: each launcher's floor (`-- true` against
// `true`), and the stdio server started alone with the NODE_OPTIONS `run`
// gives it against without (a Node process with no SDK; bench/startup.mjs
// measures register per Node line).
//
//   node bench/launcher.mjs [--runs=11] [--quick] [--json] [--node=PATH] [--before=DIR]
//                           [--only=print,list,tui,floor,server]
//
// --node runs the launcher on another Node (default: this one); on Node
// 22.15+ the launcher replaces itself with the host (process.execve()).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { fakeMessagesApi } from '../test/support/fake-messages-api.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const RUNS = Number(args.runs ?? (args.quick ? 3 : 11));
const ONLY = typeof args.only === 'string' ? new Set(args.only.split(',')) : undefined;
const wanted = (name) => ONLY === undefined || ONLY.has(name);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLAUDE_PKG = path.join(ROOT, '.cache', 'hosts', 'node_modules', '@anthropic-ai', 'claude-code-linux-x64');
const CLAUDE = path.join(CLAUDE_PKG, 'claude');
const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
const TARGET = 1.1;
const LAUNCHER_NODE = args.node ?? process.execPath;
const BEFORE = typeof args.before === 'string' ? path.resolve(args.before) : undefined;
const KILL_MS = 60_000;
/** What the TUI shows once its prompt is up (the status line under the input box). */
const PROMPT_SHOWN = /shift\+tab to cycle|\? for shortcuts/;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quote = (word) => `'${word.replace(/'/g, `'\\''`)}'`;

// None of a user's Node, Bun or register settings: every variant starts from the same environment.
const baseEnv = { ...process.env };
for (const name of ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_NATIVE', 'MCP_ORDERED_DISPATCH_RUN']) delete baseEnv[name];

/** A checkout's launcher: its bin, and its plan() (the environment `run` gives a command). */
function launcherOf(root) {
  return { bin: path.join(root, 'bin', 'mcp-ordered-dispatch.cjs'), plan: createRequire(path.join(root, 'package.json'))('./lib/run/plan.cjs').plan };
}
const launchers = { '': launcherOf(ROOT), ...(BEFORE === undefined ? {} : { ' before': launcherOf(BEFORE) }) };
const requireHere = createRequire(import.meta.url);
const NATIVE = requireHere('../lib/native/launcher.cjs').nativeLauncher();
if (NATIVE === undefined) throw new Error('no native launcher for this platform: npm run build makes it (crates/launcher)');
/** What setup's shell function starts a host with (lib/run/setup.cjs), recording in this user's cache directory. */
const SETUP_WORDS = requireHere('../lib/run/setup.cjs').launchWords({ native: NATIVE, node: LAUNCHER_NODE, cli: launchers[''].bin, records: requireHere('../lib/shape/cache.cjs').usableCacheDir() });

/**
 * One start of `command args`, in ms: to its exit (which must be 0), or
 * with `until`, to the first time its output matches it (then `stop` is
 * written to its stdin, and it is waited for).
 */
function time(command, commandArgs, { cwd, env, until }) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(command, commandArgs, { cwd, env, stdio: [until ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let ms;
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (until === undefined || ms !== undefined) return;
      if (!until.test(out.replace(/\x1b\[[0-9;?<>=]*[A-Za-z]/g, ''))) return;
      ms = Number(process.hrtime.bigint() - t0) / 1e6;
      child.stdin.write('\x03');
      setTimeout(() => child.stdin.write('\x03'), 200);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (until !== undefined && ms !== undefined) resolve(ms);
      else if (until === undefined && code === 0) resolve(Number(process.hrtime.bigint() - t0) / 1e6);
      else reject(new Error(`${command} ${commandArgs.join(' ')} ended with ${signal ?? code}${until ? ' before its prompt' : ''}: ${err}${out.slice(-2000)}`));
    });
  });
}

/**
 * The variants of one start of `exe exeArgs` (in a pseudo-terminal when
 * `tty`): { name: () => Promise<ms> }.
 */
function variantsOf(exe, exeArgs, { cwd, env, tty, until }) {
  const inTerminal = (argv) => (tty ? ['script', ['-qfec', argv.map(quote).join(' '), '/dev/null']] : [argv[0], argv.slice(1)]);
  const start = (argv, withEnv) => () => time(...inTerminal(argv), { cwd, env: withEnv, until });
  const variants = { stock: start([exe, ...exeArgs], env) };
  for (const [suffix, { bin, plan }] of Object.entries(launchers)) {
    const planned = plan(exe, exeArgs, { env, cwd });
    variants[`run${suffix}`] = start([LAUNCHER_NODE, bin, 'run', '--', exe, ...exeArgs], env);
    if (suffix === '') variants.setup = start([...SETUP_WORDS, exe, ...exeArgs], env);
    variants[`env${suffix}`] = start([planned.command, ...planned.commandArgs], planned.childEnv);
  }
  return variants;
}

/** Every variant of a start, interleaved (each in each position in turn), after one warm-up each: medians in ms. */
async function compare(variants) {
  const names = Object.keys(variants);
  for (const name of names) await variants[name](); // the page cache, and register's record of the executable
  const ms = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < RUNS; i++) {
    const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
    for (const name of order) ms[name].push(await variants[name]());
  }
  return Object.fromEntries(names.map((n) => [n, median(ms[n])]));
}

const rows = [];
const fmt = (ms) => `${ms.toFixed(0)} ms`;
/** The rows of one start: each variant against stock, the split in the notes. */
function rowsOf(name, medians, note) {
  const { stock } = medians;
  const row = (label, patched, split) => rows.push({ row: `${name}: ${label}`, stock, patched, unit: 'ms', lowerIsBetter: true, target: `≤ ${TARGET.toFixed(2)}×`, met: patched / stock <= TARGET, note: `${split}; ${note}` });
  for (const suffix of Object.keys(launchers)) {
    const env = medians[`env${suffix}`];
    const register = `register ${fmt(env - stock)}`;
    if (suffix === '') row("setup's shell function (the native launcher)", medians.setup, `launcher ${fmt(medians.setup - env)}, ${register}`);
    row(`run --${suffix} (the Node launcher)`, medians[`run${suffix}`], `launcher ${fmt(medians[`run${suffix}`] - env)}, ${register}`);
    row(`the environment alone, no launcher${suffix}`, env, `register in the host and its server`);
  }
  process.stderr.write(`  ${name}: ${Object.entries(medians).map(([k, v]) => `${k} ${fmt(v)} (${(v / stock).toFixed(3)}×)`).join(', ')}\n`);
}

/** A home for Claude Code with onboarding done, the project trusted, the API key approved, and one stdio server. */
function claudeHome(dir, apiKey) {
  const home = path.join(dir, 'claude-home');
  const project = path.join(home, 'project');
  fs.mkdirSync(project, { recursive: true });
  const settings = {
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  };
  fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify(settings));
  const env = { ...baseEnv, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ANTHROPIC_API_KEY: apiKey, TERM: 'xterm-256color' };
  execFileSync(CLAUDE, ['mcp', 'add', 'raw', '--', process.execPath, RAW_SERVER, '--mode=all-in-one', '--progress=3'], { cwd: project, env, stdio: 'pipe', timeout: 120_000 });
  return { project, env };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-bench-launcher-'));
const api = await fakeMessagesApi();
try {
  if (fs.existsSync(CLAUDE)) {
    const version = JSON.parse(fs.readFileSync(path.join(CLAUDE_PKG, 'package.json'), 'utf8')).version;
    const { project, env } = claudeHome(dir, 'sk-ant-bench-0123456789abcdefghijklmnop');
    const withApi = { ...env, ANTHROPIC_BASE_URL: api.url };
    const note = `Claude Code ${version}; median of ${RUNS}, interleaved; launcher on Node ${spawnSync(LAUNCHER_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()}, server on Node ${process.version}`;
    if (wanted('print')) {
      const print = ['-p', 'Call the progress tool of the raw server.', '--allowedTools', 'mcp__raw__progress'];
      rowsOf('claude -p, one stdio server, one tool call', await compare(variantsOf(CLAUDE, print, { cwd: project, env: withApi })), note);
    }
    // With an API key and no reachable API, Claude Code waits out its network timeout: the fake API answers instead.
    if (wanted('list')) rowsOf('claude mcp list, one stdio server', await compare(variantsOf(CLAUDE, ['mcp', 'list'], { cwd: project, env: withApi })), note);
    if (wanted('tui') && spawnSync('script', ['--version']).status === 0) {
      rowsOf('claude TUI, start to first prompt', await compare(variantsOf(CLAUDE, [], { cwd: project, env: withApi, tty: true, until: PROMPT_SHOWN })), note);
    } else if (wanted('tui')) process.stderr.write('  util-linux `script` is not installed: the TUI row is left out\n');
  } else {
    process.stderr.write('  .cache/hosts has no Claude Code (npm run check:hosts installs it): its rows are left out\n');
  }
  const floor = [['floor', 'the launcher alone: -- true against true', '/bin/true', []], ['server', `its stdio server alone (Node ${process.version}, no SDK): start and exit`, process.execPath, [RAW_SERVER]]];
  for (const [key, name, command, commandArgs] of floor) {
    if (!wanted(key) || !fs.existsSync(command)) continue;
    const medians = await compare(variantsOf(command, commandArgs, { cwd: dir, env: baseEnv }));
    const add = (label, patched, note) => rows.push({ row: `${name}, ${label}`, stock: medians.stock, patched, unit: 'ms', lowerIsBetter: true, note });
    if (key === 'floor') {
      add('the native launcher (setup)', medians.setup, 'a stat of the command and of the bin, one record read, then exec');
      for (const suffix of Object.keys(launchers)) add(`run${suffix}`, medians[`run${suffix}`], 'one Node start, the command looked at, then exec or spawn and wait');
    } else {
      for (const suffix of Object.keys(launchers)) add(`with run's NODE_OPTIONS${suffix}`, medians[`env${suffix}`], 'with the NODE_OPTIONS run gives a server');
    }
    process.stderr.write(`  ${name}: ${Object.entries(medians).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}\n`);
  }
} finally {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

if (args.json) console.log(JSON.stringify({ rows }));
else {
  console.log('| start | stock | with the fix | ratio | target | notes |\n|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.row} | ${fmt(r.stock)} | ${fmt(r.patched)} | ${(r.patched / r.stock).toFixed(3)}× | ${r.target === undefined ? '' : `${r.target}${r.met ? '' : ' (not met)'}`} | ${r.note} |`);
}
