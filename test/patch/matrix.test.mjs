// The SDK version matrix (test/support/matrix.cjs): SDK 1.x at the oldest
// supported version (1.0.0), the first with a CJS build (1.2.0), a middle one
// (1.23.0) and the latest (1.32.2); 2.x client and server at 2.0.0 and the
// latest (2.4.0) — installed side by side through npm aliases. For each
// version and build, stock and patched, in a child process: the Client
// reproduction over real stdio against the raw server, and the Server
// reproduction through a real StdioServerTransport. The stock run must lose
// progress (so the reproduction is real); the patched run must lose none.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { PAIRS } from '../support/run-repro.mjs';

const require = createRequire(import.meta.url);
const { MATRIX } = require('../support/matrix.cjs');
const CHILD = fileURLToPath(new URL('./support/matrix-child.mjs', import.meta.url));
const OPTIONS = { pairs: PAIRS, concurrency: 3, mode: 'last-with-response', progress: 3 };

function runChild(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`matrix-child ${args.join(' ')} exited with ${signal ?? code}:\n${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()));
      } catch {
        reject(new Error(`matrix-child ${args.join(' ')} printed no JSON:\n${stdout}\n${stderr}`));
      }
    });
  });
}

// Two children at a time (2 shared cores).
let running = 0;
const waiting = [];
async function limited(fn) {
  if (running >= 2) await new Promise((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

const rows = [];

for (const e of MATRIX) {
  for (const build of e.builds) {
    test(`SDK ${e.id} ${build} (${e.why}): stock loses progress, patched loses none — Client and Server`, async () => {
      const base = [`--entry=${e.id}`, `--build=${build}`, ...Object.entries(OPTIONS).map(([k, v]) => `--${k}=${v}`)];
      const [stock, patched] = await Promise.all([
        limited(() => runChild([...base, '--patched=0'])),
        limited(() => runChild([...base, '--patched=1'])),
      ]);
      rows.push({ e, build, stock, patched });

      // The copy loaded is the one named, with its own code: every MCP package
      // whose files were loaded has the entry's version (an aliased 2.x client
      // self-imports @modelcontextprotocol/client/_shims and needs its own
      // @modelcontextprotocol/core).
      for (const run of [stock, patched]) {
        assert.ok(run.packages.length > 0);
        for (const pkg of run.packages) {
          assert.equal(pkg.version, e.id, `loaded ${pkg.name}@${pkg.version} from ${pkg.root} for SDK ${e.id}`);
        }
        if (!e.client.startsWith('@')) {
          assert.ok(run.packages.every((p) => !p.root.startsWith('node_modules/@modelcontextprotocol/')), JSON.stringify(run.packages));
        }
      }
      assert.equal(patched.patchedClasses, patched.protocolClasses, 'every Protocol class of the copy is patched');

      for (const role of ['client', 'server']) {
        const s = stock[role];
        const p = patched[role];
        // Real: with the last notification and the response in one read the
        // stock SDK drops that notification, once per call, and says so.
        assert.equal(s.lost, s.calls, `${role}, stock: ${JSON.stringify(s)}`);
        assert.equal(s.unknownTokenErrors, s.calls);
        assert.equal(p.lost, 0, `${role}, patched: ${JSON.stringify(p)}`);
        assert.equal(p.progressReceived, p.progressExpected);
        assert.equal(p.callsFailed, 0, JSON.stringify(p.failures));
        assert.equal(p.onerrorCount, 0, JSON.stringify(p.onerrors));
        if (role === 'client') assert.equal(p.callsOutOfOrder, 0);
      }
    });
  }
}

after(() => {
  const order = (r) => MATRIX.indexOf(r.e) * 10 + r.e.builds.indexOf(r.build);
  const lines = [
    `| SDK | build | role | progress expected | lost, stock | lost, patched | onerrors, patched |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows.sort((a, b) => order(a) - order(b))) {
    const name = r.e.generation === 1 ? `sdk ${r.e.id}` : `client/server ${r.e.id}`;
    for (const role of ['client', 'server']) {
      const s = r.stock[role];
      const p = r.patched[role];
      lines.push(`| ${name} | ${r.build} | ${role === 'client' ? 'Client' : 'Server'} | ${s.progressExpected} | ${s.lost} | ${p.lost} | ${p.onerrorCount} |`);
    }
  }
  console.log(`\n${lines.join('\n')}\n`);
});
