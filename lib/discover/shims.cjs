'use strict';
// npm's command shims on Windows, read through to what they start. `npm
// install -g` puts `NAME.cmd` and `NAME.ps1` on PATH (written by npm's
// cmd-shim package), and Node's spawn() without a shell runs neither (it
// refuses .cmd and .bat files outright). Each shim starts one target: a
// script through `node` (the shim's own node.exe beside it, else the one on
// PATH), or a native executable directly; `run` starts that target itself,
// as the shim would have, so that it can look at it and pass signals and
// exit codes straight through; the per-child rule decides a `cmd /c` of one
// by its target (lib/patch/child-files.cjs); `record` starts a server's
// target with no shell to read its arguments again. Only the shapes
// cmd-shim writes are read; anything else is left to the caller.

const fs = require('node:fs');
const path = require('node:path');
const { resolveCommand } = require('../native/can-start.cjs');

/** The extensions of the shims read here, as PATHEXT finds them. */
const SHIM_EXTENSIONS = new Set(['.cmd', '.bat', '.ps1']);

// The line that starts the target: (a) through a program ("%_prog%" /
// "$basedir/node$exe" / "node$exe"), with its arguments, or (b) directly.
const CMD_LINE = /"%_prog%"\s+((?:[^"%\r\n]|"[^"%\r\n]*")*?)\s*"%dp0%\\([^"\r\n]+)"\s+%\*|^\s*"%dp0%\\([^"\r\n]+)"\s+%\*/m;
const PS1_LINE = /&\s+"(?:\$basedir\/)?node\$exe"\s+((?:[^"$\r\n]|"[^"$\r\n]*")*?)\s*"\$basedir\/([^"\r\n]+)"\s+\$args|&\s+"\$basedir\/([^"\r\n]+)"\s+\$args/;

/** The words of a shim's program arguments (double quotes group). */
function wordsOf(text) {
  return [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

/**
 * What the npm shim `file` starts: { program, args, target } (run `program
 * ...args` then the user's arguments; `target` is the file it starts), or
 * undefined when `file` is not a shim cmd-shim writes. `program` is the
 * node.exe beside the shim when there is one, else 'node' (found on PATH),
 * for a script; the target itself for a native executable.
 */
function shimTarget(file) {
  const ext = path.extname(file).toLowerCase();
  if (!SHIM_EXTENSIONS.has(ext)) return undefined;
  let text;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(8 * 1024);
      text = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const match = (ext === '.ps1' ? PS1_LINE : CMD_LINE).exec(text);
  if (match === null) return undefined;
  const dir = path.dirname(file);
  const viaProgram = match[2] !== undefined;
  const relative = (viaProgram ? match[2] : match[3]).split(/[\\/]/);
  const target = path.resolve(dir, ...relative);
  if (!viaProgram) return { program: target, args: [], target };
  const beside = path.join(dir, 'node.exe');
  return { program: fs.existsSync(beside) ? beside : 'node', args: [...wordsOf(match[1]), target], target };
}

/**
 * `command` resolved as a shell would, an npm shim on Windows read through:
 * { command, args (before the user's), file (what will run: undefined when
 * not found) }.
 */
function commandFound(command, env, cwd) {
  let file = resolveCommand(command, env, cwd);
  const shim = file === undefined ? undefined : shimTarget(file);
  if (shim === undefined) return { command, args: [], file };
  if (shim.program === shim.target) return { command: shim.target, args: [], file: shim.target };
  file = path.isAbsolute(shim.program) ? shim.program : resolveCommand(shim.program, env, cwd);
  return { command: shim.program, args: shim.args, file };
}

module.exports = { shimTarget, commandFound };
