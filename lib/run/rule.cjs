'use strict';
// Which process gets the fix, and through what: the one table that the
// launcher (lib/run/plan.cjs), doctor, and the process register runs in
// (lib/patch/fix-env.cjs) read. Pure: it takes what is known of a command
// (its executable's kind from lib/discover/compiled.cjs, the runtime its
// name or `#!` line names) and returns what carries the fix to it, or the
// named reason nothing does. It also owns the environment's side of the
// rule: the variables `run` sets, the marker that says which values are
// ours, and taking them out (for the commands a host runs for its user)
// and putting them back (for the MCP servers it starts).
//
// What each runtime line accepts decides the carriers: every Node line takes
// `--require=<file>` in NODE_OPTIONS (Node 16 refuses `--import` there);
// every Bun line that reads BUN_OPTIONS takes `--preload=<file>` (1.2.23
// and 1.3.0 take `--preload <file>` as the script and drop the real one).
// A line register cannot run on is left stock by register itself
// (lib/register/gate.cjs), so the carriers may reach it.

/** The variable that marks a process started under `run`: which values of the carriers are ours (JSON). */
const MARKER = 'MCP_ORDERED_DISPATCH_RUN';
/** The variables that carry the fix, in the order they are set. */
const CARRIERS = Object.freeze(['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD']);

/** The named bail-outs: why nothing at run time reaches a command. */
const BAIL_OUTS = Object.freeze({
  NODE_SEA: 'a Node single executable application runs its main script past every module hook',
  NO_WAY_IN: 'its Bun reads neither BUN_OPTIONS nor BUN_INSPECT_PRELOAD for it',
  DENO_SUBCOMMAND: 'this Deno subcommand runs no module of its own',
});

/** What a host whose Bun reads no preload can ask its developers for: every layout of that line and later reads one. */
const BUN_NEWER = 'Bun 1.3.13 or later';
/**
 * Which ways in a Bun-compiled executable's Bun honours, by the layout of
 * its module graph (lib/discover/compiled.cjs's `layout`: the lines below
 * each write a layout of their own) and its built-in arguments
 * (`--compile-exec-argv`): none, some (`args`), or some ending with `--`
 * (`dashdash`). Measured by building an executable with each line and
 * starting it with each variable set (the preload ran or not): 1.1.38;
 * 1.2.23 and 1.3.0; 1.3.14, 1.4.0 to 1.4.5 (opencode's 1.3.14, cline's
 * 1.3.13 and Claude Code's 1.4.6 write the same layout as the last).
 * Newest first; a layout not listed is taken as the newest's.
 */
const BUN_LAYOUTS = Object.freeze([
  {
    lines: BUN_NEWER,
    matches: (layout) => layout.moduleBytes >= 52,
    honours: { none: ['BUN_OPTIONS'], args: ['BUN_OPTIONS', 'BUN_INSPECT_PRELOAD'], dashdash: ['BUN_INSPECT_PRELOAD'] },
  },
  {
    lines: 'Bun 1.2 to 1.3.x before 1.3.13',
    matches: (layout) => layout.offsetsBytes >= 32,
    honours: { none: [], args: ['BUN_OPTIONS', 'BUN_INSPECT_PRELOAD'], dashdash: ['BUN_INSPECT_PRELOAD'] },
  },
  {
    lines: 'Bun 1.1 or older',
    matches: () => true,
    honours: { none: [], args: [], dashdash: [] },
  },
]);

/**
 * What a Bun-compiled executable's Bun honours (`compiled`: compiledKindOf()'s
 * result): { lines (its Bun, in words), honours: the carriers it reads a
 * preload from, of BUN_OPTIONS and BUN_INSPECT_PRELOAD, argvEnd: 'none' | 'args' | 'dashdash' }.
 */
function bunHonours(compiled) {
  const argvEnd = compiled.blocksBunOptions === true ? 'dashdash' : (compiled.execArgv ?? '').trim() === '' ? 'none' : 'args';
  const row = compiled.layout === undefined ? BUN_LAYOUTS[0] : BUN_LAYOUTS.find((r) => r.matches(compiled.layout));
  return { lines: row.lines, honours: row.honours[argvEnd], argvEnd };
}

