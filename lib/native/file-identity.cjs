'use strict';
// A file's identity: the one key of every cache of what a file is (the
// per-child rule's facts, lib/patch/children.cjs; a Bun-compiled
// executable's index, lib/register/bun-index.cjs). Its device and inode, its
// size, and its modification and change times in nanoseconds: a file
// rewritten in place changes its ctime, which no tool of the user's can set
// back (npm extracts every file with the same mtime). A file whose inode or
// ctime reads 0 (a file system that keeps neither) has no identity: nothing
// is kept for it.

const fs = require('node:fs');

/** The identity a bigint stat (fs.statSync(file, { bigint: true })) gives, or undefined where it keeps no inode or ctime. */
function identityOfStat(stat) {
  if (stat.ino === 0n || stat.ctimeNs === 0n) return undefined;
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** Whether two bigint stats give the same identity (as identityOfStat() would say, without writing it). */
function sameIdentity(a, b) {
  return a.ino === b.ino && a.ctimeNs === b.ctimeNs && a.mtimeNs === b.mtimeNs && a.size === b.size && a.dev === b.dev;
}

/** The identity of the file at `file` (its target, where it is a link): one stat; undefined where there is none, or no such file. */
function fileIdentity(file) {
  try {
    const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
    return stat === undefined || !stat.isFile() ? undefined : identityOfStat(stat);
  } catch {
    return undefined;
  }
}

module.exports = { fileIdentity, identityOfStat, sameIdentity };
