// What every check of check:hosts shares: where things are, how a host is
// started (stock, under `run --`, as setup's function starts it), a home
// directory of its own for each host, the user's own environment that the
// commands a host runs must see, and the install step.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { installedNode } from '../node-lines.mjs';
import { HOSTS, EXTRA } from './versions.mjs';

export const require = createRequire(import.meta.url);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The newest releases go into a cache of their own: the pinned hosts (which bench/launcher.mjs reads) stay as they are.
export const CACHE = path.join(ROOT, '.cache', process.argv.includes('--newest') ? 'hosts-newest' : 'hosts');
export const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
export const RAW_SERVER = path.join(ROOT, 'test', 'fixtures', 'raw-server.mjs');
export const SERVER = [process.execPath, RAW_SERVER, '--mode=all-in-one'];
export const TIMEOUT_MS = 120_000;
/** run's own variables: none may reach a command a host runs for the user. */
export const RUN_VARIABLES = ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN'];

/** The user's own settings, which the host's shell command must see as they are. */
export const USER_ENV = { NODE_OPTIONS: '--max-old-space-size=300', BUN_OPTIONS: '--smol' };

/** A host's executable or script in the cache. */
export const exeOf = (host) => path.join(CACHE, 'node_modules', host.pkg, host.bin);
/** The Node a host runs on: its pinned line (Qwen Code needs 22+), else this one. */
export const nodeOf = (host) => (host.node ? installedNode(host.node) : process.execPath);

/** What an agent's shell tool is asked to run: print run's variables, then start Node 18. */
export function shellCommand() {
  return `printf 'NODE_OPTIONS=%s;BUN_OPTIONS=%s;BUN_INSPECT_PRELOAD=%s;MARKER=%s;' "$NODE_OPTIONS" "$BUN_OPTIONS" "$BUN_INSPECT_PRELOAD" "$MCP_ORDERED_DISPATCH_RUN"; '${installedNode('18.20.8')}' -e "console.log('node18', process.version)" 2>&1`;
}
/** What shellCommand() prints when it sees the user's environment (USER_ENV) and none of run's. */
export const EXPECTED_SHELL = `NODE_OPTIONS=${USER_ENV.NODE_OPTIONS};BUN_OPTIONS=${USER_ENV.BUN_OPTIONS};BUN_INSPECT_PRELOAD=;MARKER=;node18 v18.20.8`;

/** A home of its own for `name`: { home, cwd (its project folder), env (no run variables, no updaters) }. */
export function hostHome(name) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-od-check-${name}-`));
  const cwd = path.join(home, 'project');
  fs.mkdirSync(cwd);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CACHE_HOME: path.join(home, '.cache'), XDG_STATE_HOME: path.join(home, '.local', 'state'), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', NO_UPDATE_NOTIFIER: '1', CI: '' };
  for (const n of [...RUN_VARIABLES, 'MCP_ORDERED_DISPATCH_NATIVE', 'MCP_ORDERED_DISPATCH_REPORT', 'TMUX']) delete env[n];
  delete env.CI;
  return { home, cwd, env };
}

export function runStock(command, args, env, cwd) {
  const r = spawnSync(command, args, { env, cwd, encoding: 'utf8', timeout: TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`${path.basename(command)} ${args.join(' ')} failed (${r.signal ?? r.status}): ${r.stderr || r.stdout}`);
}

/**
 * The words `way` starts a host with: 'run' (`run --`), 'stock' (none), or
 * 'setup' (as setup's shell function does: the native launcher, recording
 * in `env`'s cache directory).
 */
export function wayWords(way, env) {
  if (way === 'stock') return [];
  if (way === 'run') return [process.execPath, BIN, 'run', '--'];
  const native = require('../../lib/native/launcher.cjs').nativeLauncher();
  if (native === undefined) throw new Error('no native launcher built for this platform (npm run build)');
  return require('../../lib/run/setup.cjs').launchWords({ native, node: process.execPath, cli: BIN, plans: env.MCP_ORDERED_DISPATCH_CACHE_DIR });
}

/** `exe args` started the `way` wayWords() says (`run --` by default), to its end (bounded): { code, signal, stdout, stderr }. */
export function launch(exe, args, env, cwd, { way = 'run', timeout = TIMEOUT_MS, stdin = 'ignore' } = {}) {
  return new Promise((resolve) => {
    const [program = exe, ...words] = wayWords(way, env);
    const child = spawn(program, way === 'stock' ? args : [...words, exe, ...args], { env, cwd, stdio: [stdin, 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const timer = setTimeout(() => killGroup(child.pid), timeout);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: error.code, signal: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(child.pid); // What it left behind (a server, a relaunched session).
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** SIGKILL to the process group `pid` leads (one this script started detached); gone already is fine. */
export function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The lines of a JSON-lines file, parsed (none when it is missing). */
export function jsonLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return { unreadable: l };
    }
  });
}

/** How many lines of `text` match `re`. */
export const countLines = (text, re) => text.split('\n').filter((l) => re.test(l)).length;

/** The installed version of `pkg` in the cache, or undefined. */
export function installedVersion(pkg) {
  try {
    return JSON.parse(fs.readFileSync(path.join(CACHE, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** Install the hosts (and EXTRA) whose pinned version is not in the cache, through npm, from the registry. */
export function install(hosts) {
  const wanted = [...hosts, ...EXTRA];
  const missing = wanted.filter((h) => installedVersion(h.pkg) !== h.version).map((h) => `${h.pkg}@${h.version}`);
  if (missing.length === 0) return;
  // npm prunes what one install does not name: every host installed is named again, at its version.
  const kept = HOSTS.filter((h) => !wanted.some((c) => c.pkg === h.pkg) && installedVersion(h.pkg) !== undefined).map((h) => `${h.pkg}@${installedVersion(h.pkg)}`);
  const named = [...wanted.map((h) => `${h.pkg}@${h.version}`), ...kept];
  console.log(`check:hosts: installing ${missing.join(', ')} into ${path.relative(ROOT, CACHE)} ...`);
  fs.mkdirSync(CACHE, { recursive: true });
  const r = spawnSync('npm', ['install', '--prefix', CACHE, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--engine-strict=false', ...named], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install of ${missing.join(', ')} failed`);
}

/** The registry's newest version of `spec` (a name, or name@range). */
export function newestOf(spec) {
  const r = spawnSync('npm', ['view', spec, 'version', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm view ${spec} failed: ${r.stderr}`);
  const parsed = JSON.parse(r.stdout);
  return Array.isArray(parsed) ? parsed[parsed.length - 1] : parsed;
}

/** One line of check:hosts' output: ok/FAIL and what. */
export const say = (ok, text) => console.log(`${ok ? 'ok  ' : 'FAIL'} ${text}`);
export const detail = (text) => console.log(`       ${text}`);
