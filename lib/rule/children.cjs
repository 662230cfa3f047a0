'use strict';
// Which children of a process `run` reached get the fix: the per-child
// rule. Pure: the caller (lib/patch/children.cjs) says what is known of the
// child and of this process, and reads a child's file only when the rule
// asks (`facts`). docs/run.md "Which children get the fix" says the same in
// words.
//
// In a thread that has patched an SDK class, the fix's variables are out of
// the environment (lib/rule/marker.cjs), and a child gets them back only
// when it does MCP work:
//   - SERVER: started while a patched Protocol starts its transport (the
//     MCP server of a transport whose class was not patched before it
//     started: a host's own wrapper of the SDK's, a copy in bytecode);
//   - RELAUNCH: this host started again (the same executable; for a runtime,
//     the same runtime and main script; a process with no main script, as
//     `node -e`, relaunches nothing), as Qwen Code and Gemini CLI do;
//   - SDK_SCRIPT: a runtime (Node, Bun) started directly on a script that
//     holds an SDK (lib/discover/program.cjs: a bundle, as Qwen Code's cli.js
//     started by an app on @qwen-code/sdk, or one that imports the SDK), or
//     such a script started by its #! line; a test runner runs no script;
//   - SDK_EXECUTABLE: a Bun-compiled executable with a way in whose embedded
//     modules hold SDK classes (Claude Code started by an Agent SDK app);
//   - STEP: a script (started by its #! line) holding no SDK that starts a
//     compiled executable holding one, beside it or in its package's
//     platform package: a package's bin launcher (Kilo's bin/kilo, which
//     starts bin/.kilo or @kilocode/cli-linux-x64's bin/kilo), which passes
//     the fix on and adds what that executable's Bun reads.
// The servers a patched stdio transport starts get them through the
// transport itself (lib/patch/fix-env.cjs). Every other child gets the
// environment it was given: the user's own.
//
// Before a thread has patched anything (a launcher: a bin launcher, an app
// whose SDK starts its host), the variables are still in the environment.
// A child is decided by the same rows but SERVER and RELAUNCH: one doing MCP
// work by what it is gets them (for an SDK_EXECUTABLE, with the carriers its
// Bun reads added: `opencode serve` reads only BUN_INSPECT_PRELOAD); so does
//   - RUNNER: a program whose work is to start what the user names (npm,
//     npx, pnpm, yarn, nodemon, tsx: lib/discover/program.cjs's RUNNERS; Bun
//     on a package's bin or script, `bun x`, `bun run dev`).
// Every other child gets the user's own environment (the caller takes the
// variables out), but where the launcher is itself a runner, which passes
// them on to all it starts; a child that nothing reaches (BAIL_OUTS of
// lib/rule/ways-in.cjs) gets none of them, whoever starts it.

const path = require('node:path');
const { wayIn } = require('./ways-in.cjs');

/** A runtime's file name: Node's and Bun's (Windows' with .exe). */
const RUNTIME_NAME = /^(?:node|nodejs|bun)(?:\.exe)?$/i;
const BUN_NAME = /^bun(?:\.exe)?$/i;

/** Node's options that take their value as the next argument (`--require x`), of those a start names a script after. */
const NODE_VALUED = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--input-type', '--title', '--env-file', '--env-file-if-exists', '--inspect-port', '--debug-port', '--stack-size', '--max-old-space-size', '--watch-path', '--experimental-config-file', '--preload', '--cwd', '--config', '--tsconfig-override', '--define', '-d', '--port']);
/** Options after which a runtime runs no script of the command line's: code given inline, a REPL, a check, a test runner. */
const NO_SCRIPT = new Set(['-e', '--eval', '-p', '--print', '-i', '--interactive', '-c', '--check', '-v', '--version', '-h', '--help', '--test', '--run']);
/** Bun's subcommands that run no script of the command line's. */
const BUN_NO_SCRIPT = new Set(['test', 'x', 'install', 'i', 'add', 'remove', 'rm', 'update', 'build', 'init', 'create', 'link', 'unlink', 'pm', 'upgrade', 'repl', 'exec', 'outdated', 'publish', 'patch', 'audit', 'info']);

/**
 * The script a runtime started as `file args` runs, as given (relative to
 * its cwd), or undefined where it runs none of the command line's: code
 * given inline, a REPL, a test runner (node --test, bun test), a package
 * runner (bun x).
 */
