'use strict';
// The spawn functions' call forms, for lib/patch/children.cjs's wrappers,
// which change a call's environment and nothing else: where Node reads a
// call's options object (after `args`, or in its place where `args` is left
// out), a copy of it with `env` set, and a wrapper that looks like the
// function it wraps (its name and length; no frame of this package's in an
// error thrown through it). A call Node refuses or reads otherwise is left
// as it is, so Node's own error is thrown.

/**
 * `original` wrapped by `wrapper`, looking like it: the same name and
 * length (a host that reads them, or prints them, sees Node's), and an
 * error thrown through it without the wrapper's own stack frame.
 */
function likeOriginal(original, wrapper) {
  const wrapped = { [original.name](...args) {
    try {
      return wrapper.call(this, args);
    } catch (error) {
      throw withoutOwnFrames(error);
    }
  } }[original.name];
  Object.defineProperty(wrapped, 'length', { value: original.length });
  return wrapped;
}

// A stack frame in this folder (the wrapper here, the rule's part in ./children.cjs).
const OWN_FRAME = new RegExp(`\\n\\s+at [^\\n]*${escapeRegExp(__dirname + require('node:path').sep)}[\\w-]+\\.cjs:[^\\n]*`, 'g');

function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** `error` with the frames of this folder taken out of its stack (a string: left as it is otherwise). */
function withoutOwnFrames(error) {
  try {
    if (typeof error?.stack === 'string') error.stack = error.stack.replace(OWN_FRAME, '');
  } catch {
    // A frozen error, a stack without a setter: as thrown.
  }
  return error;
}

/**
 * A copy of a call's options object with `env` set: its own enumerable
 * properties, and its prototype kept, so that Node reads every option as it
 * would have read it from the options given.
 */
function withEnv(options, env) {
  const copy = Object.create(options === undefined || options === null ? Object.prototype : Object.getPrototypeOf(options));
  return Object.assign(copy, options, { env });
}

/**
 * Where Node reads the options object of `spawnSync(file, args, options)`
 * or `execFileSync(file, args, options)` in `args` (the call's arguments):
 * 1 where `args` is left out (an object in its place), 2 where it is an
 * array, null or undefined; -1 for a call Node refuses or reads otherwise
 * (a callback, a value of the wrong type): such a call is left as it is.
 * `nullOptions`: whether Node takes null options as none (execFileSync).
 */
function optionsIndex(args, nullOptions) {
  const second = args[1];
  let at;
  if (Array.isArray(second) || second === undefined || second === null) at = 2;
  else if (typeof second === 'object') at = 1;
  else return -1;
  const options = args[at];
  if (options === undefined || (options === null && nullOptions)) return at;
  return typeof options === 'object' && options !== null && !Array.isArray(options) ? at : -1;
}

/**
 * The call's arguments with the environment `decide(options)` gives (a new
 * env, or undefined to leave the call as it is) in its options object at
 * `at`: the one argument changed, every other passed as given.
 */
function withDecidedEnv(args, at, decide) {
  if (at < 0) return args;
  const options = args[at] ?? undefined;
  const env = decide(options);
  if (env === undefined) return args;
  const changed = [...args];
  while (changed.length < at) changed.push(undefined);
  changed[at] = withEnv(options, env);
  return changed;
}

/** The working directory a call's `cwd` option names (a string or a file: URL), or undefined. */
function cwdOf(options) {
  const cwd = options?.cwd;
  if (cwd instanceof URL) return require('node:url').fileURLToPath(cwd);
  return typeof cwd === 'string' ? cwd : undefined;
}

module.exports = { likeOriginal, optionsIndex, withDecidedEnv, cwdOf };
