'use strict';
// `mcp-ordered-dispatch run -- COMMAND [ARGS...]`: run COMMAND with the fix
// applied, whatever COMMAND is, and pass everything else through untouched
// (stdio inherited, so the TTY too; the exit code; the signal it died of).
//
// What reaches what (lib/run/plan.cjs decides it from the command's file):
//   - every Node process started: `--import <register.mjs>` appended to
//     NODE_OPTIONS (a Node script or npm bin, `node` itself, and the Node
//     processes they start);
//   - every Bun process started, a Bun-compiled executable included:
//     `--preload <register.mjs>` appended to BUN_OPTIONS; a Bun-compiled
//     executable whose built-in arguments end with `--` ignores BUN_OPTIONS,
//     and gets it through BUN_INSPECT_PRELOAD instead;
//   - `deno run` (and `deno serve`, `deno test`, `deno <file>`): `--preload`
//     inserted into its arguments, with the permissions register needs;
//   - a Node single executable application: nothing at run time reaches the
//     SDK inside it (its main script passes no hook); one line on stderr says
//     so and names what would, and it runs unchanged.
// A preload the user already set stays, before ours. Each variable takes
// register once: a `run` inside `run` adds nothing.

const fs = require('node:fs');
const { spawn } = require('node:child_process');
const { plan, resolveCommand, startsByExec } = require('./plan.cjs');

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// Signals Node ignores: an ignored disposition survives execve(), a caught one is reset to the default.
const IGNORED_BY_NODE = ['SIGPIPE', 'SIGXFSZ'];

/** One line on stderr, written to the file descriptor (no stream is made: nothing about fd 2 changes before the command gets it). */
function say(line) {
  fs.writeSync(2, `mcp-ordered-dispatch run: ${line}\n`);
}

/**
 * Run `argv` ([--] COMMAND ARGS...) as described above. Where Node has
 * process.execve() (22.15+, 24, 26; not on Windows) this process becomes the
 * command: its exit code, signals, stdio and TTY are the command's own, with
 * nothing in between. Elsewhere the command is a child with stdio
 * inherited; resolves with what the launcher should exit with: { code } or
 * { signal }.
 */
function run(argv, { env = process.env, cwd = process.cwd(), exec = typeof process.execve === 'function' && process.platform !== 'win32' } = {}) {
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  if (args.length === 0) throw new Error('run needs a command: mcp-ordered-dispatch run -- COMMAND [ARGS...]');
  const { command, commandArgs, childEnv, notice } = plan(args[0], args.slice(1), { env, cwd });
  if (notice !== undefined) say(notice);
  const file = exec && cwd === process.cwd() ? resolveCommand(command, childEnv, cwd) : undefined;
  if (file !== undefined && startsByExec(file)) {
    for (const signal of IGNORED_BY_NODE) process.on(signal, () => {});
    try {
      process.execve(file, [command, ...commandArgs], childEnv);
    } catch {
      // Not replaced: started as a child below, which reports why.
    }
  }
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: 'inherit', env: childEnv, cwd });
    // A terminal's Ctrl-C and hang-up go to its whole foreground process
    // group, the child included: forwarded then, they would arrive twice.
    // With a terminal on stdin they are left to the terminal; SIGTERM (and
    // anything sent to the launcher alone) is forwarded.
    const fromTerminal = require('node:tty').isatty(0);
    const handlers = new Map();
    for (const signal of FORWARDED) {
      const handler = () => {
        if (signal === 'SIGTERM' || !fromTerminal) child.kill(signal);
      };
      handlers.set(signal, handler);
      process.on(signal, handler);
    }
    const done = (result) => {
      for (const [signal, handler] of handlers) process.removeListener(signal, handler);
      resolve(result);
    };
    child.once('error', (error) => {
      // Not started (ENOENT, EACCES): as a shell says it, with its exit codes.
      const code = error.code === 'ENOENT' ? 127 : 126;
      say(`${args[0]}: ${error.code === 'ENOENT' ? 'command not found' : error.message}`);
      done({ code });
    });
    child.once('exit', (code, signal) => done(signal ? { signal } : { code }));
  });
}

/** End this process as the child ended: the same exit code, or death by the same signal. */
function exitLike({ code, signal }) {
  if (signal === undefined) {
    process.exitCode = code;
    return;
  }
  // Death by the same signal; a signal Node ignores by default (SIGPIPE)
  // ends it with 128 + the signal's number instead.
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + (require('node:os').constants.signals[signal] ?? 0)), 100);
}

module.exports = { run, exitLike };
