'use strict';
// `mcp-ordered-dispatch run -- COMMAND [ARGS...]`: run COMMAND with the fix
// applied, whatever COMMAND is, and pass everything else through untouched
// (stdio inherited, so the TTY too; the exit code; the signal it died of).
//
// What reaches what is lib/rule/ways-in.cjs's table, which lib/run/plan.cjs
// applies to the command's file: every Node and Bun process started gets
// register through NODE_OPTIONS and BUN_OPTIONS (a Bun-compiled executable
// that reads no BUN_OPTIONS, through BUN_INSPECT_PRELOAD), `deno run` through
// its arguments, and a Node single executable application nothing (one line
// on stderr says so). The host takes them out of its own environment once
// register has patched its SDK, and puts them back only for the MCP servers
// it starts (lib/patch/fix-env.cjs): the commands it runs for its user get
// the user's environment. A preload the user already set stays, before ours.

const fs = require('node:fs');
const { plan, startsByExec } = require('./plan.cjs');

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
 * { signal }. `record` ({ file, seen }): the native launcher's request to
 * record the plan (lib/run/record.cjs).
 */
function run(argv, { env = process.env, cwd = process.cwd(), exec = typeof process.execve === 'function' && process.platform !== 'win32', record } = {}) {
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  if (args.length === 0) throw new Error('run needs a command: mcp-ordered-dispatch run -- COMMAND [ARGS...]');
  const planned = plan(args[0], args.slice(1), { env, cwd });
  const { command, commandArgs, childEnv, notice, file, compiled } = planned;
  // For the native launcher that handed this start over: the plan, for its next starts.
  if (record !== undefined) require('./record.cjs').recordPlan(record.file, planned, { seen: record.seen, env, command: args[0], args: args.slice(1) }, say);
  if (notice !== undefined) say(notice);
  if (exec && cwd === process.cwd() && file !== undefined && startsByExec(file, compiled)) {
    for (const signal of IGNORED_BY_NODE) process.on(signal, () => {});
    try {
      process.execve(file, [command, ...commandArgs], childEnv);
    } catch {
      // Not replaced: started as a child below, which reports why.
    }
  }
  return new Promise((resolve) => {
    // Required here: loading node:child_process costs the launcher a few ms, and execve() needs none of it.
    const child = require('node:child_process').spawn(...spawnArgs(command, commandArgs, file), { stdio: 'inherit', env: childEnv, cwd, windowsVerbatimArguments: batchFile(file) });
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

/** Whether `file` is a Windows batch file (one that is not npm's shim, which plan() reads through), which only cmd.exe runs. */
function batchFile(file) {
  return process.platform === 'win32' && file !== undefined && /\.(cmd|bat)$/i.test(file);
}

/** spawn()'s command and arguments: a batch file through cmd.exe, each argument quoted as cmd.exe reads it. */
function spawnArgs(command, commandArgs, file) {
  if (!batchFile(file)) return [command, commandArgs];
  const quoted = [file, ...commandArgs].map((arg) => `"${String(arg).replace(/"/g, '""')}"`).join(' ');
  return [process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${quoted}"`]];
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
