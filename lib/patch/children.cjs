'use strict';
// The per-child rule (lib/rule/children.cjs) applied where this process
// starts children and threads. Under `run`, register arms it at start
// (armAtStart(), from lib/register/hooks.cjs): until this thread patches an
// SDK class, children get the environment as given, but for one nothing
// reaches, which gets none of run's variables. When the thread has patched
// its first SDK class and taken the variables out (fix-env.cjs tells
// armChildren()), children that do MCP work get them back, the others the
// user's own, and Workers get the fix. Nothing is read until a child starts;
// what a child's file is, is kept by path and identity. A start this does
// not see (a spawn function captured before it was armed) gets the
// environment it was given.
//
// Node: ChildProcess.prototype.spawn (spawn, exec, execFile, fork), the
// sync forms, process.execve(), and worker_threads' Worker. Bun: Bun.spawn
// and Bun.spawnSync (node:child_process goes through them), its global
// Worker and worker_threads' Worker, each given register as a preload (Bun
// runs no BUN_OPTIONS preload in a Worker).

const fs = require('node:fs');
const path = require('node:path');
const marker = require('../rule/marker.cjs');
const { childFix } = require('../rule/children.cjs');
const fixEnv = require('./fix-env.cjs');

const BUN = typeof globalThis.Bun === 'object' && globalThis.Bun !== null;

// The marker's vars: those of the environment (armed at start), then those this thread took out.
let vars;
// Whether this thread has patched an SDK class and taken run's variables out.
let fixed = false;
let spawnsArmed = false;
let self;
/** file -> { identity, compiled, holdsSdk } */
const files = new Map();

