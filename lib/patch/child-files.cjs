'use strict';
// What the per-child rule knows of a child's file (lib/patch/children.cjs):
// its real path, found by the one resolver (lib/native/can-start.cjs) for a
// name on PATH, and its facts (lib/rule/children.cjs's `facts`: whether it
// is a compiled executable, holds an SDK, or is a script that holds one),
// kept by path and identity (lib/native/file-identity.cjs): a start of a
// file seen before costs one stat.

const fs = require('node:fs');
const path = require('node:path');

// The most files, paths and lookups kept (a host that starts ever new files forgets the oldest).
const KEPT = 512;

/** `map` with `key` set to `value`, its oldest entry forgotten where it holds KEPT. */
function keep(map, key, value) {
  if (!map.has(key) && map.size >= KEPT) map.delete(map.keys().next().value);
  map.set(key, value);
}

/** A real path -> { identity, compiled, holdsSdk, scriptHoldsSdk, launches, runner }: what is known of that file, while its identity holds. */
const files = new Map();

/** What is known of the file at the real path `file`, whose identity is `identity` (lib/native/file-identity.cjs). */
function known(file, identity) {
  if (identity === undefined) return { identity }; // nothing kept for a file with no identity
  let entry = files.get(file);
  if (entry === undefined || entry.identity !== identity) {
    entry = { identity };
    keep(files, file, entry);
  }
  return entry;
}

// The identity of each real path handed to the rule (fileOf()), for its facts: the stat fileOf() made.
const identities = new Map();

const facts = {
  compiled(file) {
    const entry = known(file, identities.get(file));
    if (entry.compiled === undefined) entry.compiled = require('../discover/compiled.cjs').compiledKindOf(file) ?? null;
    return entry.compiled ?? undefined;
  },
  holdsSdk(file) {
    const entry = known(file, identities.get(file));
    if (entry.holdsSdk === undefined) entry.holdsSdk = require('../discover/bun-graph.cjs').holdsSdkClasses(file) === true;
    return entry.holdsSdk;
  },
  launchesSdkExecutable(file) {
    const entry = known(file, identities.get(file));
    if (entry.launches === undefined) entry.launches = require('../discover/program.cjs').sdkExecutableOfLauncher(file) !== undefined;
    return entry.launches;
  },
  // `file`: a path as a start named it, resolved against its cwd.
  isFile(file) {
    return realOf(file) !== undefined;
  },
  isRunner: (file) => scriptFact(file, 'runner', (real) => require('../discover/program.cjs').isRunner(real)),
  scriptHoldsSdk: (file) => scriptFact(file, 'scriptHoldsSdk', (real) => require('../discover/program.cjs').programHoldsSdk(real)),
};

/**
 * What `read(real)` says of the script a start named `file` (resolved
 * against its cwd), kept under `name` while its identity holds; false where
 * there is no such file.
 */
function scriptFact(file, name, read) {
  const real = realOf(file);
  if (real === undefined) return false;
  const entry = known(real, identities.get(real));
  if (entry[name] === undefined) entry[name] = read(real);
  return entry[name];
}

function realOr(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

// Loaded at the first start that needs them, then kept: a require() per start costs the module hooks' resolution each time.
let identity;

// A path as a start named it -> { identity, real }: its real path, while the identity of what it names holds.
const reals = new Map();
// PATH, working directory and command -> the path the one resolver found; a miss is never kept.
const lookups = new Map();
/**
 * The real path of the file at `file` (absolute), and what the rule is to
 * know it by: one stat where the path was seen before and still names the
 * same file; undefined where there is no such file.
 */
function realOf(file) {
  let stat;
  try {
    stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (stat === undefined || !stat.isFile()) return undefined;
  identity ??= require('../native/file-identity.cjs');
  let seen = reals.get(file);
  // The same file as last time (its stat's identity fields equal): its identity is not written again.
  if (seen !== undefined && identity.sameIdentity(seen.stat, stat) && identities.get(seen.real) === seen.identity) return seen.real;
  const id = identity.identityOfStat(stat);
  if (id === undefined) {
    // A file system that keeps no inode or ctime: the file is looked at anew at each start.
    const real = realOr(file);
    identities.delete(real);
    return real;
  }
  if (seen === undefined || seen.identity !== id) {
    seen = { identity: id, stat, real: realOr(file) };
    keep(reals, file, seen);
  }
  if (identities.get(seen.real) !== id) keep(identities, seen.real, id);
  return seen.real;
}

/**
 * The executable `command` names from `cwd` with `env`'s PATH (and PATHEXT),
 * found by the one resolver (lib/native/can-start.cjs), as a real path;
 * undefined when not found. A name found once is kept per PATH value and
 * checked by realOf()'s one stat.
 */
function fileOf(command, env, cwd) {
  if (typeof command !== 'string' || command === '') return undefined;
  if (command.includes('/') || (process.platform === 'win32' && command.includes('\\'))) return realOf(path.isAbsolute(command) ? command : path.resolve(cwd, command));
  const key = `${env?.PATH ?? env?.Path ?? ''}\0${env?.PATHEXT ?? ''}\0${cwd}\0${command}`;
  const found = lookups.get(key);
  if (found !== undefined) {
    const real = realOf(found);
    if (real !== undefined) return real;
    lookups.delete(key);
  }
  const file = require('../native/can-start.cjs').resolveCommand(command, env ?? {}, cwd);
  if (file === undefined) return undefined;
  keep(lookups, key, file);
  return realOf(file);
}

/** Windows' command interpreter, as a start names it (CMD_END: the cheap test every start makes first). */
const CMD = /^cmd(?:\.exe)?$/i;
const CMD_END = /cmd(?:\.exe)?$/i;

/**
 * What `file args` starts when `file` is Windows' cmd.exe running one
 * command (`cmd /d /s /c "NAME ARGS"`, as cross-spawn starts a `.cmd`, its
 * metacharacters escaped with ^): { file, args } of NAME found from `cwd`
 * with `env`'s PATH and PATHEXT, an npm shim (lib/discover/shims.cjs) read
 * through to what it starts, as `run` does; undefined for any other start,
 * and where NAME is not found.
 */
function throughCmd(file, args, env, cwd) {
  if (typeof file !== 'string' || !CMD_END.test(file) || !CMD.test(path.win32.basename(file)) || !Array.isArray(args)) return undefined;
  const at = args.findIndex((arg) => typeof arg === 'string' && /^\/c$/i.test(arg));
  if (at < 0 || args.some((arg) => typeof arg !== 'string')) return undefined;
  let line = args.slice(at + 1).join(' ').trim();
  if (args.slice(0, at).some((arg) => /^\/s$/i.test(arg)) && line.length > 1 && line.startsWith('"') && line.endsWith('"')) line = line.slice(1, -1);
  // cross-spawn escapes once for cmd.exe and once more for a .cmd's own %*.
  for (let prev; prev !== line; ) [prev, line] = [line, line.replace(/\^(.)/g, '$1')];
  const [name, ...rest] = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
  const found = name === undefined ? undefined : fileOf(name, env, cwd);
  if (found === undefined) return undefined;
  const shim = require('../discover/shims.cjs').shimTarget(found);
  if (shim === undefined) return { file: found, args: rest };
  if (shim.program === shim.target) return { file: realOf(shim.target), args: rest };
  const program = path.isAbsolute(shim.program) ? realOf(shim.program) : fileOf(shim.program, env, cwd);
  return program === undefined ? undefined : { file: program, args: [...shim.args, ...rest] };
}

module.exports = { facts, fileOf, realOr, throughCmd };
