// The reproduction over real stdio: a real SDK Client with StdioClientTransport
// against test/fixtures/raw-server.mjs (a raw server with no SDK), in child
// processes, stock and patched, for SDK 1.x and 2.x, ESM and CJS builds.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { runReproChild, PAIRS } from '../support/run-repro.mjs';

// README's before/after percentages are this table's.
const FLAVORS = [
  { sdk: 1, build: 'esm' },
  { sdk: 1, build: 'cjs' },
  { sdk: 2, build: 'esm' },
  { sdk: 2, build: 'cjs' },
];
const MODES = ['last-with-response', 'all-in-one'];
// On the other Node lines (scripts/test-node-lines.mjs) half of them: each
// flavor with both ways the server groups its writes, the calls at once
// taking turns. What a Node line can change is how its streams deliver the
// bytes, not how the server groups them.
const LINES = process.env.MCP_ORDERED_DISPATCH_LINE_RUN === '1';
const CASES = FLAVORS.flatMap((flavor, i) => MODES.flatMap((mode, m) => [1, 3].map((concurrency, c) => ({ ...flavor, mode, concurrency, turn: (m + c + i) % 2 === 0 }))))
  .filter((x) => !LINES || x.turn);
const rows = [];

function assertClean(result) {
  assert.equal(result.lost, 0, `lost progress: ${JSON.stringify(result)}`);
  assert.equal(result.progressReceived, result.progressExpected);
  assert.equal(result.callsOutOfOrder, 0);
  assert.equal(result.callsFailed, 0, JSON.stringify(result.failures));
  assert.equal(result.onerrorCount, 0, JSON.stringify(result.onerrors));
}

for (const { sdk, build, mode, concurrency } of CASES) {
  const name = `SDK ${sdk}.x ${build.toUpperCase()}, ${mode}, ${concurrency} concurrent call(s), ${PAIRS} pairs`;
  test(name, async () => {
    const options = { sdk, build, pairs: PAIRS, concurrency, mode, progress: 3 };
    const [stock, patched] = await Promise.all([
      runReproChild({ ...options, patched: false }),
      runReproChild({ ...options, patched: true }),
    ]);
    rows.push({ sdk, build, mode, concurrency, stock, patched });
    // The reproduction is real: the stock SDK loses progress and says so through onerror.
    assert.ok(stock.lost > 0, `stock SDK lost nothing, so the reproduction is not real: ${JSON.stringify(stock)}`);
    assert.ok(stock.unknownTokenErrors > 0);
    if (mode === 'all-in-one') assert.equal(stock.lost, stock.progressExpected);
    assertClean(patched);
  });
}

test('under CPU contention: 6 patched reproductions in parallel lose nothing', async () => {
  const runs = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      runReproChild({
        sdk: (i % 2) + 1,
        build: i % 4 < 2 ? 'esm' : 'cjs',
        patched: true,
        pairs: PAIRS,
        concurrency: 3,
        mode: i % 3 === 0 ? 'all-in-one' : 'last-with-response',
      }),
    ),
  );
  for (const result of runs) assertClean(result);
  rows.push({ contention: runs.length, received: runs.reduce((n, r) => n + r.progressReceived, 0), expected: runs.reduce((n, r) => n + r.progressExpected, 0) });
});

after(() => {
  // The before/after table in README.md is taken from this output.
  const lines = [
    '| SDK | build | server writes | calls per pair | progress expected | lost, stock | "unknown token" onerrors, stock | lost, patched | onerrors, patched |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows.filter((row) => row.stock)) {
    lines.push(
      `| ${r.sdk}.x | ${r.build.toUpperCase()} | ${r.mode} | ${r.concurrency} | ${r.stock.progressExpected} | ${r.stock.lost} (${Math.round((100 * r.stock.lost) / r.stock.progressExpected)}%) | ${r.stock.unknownTokenErrors} | ${r.patched.lost} | ${r.patched.onerrorCount} |`,
    );
  }
  for (const r of rows.filter((row) => row.contention)) {
    lines.push(`\n${r.contention} patched runs in parallel: ${r.received} of ${r.expected} progress notifications received.`);
  }
  console.log(`\n${lines.join('\n')}\n`);
});
