// A Bun-compiled executable built as Claude Code is (test/support/compiled.mjs's
// SHARED_KIND: ES module chunks with bytecode, the app's chunk holding its
// stdio transport unexported and importing statically the chunk that exports
// the Client): under register its SDK chunks run from their bytecode behind
// facades (lib/register/bun-bytecode.cjs), their texts unchanged, and still
// every SDK class is patched: stock loses every progress notification,
// patched none, with native framing (the stdio transport patched as the
// patched Protocol connects it). The debug line counts both chunks run from
// bytecode; the second start reads no chunk at all (their facades recorded).
import assert from 'node:assert/strict';
import { test, before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES } from '../support/runtimes.mjs';
import { buildCompiled, runCompiled, PROGRESS, SHARED_KIND } from '../support/compiled.mjs';

const REGISTER = fileURLToPath(import.meta.resolve('mcp-ordered-dispatch/register'));
const BIN = fileURLToPath(new URL('../../bin/mcp-ordered-dispatch.cjs', import.meta.url));
// Skipped only off the systems the release tests on: on linux (glibc), darwin and win32, x64 and
// arm64, test/support/runtimes.mjs fails the suite, naming the package, when Bun's is missing.
const skip = RUNTIMES.bun ? false : 'bun is not installed here';

let dir;
let exes = [];
before(() => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mod-bun-bytecode-'));
  exes = buildCompiled(dir, { kinds: [SHARED_KIND] });
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The debug line's counts: { scanned, patched, recorded, bytecode }. */
function countsOf(stderr) {
  // Besides the copy patched (test/register/debug-lines.test.mjs), one line of the record's counts.
  const lines = stderr.split('\n').filter((line) => line !== '' && !/^MCP-ORDERED-DISPATCH \d+: patched /.test(line));
  assert.equal(lines.length, 1, stderr);
  const found = lines[0].match(/bun executable index: (\d+) embedded modules scanned, (\d+) read to be patched, (\d+) decided by the index alone; (\d+) with SDK classes run from their bytecode$/);
  assert.ok(found, lines[0]);
  const [scanned, patched, recorded, bytecode] = found.slice(1).map(Number);
  return { scanned, patched, recorded, bytecode };
}

test('stock: the executable built as Claude Code is loses every progress notification', { skip }, async () => {
  assert.equal(exes.length, 2);
  for (const exe of exes) {
    const r = await runCompiled(exe.file);
    assert.deepEqual({ lost: r.lost, patched: r.patched, readBuffer: r.readBuffer, stderr: r.stderr }, { lost: PROGRESS, patched: false, readBuffer: 'ReadBuffer', stderr: '' }, exe.app);
  }
});

test('under register: both SDK chunks run from their bytecode, every class patched (0 lost, native framing); the second start reads no chunk', { skip }, async () => {
  for (const exe of exes) {
    const cache = fs.mkdtempSync(path.join(dir, 'cache-'));
    const env = { NODE_DEBUG: 'mcp-ordered-dispatch', MCP_ORDERED_DISPATCH_CACHE_DIR: cache, BUN_OPTIONS: `--preload ${REGISTER}` };
    for (const start of ['first', 'second']) {
      const label = `${exe.app}, ${start} start`;
      const r = await runCompiled(exe.file, { env });
      assert.deepEqual(
        { lost: r.lost, onerrors: r.onerrors, failed: r.failed, patched: r.patched, framing: r.framing, readBuffer: r.readBuffer, fastProgress: r.fastProgress },
        { lost: 0, onerrors: 0, failed: 0, patched: true, framing: true, readBuffer: 'ThreadReadBuffer', fastProgress: PROGRESS },
        label,
      );
      const counts = countsOf(r.stderr);
      assert.equal(counts.bytecode, 2, `${label}: ${r.stderr}`);
      if (start === 'first') assert.ok(counts.scanned >= 2, `${label}: ${r.stderr}`);
      else assert.deepEqual({ scanned: counts.scanned, patched: counts.patched }, { scanned: 0, patched: 0 }, `${label}: ${r.stderr}`);
    }
    const walked = fs.readdirSync(cache, { recursive: true }).filter((name) => /bun-exe-.*\.json$/.test(name));
    assert.equal(walked.length, 1, `one record: ${walked}`);
    const record = JSON.parse(fs.readFileSync(path.join(cache, walked[0]), 'utf8'));
    const chunks = Object.values(record.modules ?? {}).filter((value) => value !== 0);
    assert.deepEqual(chunks.map((value) => [value.walk, Array.isArray(value.facade?.imports), value.size > 0]), [[true, true, true], [true, true, true]], `each SDK chunk's walk and facade recorded: ${JSON.stringify(record)}`);
    assert.deepEqual(chunks.map((value) => value.facade.classes.map(([, kind]) => kind)).sort(), [[], ['protocol']], 'the Protocol reached through its chunk\'s exports; the stdio transport, unexported, at connect');
    // A recorded size that is not the chunk's: the chunk is read again, and still patched.
    for (const value of chunks) value.size += 1;
    fs.writeFileSync(path.join(cache, walked[0]), JSON.stringify(record));
    const again = await runCompiled(exe.file, { env });
    assert.deepEqual({ lost: again.lost, framing: again.framing }, { lost: 0, framing: true }, `${exe.app}, sizes changed`);
    const read = countsOf(again.stderr);
    assert.deepEqual({ scanned: read.scanned, patched: read.patched, bytecode: read.bytecode }, { scanned: 0, patched: 2, bytecode: 2 }, `${exe.app}, sizes changed: ${again.stderr}`);
    const mended = countsOf((await runCompiled(exe.file, { env })).stderr);
    assert.deepEqual({ scanned: mended.scanned, patched: mended.patched }, { scanned: 0, patched: 0 }, `${exe.app}: the sizes recorded again`);
  }
});

test('mcp-ordered-dispatch run -- the executable: 0 lost, nothing on stderr', { skip }, async () => {
  for (const exe of exes) {
    const r = await runCompiled(process.execPath, { args: [BIN, 'run', '--', exe.file], cwd: path.dirname(exe.file) });
    assert.deepEqual({ lost: r.lost, patched: r.patched, framing: r.framing, stderr: r.stderr }, { lost: 0, patched: true, framing: true, stderr: '' }, exe.app);
  }
});
