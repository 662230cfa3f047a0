// Test helper: run a command to its end and collect { code, signal, stdout, stderr }.
// Bounded: killed after `timeout` ms (the result then has signal SIGKILL), scaled
// under Wine by test/support/wine/limits.mjs's one factor.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TIMEOUT_SCALE } from './wine/limits.mjs';

/** The user's environment for a command a test starts: none of the test runner's or the fix's settings, and `extra`. */
export function userEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const name of ['NODE_TEST_CONTEXT', 'NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN', 'BUN_BE_BUN']) delete env[name];
  return env;
}

/** A shell command printing run's variables as its process sees them (`/bin/sh`), and what it prints when it sees none. */
export const CARRIERS_SHELL = 'printf \'NODE_OPTIONS=%s|BUN_OPTIONS=%s|BUN_INSPECT_PRELOAD=%s|MARKER=%s\\n\' "$NODE_OPTIONS" "$BUN_OPTIONS" "$BUN_INSPECT_PRELOAD" "$MCP_ORDERED_DISPATCH_RUN"';
export const NO_CARRIERS = 'NODE_OPTIONS=|BUN_OPTIONS=|BUN_INSPECT_PRELOAD=|MARKER=\n';

/** PATH with this Node's own directory first, so `npm` and `#!/usr/bin/env node` scripts run on the same Node line. */
export function pathWithThisNode(env = process.env) {
  return [path.dirname(process.execPath), env.PATH ?? ''].join(path.delimiter);
}

export function runCommand(command, args, { cwd, env, timeout = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout * TIMEOUT_SCALE);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export const show = (r) => `exit ${r.signal ?? r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/**
 * Node's arguments that preload `file` by `flag`: --import takes a URL (a
 * Windows drive-letter path is refused: ERR_UNSUPPORTED_ESM_URL_SCHEME),
 * --require a path.
 */
export const preload = (flag, file) => [flag, flag === '--import' ? pathToFileURL(file).href : file];
