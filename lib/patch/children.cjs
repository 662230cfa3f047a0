'use strict';
// The per-child rule (lib/rule/children.cjs) applied where this process
// starts children and threads. Under `run`, register arms it at start
// (armAtStart(), from lib/register/hooks.cjs): until this thread patches an
// SDK class (a launcher), children that do MCP work or run what the user
// names (runners) get run's variables, the others the user's own; a runner
// (npm, npx: selfIsRunner()) passes them on to everything. When the thread has patched
// its first SDK class and taken the variables out (fix-env.cjs tells
// armChildren()), children that do MCP work get them back, the others the
// user's own, and Workers get the fix: a Worker takes the variables out of
// its own environment at start (its marker says a host started it), so what
// it runs is decided by the same rule. At a thread's first start, a process
// whose main script holds an SDK (lib/discover/program.cjs: it imports one,
// lazily too) takes them out as if it had patched one: it is a host before
// it loads the SDK. Nothing is read until a child starts;
// what a child's file is, is kept by path and identity (./child-files.cjs). A start this does
// not see (a spawn function captured before it was armed) gets the
// environment it was given.
//
// Node: ChildProcess.prototype.spawn (spawn, exec, execFile, fork), the
// sync forms, process.execve(), and worker_threads' Worker. Bun: Bun.spawn
// and Bun.spawnSync (node:child_process goes through them), its global
// Worker and worker_threads' Worker, each given register as a preload (Bun
// runs no BUN_OPTIONS preload in a Worker).

const path = require('node:path');
const marker = require('../rule/marker.cjs');
const fixEnv = require('./fix-env.cjs');
const { likeOriginal, optionsIndex, withDecidedEnv, cwdOf } = require('./call-forms.cjs');

// The rule and what it knows of a child's file, loaded at this thread's first start (a process that starts nothing loads neither).
let rule;
let files;
const ruleOf = () => (rule ??= require('../rule/children.cjs'));
const filesOf = () => (files ??= require('./child-files.cjs'));

const BUN = typeof globalThis.Bun === 'object' && globalThis.Bun !== null;

// The marker's vars: those of the environment (armed at start), then those this thread took out.
let vars;
// Whether this thread has patched an SDK class and taken run's variables out.
let fixed = false;
let spawnsArmed = false;
// Whether this thread has asked what its main script is (at its first start, until it is fixed).
let askedMain = false;
let self;

function isSea() {
  try {
    return require('node:sea').isSea() === true;
  } catch {
    return false;
  }
}

/**
 * This process: its executable, whether it is a compiled one, and its main
 * script's paths (none in a compiled executable, nor where there is no main
 * script: code given by -e or -p, a script on stdin, a REPL).
 */
function selfOf() {
  if (self !== undefined) return self;
  const scripts = new Set();
  const main = process.argv[1];
  const compiled = require('../native/platform.cjs').isBunEmbeddedPath(main) || isSea();
  const noMain = typeof process._eval === 'string' || typeof main !== 'string' || main === '-';
  if (!compiled && !noMain) {
    const resolved = path.resolve(main);
    scripts.add(resolved);
    scripts.add(filesOf().realOr(resolved));
  }
  self = { file: filesOf().realOr(process.execPath), compiled, scripts, spacedPath: /\s/.test(registerMjs() ?? '') };
  return self;
}

// Whether this process's main script is a runner's (npm, npx, nodemon: lib/discover/program.cjs), read when a launcher first asks.
let runner;
function selfIsRunner() {
  if (runner === undefined) {
    const { scripts } = selfOf();
    runner = scripts.size > 0 && require('../discover/program.cjs').isRunner([...scripts].pop());
  }
  return runner;
}

// Loaded at the first debug line, then kept (a require() per start costs the module hooks' resolution).
let debugLog;

/** Whether this process's main script holds an SDK (lib/discover/program.cjs): it is a host from its start. */
function mainHoldsSdk() {
  try {
    const { compiled, scripts } = selfOf();
    const main = [...scripts].pop(); // its real path
    return !compiled && main !== undefined && require('../discover/program.cjs').programHoldsSdk(main);
  } catch {
    return false;
  }
}

/**
 * register's ES module entry, from what run set (never from this file's own
 * place, which a bundle of the plugin's runtime would hold as the build
 * machine's): its BUN_INSPECT_PRELOAD, its BUN_OPTIONS preload, or its
 * NODE_OPTIONS entry's twin.
 */
function registerMjs() {
  const { values } = marker.entriesOf(vars);
  return values.BUN_INSPECT_PRELOAD;
}