function scriptOf(file, args) {
  const bun = BUN_NAME.test(path.basename(file));
  let first = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg !== 'string') return undefined;
    if (arg === '--') return typeof args[i + 1] === 'string' ? args[i + 1] : undefined;
    if (arg.startsWith('-') && arg !== '-') {
      const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
      if (NO_SCRIPT.has(name)) return undefined;
      if (!arg.includes('=') && NODE_VALUED.has(name)) i++;
      continue;
    }
    if (arg === '-') return undefined; // a script on stdin
    if (bun && first && arg === 'run') {
      first = false;
      continue;
    }
    if (bun && first && BUN_NO_SCRIPT.has(arg)) return undefined;
    return arg;
  }
  return undefined;
}

/**
 * What `child` gets. child: { file (its executable, a real path), args (after
 * argv0), cwd, byTransport (started while a patched Protocol starts its transport) }; self: { file (this process's executable, a real path),
 * scripts (a Set of the main script's paths, resolved and real; empty for a
 * compiled executable and for a process with no main script), compiled (this process is a compiled executable), spacedPath (register's path holds white space) };
 * fixed: whether this thread has patched an SDK class; facts: {
 * compiled(file) (lib/discover/compiled.cjs's compiledKindOf()),
 * holdsSdk(file) (a Bun-compiled executable's embedded modules),
 * scriptHoldsSdk(file) (a script and what it imports: lib/discover/program.cjs),
 * launchesSdkExecutable(file) (a compiled executable holding an SDK beside
 * it or in its package's platform package: a package's bin launcher),
 * isRunner(file) (a runner's script), isFile(file) } read only when asked.
 * Returns { fix: 'put-back' | 'take-out' | undefined (as given), reason, carriers (put-back) }.
 */
function childFix(child, self, fixed, facts) {
  if (fixed && child.byTransport === true) return { fix: 'put-back', reason: 'SERVER', carriers: undefined };
  if (child.file === undefined) return { fix: undefined };
  if (fixed && child.file === self.file && (self.compiled === true || child.args.some((arg) => !arg.startsWith('-') && self.scripts.has(path.resolve(child.cwd, arg))))) {
    return { fix: 'put-back', reason: 'RELAUNCH', carriers: undefined };
  }
  const runtime = (child.file === self.file && self.compiled !== true) || RUNTIME_NAME.test(path.basename(child.file));
  if (runtime) {
    const script = scriptOf(child.file, child.args);
    const at = script === undefined ? undefined : path.resolve(child.cwd, script);
    if (at !== undefined && facts.scriptHoldsSdk(at) === true) return { fix: 'put-back', reason: 'SDK_SCRIPT', carriers: undefined };
    if (!fixed && at !== undefined && facts.isRunner(at) === true) return { fix: 'put-back', reason: 'RUNNER', carriers: undefined };
    // A launcher's Bun on what is no file: a package's bin or script (`bun x`, `bun run dev`).
    if (!fixed && BUN_NAME.test(path.basename(child.file)) && (at === undefined ? /^(x|run)$/.test(child.args.find((arg) => !arg.startsWith('-')) ?? '') : !facts.isFile(at))) {
      return { fix: 'put-back', reason: 'RUNNER', carriers: undefined };
    }
    return { fix: undefined };
  }
  const compiled = facts.compiled(child.file);
  if (compiled === undefined) {
    // A script started by its #! line: one that holds an SDK, a launcher of a compiled executable that does (Kilo's bin/kilo), or, from a launcher, a runner.
    if (facts.scriptHoldsSdk(child.file) === true) return { fix: 'put-back', reason: 'SDK_SCRIPT', carriers: undefined };
    if (facts.launchesSdkExecutable(child.file) === true) return { fix: 'put-back', reason: 'STEP', carriers: undefined };
    if (!fixed && facts.isRunner(child.file) === true) return { fix: 'put-back', reason: 'RUNNER', carriers: undefined };
    return { fix: undefined };
  }
  if (compiled?.kind !== 'bun' && compiled?.kind !== 'node-sea') return { fix: undefined };
  const way = wayIn({ compiled, spacedPath: self.spacedPath === true });
  if (way.bailOut !== undefined) return { fix: 'take-out', reason: way.bailOut };
  if (facts.holdsSdk(child.file) === true) return { fix: 'put-back', reason: 'SDK_EXECUTABLE', carriers: way.carriers };
  return { fix: undefined };
}

module.exports = { childFix };
