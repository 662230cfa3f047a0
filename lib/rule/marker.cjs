'use strict';
// The environment's side of the rule: the variables that carry the fix
// (lib/rule/ways-in.cjs chooses which), the marker that says which of their
// values are ours, and the two moves every process register runs in makes
// with them: taking ours out (for the commands a host runs for its user)
// and putting them back (for the processes that do MCP work: its servers,
// its own relaunch; lib/rule/children.cjs). envWithFix() is the marker's one
// writer and markerOf() its one reader.
//
// The marker holds what taking ours out needs and no copy of the user's
// option lists, which may be long: where ours begins in each (`at`: at the
// end, or before the user's first `--require`), and whether the user had
// the variable at all. BUN_INSPECT_PRELOAD holds one
// file, which ours replaces: the marker keeps the user's path to restore.

/** The variable that marks a process started under `run`: which values of the carriers are ours (JSON). */
const MARKER = 'MCP_ORDERED_DISPATCH_RUN';
/** The variables that carry the fix, in the order they are set. */
const CARRIERS = Object.freeze(['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD']);
/** The marker's format. */
const VERSION = 2;

/** A value for a space-separated option list (NODE_OPTIONS' rules): quoted when it holds a space, a quote or a backslash. */
function optionValue(text) {
  return /[\s"\\]/.test(text) ? `"${text.replace(/[\\"]/g, '\\$&')}"` : text;
}

/**
 * What each carrier gets appended (NODE_OPTIONS, BUN_OPTIONS) or set to
 * (BUN_INSPECT_PRELOAD), for register's entries { cjs, mjs } (absolute paths).
 */
function carrierValues(entries) {
  return {
    NODE_OPTIONS: `--require=${optionValue(entries.cjs)}`,
    BUN_OPTIONS: `--preload=${entries.mjs}`,
    BUN_INSPECT_PRELOAD: entries.mjs,
  };
}

/** The text optionValue() quoted. */
function unquoted(value) {
  return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\([\\"])/g, '$1') : value;
}

/**
 * register's entries { cjs, mjs } as the marker's `vars` carry them (the
 * ES module entry is the CommonJS one's twin beside it), and what each
 * carrier gets for them (carrierValues(); {} when none is carried).
 */
function entriesOf(vars) {
  const node = vars.NODE_OPTIONS?.ours;
  const bun = vars.BUN_OPTIONS?.ours;
  const cjs = node?.startsWith('--require=') ? unquoted(node.slice('--require='.length)) : undefined;
  const mjs = bun?.startsWith('--preload=') ? bun.slice('--preload='.length) : cjs?.replace(/\.cjs$/, '.mjs') ?? vars.BUN_INSPECT_PRELOAD?.ours;
  if (mjs === undefined) return { entries: undefined, values: {} };
  const entries = { cjs: cjs ?? mjs.replace(/\.mjs$/, '.cjs'), mjs };
  return { entries, values: carrierValues(entries) };
}

/** Whether the option list `options` holds register already (ours, or the user's own `mcp-ordered-dispatch/register`). */
function holdsRegister(options, entries) {
  return options.includes(entries.cjs) || options.includes(entries.mjs) || options.includes(optionValue(entries.cjs)) || options.includes('mcp-ordered-dispatch/register');
}

/** Where the first `--require`/`-r` option of the NODE_OPTIONS list `options` starts (spaces and quotes as Node reads them), or -1. */
function firstRequireAt(options) {
  let quoted = false;
  let tokenStart = true;
  for (let i = 0; i < options.length; i++) {
    const c = options[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === ' ') {
      tokenStart = true;
      continue;
    }
    if (tokenStart && /^(?:--require|-r)(?:[= ]|$)/.test(options.slice(i, i + 10))) return i;
    tokenStart = false;
    if (c === '"') quoted = true;
  }
  return -1;
}

/**
 * Where ours goes in the option list `current` of carrier `name`: appended,
 * except in a NODE_OPTIONS that holds a `--require` of the user's, where it
 * goes just before it. Register is then the first preload, on the loader
 * thread too that its module.register() starts on Node 20.19-22.14, where
 * Node runs every `--require` again; there it keeps the user's from running
 * a second time (lib/register/gate.cjs). Returns { value, at }.
 */
function withOurs(name, current, ours) {
  const before = name === 'NODE_OPTIONS' && current !== undefined ? firstRequireAt(current) : -1;
  if (before >= 0) return { value: `${current.slice(0, before)}${ours} ${current.slice(before)}`, at: before };
  const at = current === undefined || current === '' ? 0 : current.length + 1;
  return { value: at === 0 ? ours : `${current} ${ours}`, at };
}

/** The marker of `env`: { [variable]: { ours, at, unset } | { ours, user } }, or undefined (none, or not ours). */
function markerOf(env) {
  const text = env[MARKER];
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && parsed.v === VERSION && parsed.vars !== null && typeof parsed.vars === 'object' ? parsed.vars : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `env` with the fix: each of `carriers` given `values[carrier]` (appended
 * to an option list, or as BUN_INSPECT_PRELOAD's one file; `inspectPreload`
 * overrides that file, for a chained preload), unless it holds register
 * already (`run` inside `run` adds nothing), and the marker saying what is
 * ours. A new object; `env` is not changed.
 */
function envWithFix(env, carriers, values, { entries, inspectPreload } = {}) {
  const out = { ...env };
  const vars = { ...markerOf(env) };
  for (const name of carriers) {
    const current = env[name];
    if (name === 'BUN_INSPECT_PRELOAD') {
      const ours = inspectPreload ?? values[name];
      if (current === ours || (entries !== undefined && current !== undefined && holdsRegister(current, entries))) continue;
      out[name] = ours;
      vars[name] = { ours, user: current ?? null };
      continue;
    }
    const ours = values[name];
    if (current !== undefined && (current.includes(ours) || (entries !== undefined && holdsRegister(current, entries)))) continue;
    const { value, at } = withOurs(name, current, ours);
    out[name] = value;
    vars[name] = { ours, at, unset: current === undefined };
  }
  if (Object.keys(vars).length > 0) out[MARKER] = JSON.stringify({ v: VERSION, vars });
  return out;
}

/** `value` of a carrier with ours (`mark`: the marker's entry) taken out; undefined when the user had not set it and nothing is left. */
function withoutOurs(name, value, mark) {
  if (value === undefined) return undefined;
  if (name === 'BUN_INSPECT_PRELOAD') return value === mark.ours ? mark.user ?? undefined : value;
  const { ours, at } = mark;
  const after = at + ours.length;
  let rest;
  if (Number.isInteger(at) && at >= 0 && value.slice(at, after) === ours && after === value.length && (at === 0 || value[at - 1] === ' ')) {
    rest = at === 0 ? '' : value.slice(0, at - 1); // appended
  } else if (Number.isInteger(at) && at >= 0 && value.slice(at, after) === ours && value[after] === ' ') {
    rest = value.slice(0, at) + value.slice(after + 1); // before the user's first --require
  } else {
    // Changed since: ours taken out where it now stands.
    const found = value.indexOf(ours);
    if (found < 0) return value;
    rest = (value.slice(0, found) + value.slice(found + ours.length)).replace(/\s+/g, ' ').trim();
  }
  return rest === '' && mark.unset === true ? undefined : rest;
}

/**
 * Take the fix's carriers out of `env` (changed in place: process.env), as
 * the user had them, and the marker with them. Returns the marker's vars
 * (what envWithMarked() puts back), or undefined when `env` has none.
 */
function takeFixOut(env) {
  const vars = markerOf(env);
  if (vars === undefined) return undefined;
  for (const name of CARRIERS) {
    if (vars[name] === undefined) continue;
    const left = withoutOurs(name, env[name], vars[name]);
    if (left === undefined) delete env[name];
    else env[name] = left;
  }
  delete env[MARKER];
  return vars;
}

/** `env` (a new object) with the carriers of `vars` (a marker's) put back: what a child that does MCP work gets. */
function envWithMarked(env, vars) {
  const names = CARRIERS.filter((name) => vars[name] !== undefined);
  const values = Object.fromEntries(names.map((name) => [name, vars[name].ours]));
  return envWithFix(env, names, values, { inspectPreload: values.BUN_INSPECT_PRELOAD });
}

/**
 * `env` (a new object) with the carriers of `vars` put back, for a thread a
 * host starts (a Worker): its marker says so, and the thread takes them out
 * of its own environment at start (threadOfHost()), whatever it loads.
 */
function envForThread(env, vars) {
  const out = envWithMarked(env, vars);
  out[MARKER] = JSON.stringify({ ...JSON.parse(out[MARKER]), thread: true });
  return out;
}

/** Whether `env` is that of a thread a host started with envForThread(). */
function threadOfHost(env) {
  try {
    return markerOf(env) !== undefined && JSON.parse(env[MARKER]).thread === true;
  } catch {
    return false;
  }
}

module.exports = { MARKER, CARRIERS, carrierValues, entriesOf, holdsRegister, markerOf, envWithFix, takeFixOut, envWithMarked, envForThread, threadOfHost };