/** A value for a space-separated option list (NODE_OPTIONS' rules): quoted when it holds a space, a quote or a backslash. */
function optionValue(text) {
  return /[\s"\\]/.test(text) ? `"${text.replace(/[\\"]/g, '\\$&')}"` : text;
}

/**
 * What carries the fix to a command, from what is known of it:
 *   compiled: lib/discover/compiled.cjs's compiledKindOf() of its file, or undefined;
 *   runtime: 'node' | 'bun' | 'deno' | undefined, from its name or `#!` line;
 *   spacedPath: whether register's file path holds white space (BUN_OPTIONS splits on it).
 * Returns { kind, carriers: [variables], denoPreload: boolean, bailOut: BAIL_OUTS key | undefined }.
 * Every command but a bail-out gets NODE_OPTIONS and BUN_OPTIONS, so the
 * Node and Bun processes it starts (its MCP servers) can get the fix too.
 */
function wayIn({ compiled, runtime, spacedPath = false }) {
  if (compiled?.kind === 'node-sea') return { kind: 'node-sea', carriers: [], denoPreload: false, bailOut: 'NODE_SEA' };
  const carriers = spacedPath ? ['NODE_OPTIONS'] : ['NODE_OPTIONS', 'BUN_OPTIONS'];
  let kind = compiled?.kind ?? runtime ?? 'other';
  if (compiled?.kind === 'bun') {
    // BUN_OPTIONS splits on white space; BUN_INSPECT_PRELOAD takes a path with spaces.
    const { honours } = bunHonours(compiled);
    const options = honours.includes('BUN_OPTIONS') && !spacedPath;
    const inspect = honours.includes('BUN_INSPECT_PRELOAD');
    if (!options && !inspect) return { kind: 'bun', carriers: [], denoPreload: false, bailOut: 'NO_WAY_IN' };
    if (!options || spacedPath) carriers.push('BUN_INSPECT_PRELOAD');
    if (!options) kind = 'bun-inspect-preload';
    return { kind, carriers, denoPreload: false, bailOut: undefined };
  }
  if (spacedPath) carriers.push('BUN_INSPECT_PRELOAD');
  if (compiled?.kind === 'native' || compiled === undefined) kind = runtime ?? kind;
  return { kind, carriers, denoPreload: runtime === 'deno' && (compiled === undefined || compiled.kind === 'native'), bailOut: undefined };
}

/** Its built-in arguments, in words. */
const ARGV_WORDS = { none: 'it has no built-in arguments', args: 'it has built-in arguments', dashdash: 'its built-in arguments end with `--`' };

/**
 * How the fix reaches a Bun-compiled executable, in words (doctor's row, and
 * why not in `run`'s one line): { reached, words }.
 */
function bunWayInWords(compiled) {
  const { lines, argvEnd } = bunHonours(compiled);
  const way = wayIn({ compiled });
  const why = `built with ${lines} (by its module graph's layout) and ${ARGV_WORDS[argvEnd]}`;
  if (way.bailOut === 'NO_WAY_IN') return { reached: false, words: `${why}: ${BAIL_OUTS.NO_WAY_IN}` };
  const through = way.kind === 'bun-inspect-preload' ? 'BUN_INSPECT_PRELOAD' : 'BUN_OPTIONS';
  return { reached: true, words: `${why}: \`run\` preloads register through ${through}` };
}

/**
 * What each carrier gets added to (NODE_OPTIONS, BUN_OPTIONS: withAddition())
 * or set to (BUN_INSPECT_PRELOAD), for register's entries { cjs, mjs } (absolute paths).
 */
function carrierValues(entries) {
  return {
    NODE_OPTIONS: `--require=${optionValue(entries.cjs)}`,
    BUN_OPTIONS: `--preload=${entries.mjs}`,
    BUN_INSPECT_PRELOAD: entries.mjs,
  };
}

/** Whether the option list `options` holds register already (ours, or the user's own `mcp-ordered-dispatch/register`). */
function holdsRegister(options, entries) {
  return options.includes(entries.cjs) || options.includes(entries.mjs) || options.includes(optionValue(entries.cjs)) || options.includes('mcp-ordered-dispatch/register');
}

/** `options` with `addition` appended (space-separated). */
function appended(options, addition) {
  return options === undefined || options.trim() === '' ? addition : `${options} ${addition}`;
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
 * `options` of carrier `name` with `addition`: appended, except in a
 * NODE_OPTIONS that holds a `--require` of the user's, where it goes just
 * before it. Register is then the first preload, on the loader thread too
 * that its module.register() starts on Node 20.19-22.14, where Node runs
 * every `--require` again; there it keeps the user's from running a second
 * time (lib/register/gate.cjs).
 */
function withAddition(name, options, addition) {
  const at = name === 'NODE_OPTIONS' && options !== undefined ? firstRequireAt(options) : -1;
  return at < 0 ? appended(options, addition) : `${options.slice(0, at)}${addition} ${options.slice(at)}`;
}

/** The marker of `env`: { [variable]: { user: string | null, ours: string } }, or undefined (none, or not ours). */
function markerOf(env) {
  const text = env[MARKER];
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    const parsed = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && parsed.v === 1 && parsed.vars !== null && typeof parsed.vars === 'object' ? parsed.vars : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `env` with the fix: each of `carriers` given `values[carrier]` (added to
 * an option list by withAddition(), or as BUN_INSPECT_PRELOAD's one file;
 * `inspectPreload` overrides that file, for a chained preload), unless it holds register
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
      vars[name] = { user: current ?? null, ours };
      continue;
    }
    if (current !== undefined && (current.includes(values[name]) || (entries !== undefined && holdsRegister(current, entries)))) continue;
    out[name] = withAddition(name, current, values[name]);
    vars[name] = { user: current ?? null, ours: values[name] };
  }
  if (Object.keys(vars).length > 0) out[MARKER] = JSON.stringify({ v: 1, vars });
  return out;
}

/** `value` of a carrier with `ours` taken out; undefined when nothing of the user's is left and they had not set it. */
function withoutOurs(name, value, { user, ours }) {
  if (value === undefined) return undefined;
  if (name === 'BUN_INSPECT_PRELOAD') return value === ours ? user ?? undefined : value;
  if (value === withAddition(name, user ?? undefined, ours)) return user ?? undefined;
  const at = value.indexOf(ours);
  if (at < 0) return value;
  const rest = (value.slice(0, at) + value.slice(at + ours.length)).replace(/\s+/g, ' ').trim();
  return rest === '' && user === null ? undefined : rest;
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

/** `env` (a new object) with the carriers of `vars` (a marker's) put back: what a spawned MCP server gets. */
function envWithMarked(env, vars) {
  const names = CARRIERS.filter((name) => vars[name] !== undefined);
  const values = Object.fromEntries(names.map((name) => [name, vars[name].ours]));
  return envWithFix(env, names, values, { inspectPreload: values.BUN_INSPECT_PRELOAD });
}

module.exports = { MARKER, CARRIERS, BAIL_OUTS, BUN_LAYOUTS, BUN_NEWER, bunHonours, wayIn, bunWayInWords, carrierValues, holdsRegister, envWithFix, takeFixOut, envWithMarked, markerOf, optionValue };
