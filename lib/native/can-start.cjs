'use strict';
// Whether a file can be started, on a platform: the one test that finding a
// command (lib/run/plan.cjs), choosing execve() over a child (lib/run/index.cjs),
// the plan file (lib/run/plan-file.cjs) and finding the native launcher
// (./launcher.cjs) use. The native launcher's own is can_start in
// crates/launcher/src/resolve.rs.

const fs = require('node:fs');

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

module.exports = { canStart, shebangWordsOf };