function identityOf(stat) {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** What is known of `file`, kept while its identity holds. */
function known(file) {
  const identity = identityOf(fs.statSync(file));
  let entry = files.get(file);
  if (entry === undefined || entry.identity !== identity) {
    entry = { identity, compiled: undefined, holdsSdk: undefined };
    files.set(file, entry);
  }
  return entry;
}

const facts = {
  compiled(file) {
    const entry = known(file);
    if (entry.compiled === undefined) entry.compiled = require('../discover/compiled.cjs').compiledKindOf(file) ?? null;
    return entry.compiled ?? undefined;
  },
  holdsSdk(file) {
    const entry = known(file);
    if (entry.holdsSdk === undefined) entry.holdsSdk = require('../discover/bun-graph.cjs').holdsSdkClasses(file) === true;
    return entry.holdsSdk;
  },
};

function realOr(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function isSea() {
  try {
    return require('node:sea').isSea() === true;
  } catch {
    return false;
  }
}

/** This process: its executable, and its main script's paths (none in a compiled executable). */
function selfOf() {
  if (self !== undefined) return self;
  const scripts = new Set();
  const main = process.argv[1];
  const compiled = typeof main !== 'string' || /^(\/\$bunfs\/|[A-Z]:[\\/]~BUN[\\/])/.test(main) || isSea();
  if (!compiled) {
    const resolved = path.resolve(main);
    scripts.add(resolved);
    scripts.add(realOr(resolved));
  }
  self = { file: realOr(process.execPath), scripts, spacedPath: /\s/.test(registerMjs() ?? '') };
  return self;
}

/** The executable `command` names from `cwd` with `env`'s PATH, as a real path; undefined when not found. */
function fileOf(command, env, cwd) {
  if (typeof command !== 'string' || command === '') return undefined;
  if (command.includes('/') || (process.platform === 'win32' && command.includes('\\'))) {
    const file = path.resolve(cwd, command);
    return fs.existsSync(file) ? realOr(file) : undefined;
  }
  if (process.platform === 'win32') return undefined; // PATHEXT and the rest: left as given
  const { canStart } = require('../native/can-start.cjs');
  for (const dir of String(env?.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && canStart(path.join(dir, command))) return realOr(path.join(dir, command));
  }
  return undefined;
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
 * undefined to leave `env` as given. Any failure leaves it as given.
 */
function envFor(command, args, env, cwd) {
  if (fixEnv.startingServer() || vars === undefined) return undefined;
  try {
    const file = command === undefined ? undefined : fileOf(command, env, cwd ?? process.cwd());
    const decision = childFix({ file, args, cwd: cwd ?? process.cwd(), byTransport: fixEnv.startingTransport() }, selfOf(), fixed, facts);
    if (decision.fix === 'put-back') {
      debug('%s (%s): the fix put back for it', command, decision.reason);
      return marker.envWithMarked(env, marksFor(decision.carriers));
    }
    if (decision.fix === 'take-out') debug('%s (%s): none of run\'s variables for it', command, decision.reason);
    else if (!fixed) return undefined; // a wrapper passes the environment on
    // In a fixed thread, an environment copied before ours was taken out (Bun 1.3's Worker gives its children one): the user's own.
    if (env[marker.MARKER] === undefined) return undefined;
    const own = { ...env };
    marker.takeFixOut(own);
    return own;
  } catch {
    return undefined;
  }
}

function debug(...args) {
  require('../warnings/warnings.cjs').debugLog()?.(...args);
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
  const spawn = cp.ChildProcess.prototype.spawn;
  cp.ChildProcess.prototype.spawn = function spawnWithRule(options) {
    if (options !== null && typeof options === 'object' && Array.isArray(options.envPairs)) {
      // Through a shell: not looked at (what it runs is the shell's to find), only given no stale copy of ours.
      const env = envFor(options.shell ? undefined : options.file, (options.args ?? []).slice(1), envOfPairs(options.envPairs), options.cwd);
      if (env !== undefined) options.envPairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    }
    return spawn.call(this, options);
  };
  // spawnSync(file, [args], [options]) and execFileSync(file, [args], [options]).
  for (const name of ['spawnSync', 'execFileSync']) {
    const original = cp[name];
    cp[name] = function (file, args, options) {
      const list = Array.isArray(args) ? args : [];
      const opts = Array.isArray(args) ? options : args;
      const env = envFor(opts?.shell ? undefined : file, list, opts?.env ?? process.env, opts?.cwd);
      if (env === undefined) return original.apply(this, arguments);
      return original.call(this, file, list, { ...opts, env });
    };
  }
  // execSync(command, [options]): always through a shell.
  const execSync = cp.execSync;
  cp.execSync = function (command, options) {
    const env = envFor(undefined, [], options?.env ?? process.env, options?.cwd);
    return env === undefined ? execSync.apply(this, arguments) : execSync.call(this, command, { ...options, env });
  };
  if (typeof process.execve === 'function') {
    const execve = process.execve;
    process.execve = function (file, args, env) {
      const given = env ?? process.env;
      const fixed = envFor(file, Array.isArray(args) ? args.slice(1) : [], given, undefined);
      return execve.call(this, file, args, fixed ?? env);
    };
  }
  require('node:module').syncBuiltinESMExports();
}

function wrapBunSpawn() {
  const Bun = globalThis.Bun;
  for (const name of ['spawn', 'spawnSync']) {
    const original = Bun[name];
    if (typeof original !== 'function') continue;
    Bun[name] = function (first, second) {
      const options = Array.isArray(first) ? second : first;
      const cmd = Array.isArray(first) ? first : first?.cmd;
      if (!Array.isArray(cmd)) return original.apply(this, arguments);
      // No env given, in a fixed thread: its process.env, as documented (a Bun 1.3 Worker would give the one it was made with).
      const env = envFor(cmd[0], cmd.slice(1), options?.env ?? process.env, options?.cwd) ?? (fixed && options?.env === undefined ? { ...process.env } : undefined);
      if (env === undefined) return original.apply(this, arguments);
      return Array.isArray(first) ? original.call(this, first, { ...second, env }) : original.call(this, { ...first, env });
    };
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
          given = { ...options, env: marker.envWithMarked(options?.env ?? process.env, vars) };
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
