'use strict';
// `mcp-ordered-dispatch run -- COMMAND [ARGS...]`: run COMMAND with the fix
// applied, whatever COMMAND is, and pass everything else through untouched
// (stdio inherited, so the TTY too; the exit code; the signal it died of).
//
// What the command gets is lib/run/plan.cjs's plan (by lib/rule/ways-in.cjs's
// table); what the host does with it, lib/patch/fix-env.cjs's header says.

const fs = require('node:fs');
const { plan, isBatchFile } = require('./plan.cjs');
const { canStart } = require('../native/can-start.cjs');

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// Signals Node ignores: an ignored disposition survives execve(), a caught one is reset to the default.
const IGNORED_BY_NODE = ['SIGPIPE', 'SIGXFSZ'];
// Node 22 and 24 end the process when process.execve() fails (a file held open for writing, ETXTBSY, which no check
// can foresee); from Node 26 it throws.
const EXECVE_THROWS = Number(process.versions.node.split('.')[0]) >= 26;
/** `run --plan-only`'s exit code when it wrote no plan file (the native launcher then hands the start to `run`). */
const NO_PLAN_WRITTEN = 3;
/** What a failed start's cause is called, as a shell says it (Node 20 has no util.getSystemErrorMessage()). */
const CAUSES = { EACCES: 'Permission denied', ETXTBSY: 'Text file busy', ENOEXEC: 'Exec format error', ENOENT: 'No such file or directory' };

/** One line on stderr, written to the file descriptor (no stream is made: nothing about fd 2 changes before the command gets it). */
function say(line) {
  fs.writeSync(2, `mcp-ordered-dispatch run: ${line}\n`);
}

/**
 * Where the user's NODE_OPTIONS opened this Node's inspector: a typed `run`,
 * which npm's shim starts as `node` with nothing of ours on its command
 * line, so Node opened it (and said so on stderr, or waits for a debugger,
 * for --inspect-brk and --inspect-wait) before any of run's code. It is shut
 * at once, so that the host gets the port, and one line names the way out.
 * The native launcher (setup's function) starts a Node of ours with the
 * flags that keep it shut (launcher-contract.json's inspectorOff): nothing to do.
 */
function shutOwnInspector(env) {
  const options = env.NODE_OPTIONS;
  if (typeof options !== 'string' || !options.includes('--inspect') || process.execArgv.some((arg) => arg.startsWith('--inspect'))) return;
  const { inspectorOff } = require('./launcher-contract.json');
  const flag = options.split(/\s+/).map((token) => token.split('=')[0]).find((name) => Object.hasOwn(inspectorOff, name));
  const inspector = require('node:inspector');
  if (flag === undefined || inspector.url() === undefined) return;
  inspector.close();
  say(`NODE_OPTIONS holds ${flag}, so this Node of run's opened the inspector before any of run's code (Node's lines above); ` +
    'it is closed and the host gets its port. For the host alone to open it, start the host through setup\'s function ' +
    `(mcp-ordered-dispatch setup HOST), or, for a Node host, put the flag on its own command line (mcp-ordered-dispatch run -- node ${flag} app.js)`);
}

/**
 * Run `argv` ([--] COMMAND ARGS...) as described above. Where Node has
 * process.execve() (22.15+, 24, 26; not on Windows) this process becomes the
 * command: its exit code, signals, stdio and TTY are the command's own, with
 * nothing in between. Elsewhere the command is a child with stdio
 * inherited; resolves with what `run` should exit with: { code } or
 * { signal }. `planFile` ({ file, seen, only }): the native launcher's request
 * for the plan file (lib/run/plan-file.cjs); with `only`, the plan is all it
 * asks for, and nothing is started.
 */
function run(argv, { env = process.env, cwd = process.cwd(), exec = typeof process.execve === 'function' && process.platform !== 'win32', planFile } = {}) {
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  if (args.length === 0) throw new Error('run needs a command: mcp-ordered-dispatch run -- COMMAND [ARGS...]');
  if (planFile === undefined) shutOwnInspector(env);
  const planned = plan(args[0], args.slice(1), { env, cwd });
  const { command, commandArgs, childEnv, notice, file, compiled } = planned;
  if (planFile !== undefined) {
    const options = { seen: planFile.seen, env, command: args[0], args: args.slice(1), cwd };
    const written = planFile.seen !== undefined && planFile.file !== undefined && require('./plan-file.cjs').writePlanFile(planFile.file, planned, options, say);
    if (planFile.only) return Promise.resolve({ code: written ? 0 : NO_PLAN_WRITTEN });
  }
  if (notice !== undefined) say(notice);
  if (exec && cwd === process.cwd() && file !== undefined && canStart(file, { byExec: true, native: compiled !== undefined })) {
    const error = execInPlace(file, [command, ...commandArgs], childEnv);
    if (error !== undefined) return Promise.resolve(cannotStart(args[0], file, error));
  }
  return new Promise((resolve) => {
    let child;
    try {
      // Required here: loading node:child_process costs `run` a few ms, and execve() needs none of it.
      child = require('node:child_process').spawn(...spawnArgs(command, commandArgs, file), { stdio: 'inherit', env: childEnv, cwd, windowsVerbatimArguments: isBatchFile(file) });
    } catch (error) {
      // Some failures (ETXTBSY) are thrown, not emitted.
      resolve(cannotStart(args[0], file, error));
      return;
    }
    // A terminal's Ctrl-C and hang-up go to its whole foreground process
    // group, the child included: forwarded then, they would arrive twice.
    // With a terminal on stdin they are left to the terminal; SIGTERM (and
    // anything sent to `run` alone) is forwarded.
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
    child.once('error', (error) => done(cannotStart(args[0], file, error)));
    child.once('exit', (code, signal) => done(signal ? { signal } : { code }));
  });
}

/**
 * Become `file` with `argv` and `env` (execve), or return why it could not
 * start; undefined where it is left to a child instead. Where a failed
 * process.execve() would end the process (Node 22, 24), the native launcher
 * becomes it (`--exec`), and ends as a shell does when it cannot.
 */
function execInPlace(file, argv, env) {
  for (const signal of IGNORED_BY_NODE) process.on(signal, () => {});
  if (EXECVE_THROWS) {
    try {
      process.execve(file, argv, env);
    } catch (error) {
      return error;
    }
  }
  const native = require('../native/launcher.cjs').nativeLauncher();
  if (native === undefined) return undefined;
  process.execve(native, [native, `--exec=${file}`, '--', ...argv], env);
  return undefined;
}

/**
 * The one place a command that could not be started ends `run`, as a shell
 * ends: one line naming the cause, and 127 when there is no such file (not
 * found on PATH: `file` undefined), else 126.
 */
function cannotStart(name, file, error) {
  const missing = error.code === 'ENOENT';
  const cause = missing && file === undefined ? 'command not found' : CAUSES[error.code] ?? require('node:util').getSystemErrorMessage?.(error.errno) ?? error.code ?? String(error);
  say(`${name}: ${cause}`);
  return { code: missing ? 127 : 126 };
}

/** spawn()'s command and arguments: a batch file through cmd.exe, each argument quoted as cmd.exe reads it. */
function spawnArgs(command, commandArgs, file) {
  if (!isBatchFile(file)) return [command, commandArgs];
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
