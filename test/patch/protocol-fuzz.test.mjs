// The differential fuzz of the whole Protocol, bounded for `npm test`: random
// scripts (test/patch/support/protocol-script.mjs) for Client and Server,
// 1.x and 2.x, ESM and CJS builds, each run on the stock SDK one message per
// read, on the patched SDK one per read and with the script's reads
// (coalesced, sometimes delivered from inside a callback), and on the stock
// SDK with the upstream fix: no difference beyond what README documents
// ("Differences from stock, and why"; test/patch/support/protocol-fuzz.mjs
// says what is normalised). In a child process: an onerror that throws
// reaches process-level events, which node:test would take for failures.
//
// The seed is fresh each run unless MCP_ORDERED_DISPATCH_FUZZ_SEED is set;
// a failure prints it and the command that replays the script
// (npm run fuzz -- --seed S --script I --configs C --roles R).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runCommand, show } from '../support/spawn-node.mjs';

const FUZZ = fileURLToPath(new URL('./support/protocol-fuzz.mjs', import.meta.url));
const SCRIPTS = 100; // per configuration and role: 800 scripts, 12 s to 40 s on this 2-core machine, by its load
const seed = Number(process.env.MCP_ORDERED_DISPATCH_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32)) >>> 0;

test(`differential fuzz, seed ${seed}: ${SCRIPTS} scripts per configuration and role, no undocumented difference`, { timeout: 600_000 }, async (t) => {
  t.diagnostic(`seed ${seed}; replay all: npm run fuzz -- --seed ${seed} --scripts ${SCRIPTS}`);
  const r = await runCommand(process.execPath, [FUZZ, '--seed', String(seed), '--scripts', String(SCRIPTS)], { timeout: 540_000 });
  const line = r.stdout.trim().split('\n').pop();
  let result;
  try {
    result = JSON.parse(line);
  } catch {
    assert.fail(`seed ${seed}: the fuzz printed no result\n${show(r)}`);
  }
  const replays = result.failures.map((f) => f.replay).join('\n');
  assert.deepEqual(result.failures, [], `seed ${seed}: differences; replay with:\n${replays}\n${r.stderr.slice(0, 20_000)}`);
  assert.equal(r.code, 0, show(r));
  const keys = ['1-esm', '1-cjs', '2-esm', '2-cjs'].flatMap((c) => [`${c}/client`, `${c}/server`]);
  assert.deepEqual(Object.keys(result.scripts), keys);
  for (const key of keys) assert.equal(result.scripts[key], SCRIPTS, key);
  t.diagnostic(`scripts: ${JSON.stringify(result.scripts)}`);
});
