'use strict';
// Whether a file can be started, on a platform, and a command found as a
// shell finds it: the one test and the one PATH resolver that finding a
// command (lib/run/plan.cjs; the per-child rule, lib/patch/children.cjs;
// doctor), choosing execve() over a child (lib/run/index.cjs), the plan file
// (lib/run/plan-file.cjs) and finding the native launcher (./launcher.cjs)
// use. The native launcher's own are can_start and resolve in
// crates/launcher/src/resolve.rs.

const fs = require('node:fs');
const path = require('node:path');

/** A script's `#!` line as its words (the interpreter first), or undefined. */
function shebangWordsOf(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(512);
    const text = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0)).toString('utf8');
    return text.startsWith('#!') ? text.slice(2).split(/\r?\n/)[0].trim().split(/\s+/) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Whether `file` can be started on `platform`: a regular file, and on Unix
 * one this user may execute. With `byExec`, whether execve() itself starts
 * it: a native executable (`native`: its kind is known), or a script whose
 * `#!` interpreter can start (a file with no `#!` line only a shell runs).
 */
function canStart(file, { platform = process.platform, byExec = false, native = false } = {}) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    if (!byExec || native) return true;
    const interpreter = shebangWordsOf(file)?.[0];
    return interpreter !== undefined && canStart(interpreter, { platform });
  } catch {
    return false;
  }
}

/**
 * `command` as a shell would find it on `platform`: a path as given, else the
 * first file of that name on PATH that can start. On Windows with PATHEXT's
 * extensions, and the name as it is only when it has an extension of its own
 * (as cmd.exe and PowerShell do: npm's extensionless `sh` shim beside
 * `NAME.cmd` is not run). The native launcher's is `resolve` in
 * crates/launcher/src/resolve.rs; test/run/resolver-cases.json holds the
 * cases both are tested against.
 */
function resolveCommand(command, env, cwd, platform = process.platform) {
  const windows = platform === 'win32';
  if (command.includes('/') || (windows && command.includes('\\'))) return path.resolve(cwd, command);
  const pathext = (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((e) => e !== '').map((e) => e.toLowerCase());
  const exts = !windows ? [''] : path.extname(command) === '' ? pathext : ['', ...pathext];
  for (const dir of (env.PATH ?? env.Path ?? '').split(windows ? ';' : ':')) {
    if (dir === '') continue;
    for (const ext of exts) {
      const file = path.resolve(cwd, dir, command + ext);
      if (canStart(file, { platform })) return file;
    }
  }
  return undefined;
}

module.exports = { canStart, shebangWordsOf, resolveCommand };
