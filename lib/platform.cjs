'use strict';
// The prebuilt binary's directory name for this machine:
// `linux-x64-gnu`, `linux-arm64-musl`, `darwin-arm64`, `win32-x64`, ...
// Shared by the loader (lib/native.cjs) and the build scripts.

function isMusl() {
  const report = process.report;
  if (!report || typeof report.getReport !== 'function') return false;
  const excludeNetwork = report.excludeNetwork;
  try {
    report.excludeNetwork = true;
    const header = report.getReport().header || {};
    return !header.glibcVersionRuntime;
  } catch {
    return false;
  } finally {
    report.excludeNetwork = excludeNetwork;
  }
}

function prebuildKey() {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') key += isMusl() ? '-musl' : '-gnu';
  return key;
}

module.exports = { prebuildKey };
