'use strict';
// Where `run --report` has a run's report written, and where `report` finds
// the last one: a new file per run, made empty before the host starts (so a
// run that wrote no record is seen as the last one), named by the time it
// was made and the run's pid, in this user's cache directory, else in a new
// private folder under the temporary directory. The newest KEEP reports of
// each place are kept, and older ones too while their run is still going.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { usableCacheDir } = require('../shape/cache.cjs');

const KEEP = 20;
const PREFIX = 'run-';
const SUFFIX = '.jsonl';
const NAME = /^run-[0-9TZ-]+-(\d+)\.jsonl$/;
const TEMP_PREFIX = 'mcp-ordered-dispatch-report-';

/** The folder of this user's reports in the cache directory, made if need be, or undefined. */
function reportsDir() {
  const cache = usableCacheDir();
  if (cache === undefined) return undefined;
  const dir = path.join(cache, 'reports');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined;
  }
}

/** Whether `dir` is a real folder of this user's that no one else can enter. */
function ownFolder(dir) {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && (typeof process.getuid !== 'function' || (st.uid === process.getuid() && (st.mode & 0o077) === 0));
  } catch {
    return false;
  }
}

/** The report files in `dir` by name. */
function reportNames(dir) {
  try {
    return fs.readdirSync(dir).filter((name) => NAME.test(name));
  } catch {
    return [];
  }
}

/** Every report of this user's, newest first: { file, folder (a temporary folder of its own, or undefined) }. */
function reports() {
  const found = [];
  const dir = reportsDir();
  if (dir !== undefined) for (const name of reportNames(dir)) found.push({ name, file: path.join(dir, name), folder: undefined });
  let temps = [];
  try {
    temps = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(TEMP_PREFIX));
  } catch {
    // No temporary directory to list: only the cache directory's reports.
  }
  for (const temp of temps) {
    const folder = path.join(os.tmpdir(), temp);
    if (!ownFolder(folder)) continue;
    for (const name of reportNames(folder)) found.push({ name, file: path.join(folder, name), folder });
  }
  // Names start with the time they were made.
  return found.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

/** Whether the run that made report `name` is still going (its pid alive). */
function running(name) {
  const pid = Number(NAME.exec(name)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Before a new report: removes the reports beyond the newest KEEP - 1 of each place that no run is using (a temporary folder with its report). */
function clean(all) {
  for (const inTemp of [false, true]) {
    for (const report of all.filter((r) => (r.folder !== undefined) === inTemp).slice(KEEP - 1)) {
      if (running(report.name)) continue;
      fs.rmSync(report.file, { force: true });
      if (report.folder === undefined) continue;
      try {
        fs.rmdirSync(report.folder);
      } catch {
        // Something else in it: left.
      }
    }
  }
}

/**
 * A new, empty report file for this run (the host's processes append to it),
 * after cleaning the old ones: in the cache directory's reports, else in a
 * new private temporary folder.
 */
function newReportFile(now = new Date()) {
  const name = `${PREFIX}${now.toISOString().replace(/[:.]/g, '-')}-${process.pid}${SUFFIX}`;
  try {
    clean(reports());
  } catch {
    // Old reports that cannot be removed stay: this run's report is written all the same.
  }
  const dir = reportsDir() ?? fs.mkdtempSync(path.join(os.tmpdir(), TEMP_PREFIX));
  const file = path.join(dir, name);
  fs.closeSync(fs.openSync(file, 'wx', 0o600));
  return file;
}

/** The newest report of this user's, or undefined. */
function latestReport() {
  return reports()[0]?.file;
}

module.exports = { newReportFile, latestReport, running };
