// Runs a script in a child process with a time limit (used by the memory-safety tests).
import { spawn } from 'node:child_process';
import { TIMEOUT_SCALE } from '../../support/wine/limits.mjs';

export const LIMIT_MS = 60_000;

/** Runs one case in a child process; resolves with how it ended. */
export function runChild(args, { limitMs = LIMIT_MS, nodeArgs = [] } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=256', ...nodeArgs, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limitMs * TIMEOUT_SCALE);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

