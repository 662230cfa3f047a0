'use strict';
// A startup file changed as a careful editor changes it (for lib/run/setup.cjs):
// through its symlinks to the file they name (a dangling link's target
// created, the link kept), under a lock beside that file, read and written as
// bytes, the new content written to a temporary file beside it with the old
// one's mode and owner, fsynced, then renamed over it. On any failure the
// file is as it was.

const fs = require('node:fs');
const path = require('node:path');

const LINK_HOPS = 40;
const LOCK_TRIES = 600;
const LOCK_WAIT_MS = 25;

/** The file `file` names once its symlinks are followed (it need not exist). */
function targetOf(file) {
  let at = path.resolve(file);
  for (let hop = 0; hop < LINK_HOPS; hop++) {
    let link;
    try {
      link = fs.readlinkSync(at);
    } catch (error) {
      if (error.code === 'EINVAL' || error.code === 'ENOENT' || error.code === 'UNKNOWN') return at;
      throw error;
    }
    at = path.resolve(path.dirname(at), link);
  }
  throw new Error(`${file}: more than ${LINK_HOPS} symbolic links to follow`);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Holds `target`'s lock (a file beside it holding our pid) while `work` runs; a lock whose process is gone is taken over. */
function withLock(target, work) {
  const lock = `${target}.mcp-ordered-dispatch.lock`;
  for (let attempt = 0; ; attempt++) {
    let fd;
    try {
      fd = fs.openSync(lock, 'wx', 0o600);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (attempt === LOCK_TRIES) throw new Error(`${target} is locked by ${lock}; another setup is running, or remove that file if none is`);
      let holder = NaN;
      try {
        holder = Number.parseInt(fs.readFileSync(lock, 'utf8'), 10);
      } catch {
        // Gone in between: try again.
      }
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) fs.rmSync(lock, { force: true });
      else sleep(LOCK_WAIT_MS);
      continue;
    }
    try {
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return work();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }
}

/** `target`'s bytes, or undefined when there is no such file. */
function readBytes(target) {
  try {
    return fs.readFileSync(target);
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `bytes` written into a new file beside `target`, with `like`'s mode and owner (a stat, or undefined for a new file), then renamed over it. */
function replaceWith(target, bytes, like) {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.mcp-ordered-dispatch-${process.pid}.tmp`);
  // One of this pid's, left by a process that died: ours, under the lock.
  fs.rmSync(temp, { force: true });
  const fd = fs.openSync(temp, 'wx', like === undefined ? 0o644 : like.mode & 0o7777);
  try {
    try {
      let done = 0;
      while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
      if (like !== undefined) {
        fs.fchmodSync(fd, like.mode & 0o7777);
        const own = fs.fstatSync(fd);
        if (own.uid !== like.uid || own.gid !== like.gid) fs.fchownSync(fd, like.uid, like.gid);
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncDir(path.dirname(target));
}

function syncDir(dir) {
  let fd;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // A platform whose folders cannot be fsynced (Windows): the rename stands.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Why `target` (a stat, or undefined when there is no such file) must not be replaced, or undefined. */
function refusal(file, target, stat) {
  if (stat === undefined) return undefined;
  if (!stat.isFile()) return `${file} is not a regular file`;
  // A rename would leave the other names of the file with the old content.
  if (stat.nlink > 1) return `${file} has ${stat.nlink} hard links, which a replaced file would leave behind; give setup one of them to edit in place of a link (or --rc=FILE for another file)`;
  try {
    fs.accessSync(target, fs.constants.W_OK);
  } catch {
    return `${file} is read-only for you`;
  }
  return undefined;
}

/**
 * Changes `file` by `change(bytes)` (bytes undefined: no file yet), which
 * returns the new bytes, `undefined` to leave it, or `null` to remove it (the
 * symlink to it stays). Returns what `change` returned. A folder is made only
 * for a file to write.
 */
function editFile(file, change) {
  const target = targetOf(file);
  if (!fs.existsSync(path.dirname(target))) {
    const next = change(undefined);
    if (next === undefined || next === null) return next;
    fs.mkdirSync(path.dirname(target), { recursive: true });
  }
  return withLock(target, () => {
    const bytes = readBytes(target);
    const stat = bytes === undefined ? undefined : fs.statSync(target);
    const why = refusal(file, target, stat);
    if (why !== undefined) throw new Error(`${why}; nothing was changed`);
    const next = change(bytes);
    if (next === null) fs.rmSync(target, { force: true });
    else if (next !== undefined) {
      try {
        replaceWith(target, next, stat);
      } catch (error) {
        throw new Error(`${file}: not changed, it is as it was: writing its new content beside it failed (${error.message})`);
      }
    }
    return next;
  });
}

module.exports = { editFile };
