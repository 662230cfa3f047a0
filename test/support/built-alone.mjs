// Test helper: run what a build produced with nothing else beside it - the
// output directory copied alone into a fresh empty temporary directory (no
// node_modules there or above it), the reproduction's raw server named by
// RAW_SERVER - and resolve the app's one-line JSON result (test/support/bundles.mjs's
// apps print { lost, expected, onerrors, failed, patched, ... }) with its stderr.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { runCommand, show, pathWithThisNode } from './spawn-node.mjs';
import { RAW_SERVER } from './bundles.mjs';

/** The environment a built app runs in: this Node first on PATH, none of the test runner's or a user's Node options. */
export function aloneEnv(extra = {}) {
  const env = { ...process.env, PATH: pathWithThisNode(), RAW_SERVER, ...extra };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  delete env.MCP_ORDERED_DISPATCH_NATIVE;
  return env;
}

/** A fresh empty directory holding a copy of `outDir` (the build's output alone), removed by the caller's t.after. */
export function copyAlone(outDir) {
  const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-alone-'));
  fs.cpSync(outDir, alone, { recursive: true });
  return alone;
}

/**
 * Run `command` with `args` (a path `{alone}` in them is replaced by the
 * copy's directory) in a copy of `outDir` alone; the copy is removed after.
 * Returns the app's JSON result with `stderr`, `files` (what the copy held)
 * and `raw` (the process's result, for messages).
 */
export async function runAlone(outDir, command, args, { env = {}, timeout = 120_000 } = {}) {
  const alone = copyAlone(outDir);
  try {
    const files = fs.readdirSync(alone).sort();
    const argv = args.map((a) => a.replaceAll('{alone}', alone));
    const raw = await runCommand(command.replaceAll('{alone}', alone), argv, { cwd: alone, env: aloneEnv(env), timeout });
    assert.equal(raw.code, 0, show(raw));
    const line = raw.stdout.trim().split('\n').pop();
    let result;
    try {
      result = JSON.parse(line);
    } catch {
      assert.fail(`no JSON result: ${show(raw)}`);
    }
    return { ...result, stderr: raw.stderr, files, raw };
  } finally {
    fs.rmSync(alone, { recursive: true, force: true });
  }
}
