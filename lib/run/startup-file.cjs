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

/**
 * Changes `file` by `change(bytes)` (bytes undefined: no file yet), which
 * returns the new bytes, `undefined` to leave it, or `null` to remove it (the
 * symlink to it stays). Returns what `change` returned.
 */
function editFile(file, change) {
  const target = targetOf(file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  return withLock(target, () => {
    const bytes = readBytes(target);
    const next = change(bytes);
    if (next === null) fs.rmSync(target, { force: true });
    else if (next !== undefined) replaceWith(target, next, bytes === undefined ? undefined : fs.statSync(target));
    return next;
  });
}

module.exports = { editFile };