/** The carriers' marker entries for `carriers` (undefined: those this thread took out). */
function marksFor(carriers) {
  if (carriers === undefined) return vars;
  const { values } = marker.entriesOf(vars);
  const out = {};
  for (const name of carriers) out[name] = vars[name] ?? (values[name] === undefined ? undefined : { ours: values[name] });
  return out;
}

/**
 * The environment a child started as `command args` gets: a new object, or
 * undefined to leave `env` as given. `env` may hold only what the rule
 * reads (PATH, PATHEXT, the marker), with `whole()` the environment to
 * change. Any failure leaves it as given.
 */
function envFor(command, args, env, cwd, whole = () => env) {
  if (fixEnv.startingServer() || vars === undefined) return undefined;
  try {
    if (!fixed && !askedMain) {
      // At this thread's first start: a program that holds an SDK is a host before it loads it (lazily, or not yet).
      askedMain = true;
      if (mainHoldsSdk()) fixEnv.takeOutOnce();
    }
    const at = cwd ?? process.cwd();
    let file = command === undefined ? undefined : filesOf().fileOf(command, env, at);
    // cmd.exe running an npm .cmd shim (cross-spawn's way on Windows): decided as what the shim starts.
    const through = file === undefined ? undefined : filesOf().throughCmd(file, args, env, at);
    if (through !== undefined) [file, args] = [through.file, through.args];
    const decision = ruleOf().childFix({ file, args, cwd: at, byTransport: fixEnv.startingTransport() }, selfOf(), fixed, filesOf().facts);
    if (decision.fix === 'put-back') {
      debug('%s (%s): the fix put back for it', command, decision.reason);
      return marker.envWithMarked(whole(), marksFor(decision.carriers));
    }
    if (decision.fix === 'take-out') debug('%s (%s): none of run\'s variables for it', command, decision.reason);
    else if (!fixed && selfIsRunner()) return undefined; // a runner passes the environment on to what it runs
    // In a fixed thread, an environment copied before ours was taken out (Bun 1.3's Worker gives its children one): the user's own.
    if (env[marker.MARKER] === undefined) return undefined;
    const own = { ...whole() };
    marker.takeFixOut(own);
    return own;
  } catch {
    return undefined;
  }
}

function debug(...args) {
  debugLog ??= require('../warnings/warnings.cjs').debugLog;
  debugLog()?.(...args);
}

