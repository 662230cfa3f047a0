// Test helper: run the progress-race reproduction in a child process and
// resolve its one-line JSON result.
//
//   const r = await runReproChild({ sdk: 2, build: 'cjs', patched: false,
//                                   pairs: 20, concurrency: 1,
//                                   mode: 'last-with-response', progress: 3 });
//
// `runtime` ({ command, args }, default: this Node) runs the child in another
// runtime (test/support/runtimes.mjs: Bun, Deno); the result carries the
// child's `stderr`.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Pairs (a fresh server each) per reproduction in the suites, and in
 * test/patch/matrix.test.mjs's children. The server's writes make the loss
 * deterministic (stock loses the same share in every pair), so more pairs
 * repeat the same check; the spawns were most of the suites' time. README's
 * before/after percentages do not depend on it.
 */
export const PAIRS = 2;

const RUNNERS = {
  esm: fileURLToPath(new URL('./repro-esm.mjs', import.meta.url)),
  cjs: fileURLToPath(new URL('./repro-cjs.cjs', import.meta.url)),
};

export async function runReproChild({
  sdk = 1,
  build = 'esm',
  patched = false,
  pairs = 20,
  concurrency = 1,
  mode = 'last-with-response',
  progress = 3,
  gap, // raw-server --gap= (undefined: server default, 'ping')
  apply, // how a patched run applies the fix: 'install' (default) or 'patchProtocol'
  runtime = { command: process.execPath, args: [] },
  env,
  cwd, // the child's working directory (default: this process's)
} = {}) {
  const runner = RUNNERS[build];
  if (!runner) throw new TypeError(`build must be 'esm' or 'cjs', got ${build}`);
  const args = [
    runner,
    `--sdk=${sdk}`,
    `--patched=${patched ? 1 : 0}`,
    `--pairs=${pairs}`,
    `--concurrency=${concurrency}`,
    `--mode=${mode}`,
    `--progress=${progress}`,
    ...(gap === undefined ? [] : [`--gap=${gap}`]),
    ...(apply === undefined ? [] : [`--apply=${apply}`]),
  ];
  const child = spawn(runtime.command, [...runtime.args, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env, cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk; });

  const [code, signal] = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, s) => resolve([c, s]));
  });
  const label = `${runtime.name ?? 'node'} repro-${build} sdk=${sdk} patched=${patched ? 1 : 0} mode=${mode}`;
  if (code !== 0) {
    throw new Error(`${label} exited with ${signal ?? code}:\n${stderr || stdout}`);
  }
  const line = stdout.trim().split('\n').pop();
  try {
    return { ...JSON.parse(line), stderr };
  } catch {
    throw new Error(`${label} printed no JSON result:\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}
