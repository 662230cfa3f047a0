'use strict';
// Which process gets the fix, and through what: the one table that `run`
// (lib/run/plan.cjs), doctor, and every process register runs in (the
// per-child rule, lib/rule/children.cjs) read. Pure: it takes what is known
// of a command (its executable's kind from lib/discover/compiled.cjs, the
// runtime its name or `#!` line names) and returns the variables that carry
// the fix to it (lib/rule/marker.cjs writes them), or the named reason
// nothing does.
//
// What each runtime line accepts decides the carriers: every Node line takes
// `--require=<file>` in NODE_OPTIONS (Node 16 refuses `--import` there);
// every Bun line that reads BUN_OPTIONS takes `--preload=<file>` (1.2.23
// and 1.3.0 take `--preload <file>` as the script and drop the real one).
// A line register cannot run on is left stock by register itself
// (lib/register/gate.cjs), so the carriers may reach it.

/** The named bail-outs: why nothing at run time reaches a command. */
const BAIL_OUTS = Object.freeze({
  NODE_SEA: 'a Node single executable application runs its main script past every module hook',
  NO_WAY_IN: 'its Bun reads neither BUN_OPTIONS nor BUN_INSPECT_PRELOAD for it',
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
 * 1.2.23 and 1.3.0; 1.3.14, 1.4.0 to 1.4.5. Newest first; a layout not
 * listed is taken as the newest's.
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

/**
 * What carries the fix to a command, from what is known of it:
 *   compiled: lib/discover/compiled.cjs's compiledKindOf() of its file, or undefined;
 *   runtime: 'node' | 'bun' | 'deno' | undefined, from its name or `#!` line;
 *   spacedPath: whether register's file path holds white space (BUN_OPTIONS splits on it).
 * Returns { carriers: [variables], denoPreload: boolean, bailOut: BAIL_OUTS key | undefined }.
 * Every command but a bail-out gets NODE_OPTIONS and BUN_OPTIONS, so the
 * Node and Bun processes it starts (its MCP servers) can get the fix too.
 */
function wayIn({ compiled, runtime, spacedPath = false }) {
  if (compiled?.kind === 'node-sea') return { carriers: [], denoPreload: false, bailOut: 'NODE_SEA' };
  const carriers = spacedPath ? ['NODE_OPTIONS'] : ['NODE_OPTIONS', 'BUN_OPTIONS'];
  if (compiled?.kind === 'bun') {
    // BUN_OPTIONS splits on white space; BUN_INSPECT_PRELOAD takes a path with spaces.
    const { honours } = bunHonours(compiled);
    const options = honours.includes('BUN_OPTIONS') && !spacedPath;
    const inspect = honours.includes('BUN_INSPECT_PRELOAD');
    if (!options && !inspect) return { carriers: [], denoPreload: false, bailOut: 'NO_WAY_IN' };
    if (!options || spacedPath) carriers.push('BUN_INSPECT_PRELOAD');
    return { carriers, denoPreload: false, bailOut: undefined };
  }
  if (spacedPath) carriers.push('BUN_INSPECT_PRELOAD');
  return { carriers, denoPreload: runtime === 'deno' && (compiled === undefined || compiled.kind === 'native'), bailOut: undefined };
}

/** Its built-in arguments, in words. */
const ARGV_WORDS = { none: 'it has no built-in arguments', args: 'it has built-in arguments', dashdash: 'its built-in arguments end with `--`' };

/**
 * How the fix reaches a Bun-compiled executable, in words (doctor's row, and
 * why not in `run`'s one line): { reached, words }.
 */
function bunWayInWords(compiled) {
  const { lines, argvEnd, honours } = bunHonours(compiled);
  const why = `built with ${lines} (by its module graph's layout) and ${ARGV_WORDS[argvEnd]}`;
  if (wayIn({ compiled }).bailOut === 'NO_WAY_IN') return { reached: false, words: `${why}: ${BAIL_OUTS.NO_WAY_IN}` };
  const through = honours.includes('BUN_OPTIONS') ? 'BUN_OPTIONS' : 'BUN_INSPECT_PRELOAD';
  return { reached: true, words: `${why}: \`run\` preloads register through ${through}` };
}

module.exports = { BUN_NEWER, wayIn, bunWayInWords };