/** What the rule reads of spawn's `envPairs` (K=V strings): PATH, PATHEXT and the marker. */
function readOfPairs(pairs) {
  const env = {};
  for (const pair of pairs) {
    const first = pair.charCodeAt(0);
    if (first !== 80 && first !== 77) continue; // neither P nor M: no pair the rule reads (a cheap test first, every start reads them all)
    if (pair.startsWith('PATH') || pair.startsWith('Path=') || pair.startsWith(marker.MARKER)) {
      const at = pair.indexOf('=', 1);
      if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

/** An env object of spawn's `envPairs` (K=V strings). */
function envOfPairs(pairs) {
  const env = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=', 1);
    if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

function wrapNodeChildProcess() {
  const cp = require('node:child_process');
  // spawn, exec, execFile and fork all start here, with their arguments normalized by Node.
  const spawn = cp.ChildProcess.prototype.spawn;
  cp.ChildProcess.prototype.spawn = likeOriginal(spawn, function ([options, ...rest]) {
    if (options !== null && typeof options === 'object' && Array.isArray(options.envPairs)) {
      // Through a shell: not looked at (what it runs is the shell's to find), only given no stale copy of ours.
      const pairs = options.envPairs;
      const env = envFor(options.shell ? undefined : options.file, (options.args ?? []).slice(1), readOfPairs(pairs), options.cwd, () => envOfPairs(pairs));
      if (env !== undefined) options.envPairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    }
    return spawn.call(this, options, ...rest);
  });
  // spawnSync(file, [args], [options]) and execFileSync(file, [args], [options]).
  for (const [name, nullOptions] of [['spawnSync', false], ['execFileSync', true]]) {
    const original = cp[name];
    cp[name] = likeOriginal(original, function (args) {
      const list = Array.isArray(args[1]) ? args[1] : [];
      const call = withDecidedEnv(args, optionsIndex(args, nullOptions), (options) =>
        envFor(options?.shell ? undefined : args[0], list, options?.env || process.env, cwdOf(options)));
      return original.apply(this, call);
    });
  }
  // execSync(command, [options]): always through a shell; Node takes any options but a function as an object.
  const execSync = cp.execSync;
  cp.execSync = likeOriginal(execSync, function (args) {
    const options = args[1];
    const at = options === undefined || options === null || (typeof options === 'object' && !Array.isArray(options)) ? 1 : -1;
    return execSync.apply(this, withDecidedEnv(args, at, (given) => envFor(undefined, [], given?.env || process.env, cwdOf(given))));
  });
  if (typeof process.execve === 'function') {
    // execve(file, [args], [env]): the environment is its third argument.
    const execve = process.execve;
    process.execve = likeOriginal(execve, function (args) {
      const [file, argv, env] = args;
      const given = env ?? process.env;
      const decided = typeof given === 'object' && given !== null ? envFor(file, Array.isArray(argv) ? argv.slice(1) : [], given, undefined) : undefined;
      if (decided === undefined) return execve.apply(this, args);
      const changed = [...args];
      changed[1] = argv;
      changed[2] = decided;
      return execve.apply(this, changed);
    });
  }
  require('node:module').syncBuiltinESMExports();
}

function wrapBunSpawn() {
  const Bun = globalThis.Bun;
  for (const name of ['spawn', 'spawnSync']) {
    const original = Bun[name];
    if (typeof original !== 'function') continue;
    // Bun.spawn(cmd, [options]) or Bun.spawn({ cmd, ...options }).
    Bun[name] = likeOriginal(original, function (args) {
      const [first] = args;
      const at = Array.isArray(first) ? 1 : 0;
      const options = args[at];
      const cmd = at === 1 ? first : first?.cmd;
      if (!Array.isArray(cmd) || (options !== undefined && (typeof options !== 'object' || options === null))) return original.apply(this, args);
      return original.apply(this, withDecidedEnv(args, at, (given) =>
        // No env given, in a fixed thread: its process.env, as documented (a Bun 1.3 Worker would give the one it was made with).
        envFor(cmd[0], cmd.slice(1), given?.env ?? process.env, cwdOf(given)) ?? (fixed && given?.env === undefined ? { ...process.env } : undefined)));
    });
  }
}

/** `Worker` with each new Worker given the fix: register (a preload, under Bun) and the variables its transports give their servers. */
function workerWithFix(Worker, { share } = {}) {
  // Named as the Worker it stands for.
  return { [Worker.name]: class extends Worker {
    constructor(where, options) {
      let given = options;
      try {
        if (options?.env !== share || share === undefined) {
          given = { ...options, env: marker.envForThread(options?.env ?? process.env, vars) };
          const preload = BUN ? registerMjs() : undefined;
          if (preload !== undefined) given.preload = [...[options?.preload ?? []].flat(), preload];
        }
      } catch {
        given = options;
      }
      super(where, given);
    }
  } }[Worker.name];
}

function wrapWorkers() {
  const threads = require('node:worker_threads');
  const Fixed = workerWithFix(threads.Worker, { share: threads.SHARE_ENV });
  threads.Worker = Fixed;
  if (BUN && typeof globalThis.Worker === 'function' && globalThis.Worker !== Fixed) globalThis.Worker = workerWithFix(globalThis.Worker);
  if (!BUN) require('node:module').syncBuiltinESMExports();
}

function arm(wrap) {
  try {
    wrap();
  } catch (error) {
    debug('the per-child rule is not armed here (%s): children get the environment they are given', error?.message ?? error);
  }
}

function armSpawns() {
  if (spawnsArmed) return;
  spawnsArmed = true;
  arm(BUN ? wrapBunSpawn : wrapNodeChildProcess);
}

/**
 * Under `run` (the marker in the environment), from register's start:
 * children nothing reaches get none of run's variables, and once this thread
 * has patched an SDK class and taken them out, the rule for a fixed thread.
 */
function armAtStart() {
  if (vars !== undefined) return;
  vars = marker.markerOf(process.env);
  if (vars === undefined) return;
  // A thread a host started (a Worker) is the host's, whether or not it loads the SDK.
  if (marker.threadOfHost(process.env)) fixEnv.takeOutOnce();
  armSpawns();
  fixEnv.whenTakenOut(armChildren);
}

/** The rule for a fixed thread, once: `taken` is the marker's vars fix-env.cjs took out. */
function armChildren(taken) {
  if (fixed || taken === undefined) return;
  vars = taken;
  fixed = true;
  armSpawns();
  arm(wrapWorkers);
}

module.exports = { armAtStart };
