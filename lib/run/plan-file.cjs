'use strict';
// The plan file: the plan made here for a start of the native launcher's
// (crates/launcher; how it starts one directly: its src/main.rs), written when it asks
// (`run --plan-file=FILE --plan-only`, with what it saw of the start in the
// contract's seen-variable). lib/run/launcher-contract.json is what both
// halves agree on: the variables a plan reads, which the key must cover, and
// the ones a direct start may set. A plan a direct start cannot reproduce exactly (a Deno
// command's inserted arguments, a preload chained to the user's, a file only
// a shell or cmd.exe runs) is written as one: `run` starts that host.

const path = require('node:path');
const CONTRACT = require('./launcher-contract.json');
const { isBatchFile } = require('./plan.cjs');
const { canStart } = require('../native/can-start.cjs');

/** The variable the native launcher hands what it saw in. */
const PLAN_SEEN = CONTRACT.seenVariable;

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether `saw` (what the native launcher saw) is what `planned` was made from, every variable the plan read included. */
function sawThisPlan(saw, planned, { env, command }) {
  if (!isObject(saw) || saw.v !== CONTRACT.version || saw.command !== command || planned.file === undefined || saw.file !== planned.file) return false;
  if (!isObject(saw.env)) return false;
  const names = Object.keys(saw.env);
  if (names.length !== CONTRACT.planReads.length || !CONTRACT.planReads.every((name) => Object.hasOwn(saw.env, name))) return false;
  return CONTRACT.planReads.every((name) => (env[name] ?? null) === saw.env[name]);
}

/** The variables a direct start of `planned` sets, or undefined when a direct start would not start the host exactly as planned. */
function directSet(planned, { env, args }) {
  if (planned.commandArgs.length !== args.length || planned.commandArgs.some((arg, i) => arg !== args[i])) return undefined;
  if ((env.BUN_INSPECT_PRELOAD ?? '') !== '') return undefined;
  if (isBatchFile(planned.file) || !canStart(planned.file, { byExec: true, native: planned.compiled !== undefined })) return undefined;
  const set = {};
  for (const name of Object.keys({ ...env, ...planned.childEnv })) {
    if (planned.childEnv[name] === env[name]) continue;
    if (!CONTRACT.directMaySet.includes(name) || planned.childEnv[name] === undefined) return undefined;
    set[name] = planned.childEnv[name];
  }
  return set;
}

/**
 * The plan file of `planned` (plan()'s result for `command args` in `env`,
 * from `cwd`), for a start the native launcher saw as `seen`; undefined when
 * `seen` is not what this plan was made from.
 */
function planFileOf(planned, { seen, env, command, args, cwd }) {
  let saw;
  try {
    saw = JSON.parse(seen);
  } catch {
    return undefined;
  }
  if (!sawThisPlan(saw, planned, { env, command })) return undefined;
  const set = directSet(planned, { env, args });
  if (set === undefined) return { v: CONTRACT.version, seen, cwd: null, direct: false };
  // The working directory is part of the key only where the plan used it (the native launcher compares it).
  const at = planned.cwdUsed ? cwd : null;
  return { v: CONTRACT.version, seen, cwd: at, direct: true, file: planned.file, argv0: planned.command, set, notice: planned.notice ?? null };
}

/**
 * Write the plan file of `planned` into `file` (see planFileOf()), which must
 * be in this user's cache directory (lib/shape/cache.cjs's, checked and made
 * again if need be). A failure to write only costs the next start a Node
 * start. Returns whether it wrote one; `say` gets one line when the
 * directory setup named is not this version's (setup must be run again).
 */
function writePlanFile(file, planned, options, say = () => {}) {
  const written = planFileOf(planned, options);
  if (written === undefined) return false;
  const cache = require('../shape/cache.cjs');
  const dir = cache.usableCacheDir();
  if (dir === undefined || path.resolve(dir) !== path.dirname(path.resolve(file))) {
    if (dir !== undefined) say(`setup's shell function keeps plans in ${path.dirname(file)}, which is not this version's cache directory (${dir}), so each start goes through Node; run \`npx mcp-ordered-dispatch setup\` again for your hosts`);
    return false;
  }
  try {
    cache.replaceFile(file, JSON.stringify(written));
    return true;
  } catch {
    return false;
  }
}

module.exports = { writePlanFile, PLAN_SEEN };
