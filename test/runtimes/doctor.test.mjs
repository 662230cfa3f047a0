// `doctor` under Bun and Deno (as `bunx mcp-ordered-dispatch doctor` and
// `deno run -A npm:mcp-ordered-dispatch doctor` run it): in a project with
// SDK 1.32.2 installed, both builds lose progress stock and none patched,
// run in the runtime itself; the all-clear and exit 0.
import assert from 'node:assert/strict';
import { test, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from '../support/runtimes.mjs';
import { runCommand, show } from '../support/spawn-node.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'mcp-ordered-dispatch.cjs');
let project;
after(() => project && fs.rmSync(project, { recursive: true, force: true }));

/** The project, made at the first test that runs (none is made where every test is skipped). */
function projectDir() {
  if (project) return project;
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-runtimes-doctor-'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'doctor-runtimes-fixture', private: true }));
  fs.mkdirSync(path.join(project, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'sdk'), path.join(project, 'node_modules', '@modelcontextprotocol', 'sdk'), 'junction');
  return project;
}

for (const [name, runtime] of Object.entries(RUNTIMES)) {
  test(`doctor under ${name}: SDK 1.32.2's two builds each lose progress stock and none patched; all-clear, exit 0`, { skip: runtime ? false : `${name} is not installed here` }, async () => {
    const r = await runCommand(runtime.command, [...runtime.args, BIN, 'doctor', '--json', '--pairs', '2'], { cwd: projectDir(), env: { ...process.env, ...runtime.env }, timeout: 300_000 });
    assert.equal(r.code, 0, show(r));
    const result = JSON.parse(r.stdout);
    assert.deepEqual(result.rows.map((row) => `${row.name}@${row.version} ${row.build} ${row.verdict}`).sort(), [
      '@modelcontextprotocol/sdk@1.32.2 cjs fixed',
      '@modelcontextprotocol/sdk@1.32.2 esm fixed',
    ]);
    for (const row of result.rows) {
      assert.ok(row.stock.lost > 0, `${name} stock ${row.build}: ${JSON.stringify(row.stock)}`);
      assert.equal(row.patched.lost, 0, `${name} patched ${row.build}: ${JSON.stringify(row.patched)}`);
    }
    assert.match(result.message, /All 2 SDK build/);
  });
}
