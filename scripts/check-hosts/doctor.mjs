// `doctor <executable> --json` on a host's executable (read, not run): its
// SDK modules and classes, printed, beside what register did at run time.
import { spawnSync } from 'node:child_process';
import { BIN, TIMEOUT_MS } from './common.mjs';

/** doctor's reading of `exe`: { status, read (its first executable), stderr }. */
export function doctorRead(exe) {
  const r = spawnSync(process.execPath, [BIN, 'doctor', '--json', exe], { encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  let read;
  try {
    [read] = JSON.parse(r.stdout).executables;
  } catch {
    // No JSON: read stays undefined.
  }
  return { status: r.status, read, stderr: r.stderr ?? '' };
}

/**
 * Fails when doctor finds no SDK class where register patches one
 * (`patchedClasses`, from the host's runs), or when a module it finds is not
 * reached.
 */
export async function doctorHost(host, exe, patchedClasses) {
  const { status, read, stderr } = doctorRead(exe);
  const r = { status, stderr };
  if (read === undefined) {
    console.log(`FAIL ${host.name} ${host.version} doctor: no JSON (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    return false;
  }
  const modules = read.sdk ?? [];
  const ok = (r.status === 0 && modules.length > 0 && modules.every((m) => m.reached)) || (modules.length === 0 && patchedClasses === 0 && read.kind === 'bun');
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${host.name} ${host.version} doctor (read, not run): ${read.kind === 'bun' ? `${read.modules} embedded modules; ${read.wayIn.words}` : read.message}`);
  for (const m of modules) console.log(`       ${m.name}${m.entry ? ' (entry)' : ''}: ${m.classes.join(', ')}; ${m.recognised ? 'recognised' : 'NOT recognised'} by the search by shape; ${m.reached ? 'reached' : `NOT reached (${m.why})`}`);
  if (modules.length === 0) console.log(`       no SDK class found${patchedClasses > 0 ? `, though register patched ${patchedClasses} in it` : ''}`);
  return ok;
}
