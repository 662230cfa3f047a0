'use strict';
// The record of a plan that the native launcher (crates/launcher) replays:
// written here when the native launcher hands a start to this one (`run
// --plan-record=FILE`, with SEEN in PLAN_SEEN), SEEN being what it saw of the start
// (the command's file and its identity, the variables a plan reads, this
// launcher's own files). It replays the record while it sees exactly that
// again: the plan itself is always made here, by lib/run/plan.cjs and
// lib/rule/marker.cjs.
//
// Recorded only what a replay reproduces exactly: a file that starts by
// exec, the user's arguments unchanged, and a fix carried by variables the
// plan sets (not a Deno command's inserted arguments, not a preload chained
// to the user's own).

const path = require('node:path');
const rule = require('../rule/marker.cjs');
const { startsByExec } = require('./plan.cjs');

/** The variables a plan may set: the carriers and the marker. */
const SET = Object.freeze([...rule.CARRIERS, rule.MARKER]);
/** The variable the native launcher hands what it saw in (its PLAN_SEEN). */
const PLAN_SEEN = 'MCP_ORDERED_DISPATCH_PLAN_SEEN';

/**
 * The record of `planned` (plan()'s result for `command args` in `env`),
 * for a start the native launcher saw as `seen`; undefined when a replay
 * could not reproduce it, or `seen` is not what this plan was made from.
 */
function recordOf(planned, { seen, env, command, args }) {
  let saw;
  try {
    saw = JSON.parse(seen);
  } catch {
    return undefined;
  }
  if (saw === null || typeof saw !== 'object' || saw.file !== planned.file || planned.file === undefined || saw.command !== command) return undefined;
  // What it saw of the variables is what this plan read: a record is keyed by what made it.
  if (saw.env === null || typeof saw.env !== 'object' || Object.entries(saw.env).some(([name, value]) => (env[name] ?? null) !== value)) return undefined;
  if (planned.commandArgs.length !== args.length || planned.commandArgs.some((arg, i) => arg !== args[i])) return undefined;
  if ((env.BUN_INSPECT_PRELOAD ?? '') !== '') return undefined;
  // A batch file runs through cmd.exe as lib/run/index.cjs quotes it, which a replay would not.
  if (process.platform === 'win32' ? /\.(cmd|bat)$/i.test(planned.file) : !startsByExec(planned.file, planned.compiled)) return undefined;
  const set = {};
  for (const name of Object.keys({ ...env, ...planned.childEnv })) {
    if (planned.childEnv[name] === env[name]) continue;
    if (!SET.includes(name) || planned.childEnv[name] === undefined) return undefined;
    set[name] = planned.childEnv[name];
  }
  return { v: saw.v, seen, file: planned.file, argv0: planned.command, set, notice: planned.notice ?? null };
}

/**
 * Write the record of `planned` into `file` (see recordOf()), which must be
 * in this user's cache directory (lib/shape/cache.cjs's, checked and made
 * again if need be). A failure to write only costs the next start a Node
 * start. Returns whether it wrote one; `say` gets one line when the
 * directory setup named is not this version's (setup must be run again).
 */
function recordPlan(file, planned, options, say = () => {}) {
  const record = recordOf(planned, options);
  if (record === undefined) return false;
  const cache = require('../shape/cache.cjs');
  const dir = cache.usableCacheDir();
  if (dir === undefined || path.resolve(dir) !== path.dirname(path.resolve(file))) {
    if (dir !== undefined) say(`setup's shell function records plans in ${path.dirname(file)}, which is not this version's cache directory (${dir}), so each start goes through Node; run \`npx mcp-ordered-dispatch setup\` again for your hosts`);
    return false;
  }
  try {
    cache.replaceFile(file, JSON.stringify(record));
    return true;
  } catch {
    return false;
  }
}

module.exports = { recordOf, recordPlan, PLAN_SEEN };
