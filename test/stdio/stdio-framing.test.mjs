// lib/patch/transports.cjs: patching the SDK's stdio transports (1.x and 2.x, client and
// server, ESM and CJS builds) so that they frame natively, and what the
// native read buffer does at the edges (sizes, blank lines, clear, backlog).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { drainMessages } from './support/read-buffer.mjs';

const require = createRequire(import.meta.url);
const stdio = require('../../lib/patch/transports.cjs');
const { patchStdioTransport, isStdioPatched, patchStdioExports } = stdio;
// Whether a read buffer is one of this package's (either reader): it offers the hand-off.
const { offersHandoff } = require('../../lib/stdio/handoff.cjs');
const { planStdioTransports, applyStdioPlan } = require('../../lib/patch/transport-plan.cjs');
const { NativeReadBuffer } = require('../../lib/stdio/read-buffer.cjs');
const { definedClasses } = require('../../lib/adapters/modules.cjs');

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const line = (m) => JSON.stringify(m) + '\n';
const NOTE = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('finds every stdio transport class (1.x and 2.x, client and server, ESM and CJS; npm aliases and a fork included) and patches them all', () => {
  // install()'s plan for the copies on disk: every one found and loaded, none refused.
  const { plan: found, problems } = planStdioTransports([ROOT]);
  assert.deepEqual(problems, []);
  const names = found.map((f) => `${f.source.name}@${f.source.version} ${f.source.build} ${f.Transport.name} sdk${f.sdk}`).sort();
  assert.deepEqual(names, [
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4 cjs StdioClientTransport sdk1',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4 cjs StdioServerTransport sdk1',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4 esm StdioClientTransport sdk1',
    '@mcp-use/modelcontextprotocol-sdk@1.24.3-mcp-use.4 esm StdioServerTransport sdk1',
    '@modelcontextprotocol/client@2.0.0 cjs StdioClientTransport sdk2',
    '@modelcontextprotocol/client@2.0.0 esm StdioClientTransport sdk2',
    '@modelcontextprotocol/client@2.4.0 cjs StdioClientTransport sdk2',
    '@modelcontextprotocol/client@2.4.0 esm StdioClientTransport sdk2',
    '@modelcontextprotocol/sdk@1.0.0 esm StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.0.0 esm StdioServerTransport sdk1',
    '@modelcontextprotocol/sdk@1.2.0 cjs StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.2.0 cjs StdioServerTransport sdk1',
    '@modelcontextprotocol/sdk@1.2.0 esm StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.2.0 esm StdioServerTransport sdk1',
    '@modelcontextprotocol/sdk@1.23.0 cjs StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.23.0 cjs StdioServerTransport sdk1',
    '@modelcontextprotocol/sdk@1.23.0 esm StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.23.0 esm StdioServerTransport sdk1',
    '@modelcontextprotocol/sdk@1.32.2 cjs StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.32.2 cjs StdioServerTransport sdk1',
    '@modelcontextprotocol/sdk@1.32.2 esm StdioClientTransport sdk1',
    '@modelcontextprotocol/sdk@1.32.2 esm StdioServerTransport sdk1',
    '@modelcontextprotocol/server@2.0.0 cjs StdioServerTransport sdk2',
    '@modelcontextprotocol/server@2.0.0 esm StdioServerTransport sdk2',
    '@modelcontextprotocol/server@2.4.0 cjs StdioServerTransport sdk2',
    '@modelcontextprotocol/server@2.4.0 esm StdioServerTransport sdk2',
  ]);
  const stockStarts = found.map(({ Transport }) => Transport.prototype.start);
  const { patched, unpatch } = applyStdioPlan(found);
  try {
    assert.equal(patched.length, found.length);
    for (const { Transport } of found) assert.ok(isStdioPatched(Transport));
    // Idempotent: patching again is a no-op returning the same unpatch.
    for (const { Transport } of found) assert.equal(typeof patchStdioTransport(Transport), 'function');
  } finally {
    unpatch();
  }
  found.forEach(({ Transport }, i) => {
    assert.ok(!isStdioPatched(Transport));
    assert.equal(Transport.prototype.start, stockStarts[i]);
  });
});

test('unpatch restores the class, and patching twice returns the same unpatch', () => {
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
  const stockStart = StdioServerTransport.prototype.start;
  const unpatch = patchStdioTransport(StdioServerTransport);
  assert.notEqual(StdioServerTransport.prototype.start, stockStart);
  assert.equal(patchStdioTransport(StdioServerTransport), unpatch);
  unpatch();
  assert.equal(StdioServerTransport.prototype.start, stockStart);
  unpatch();
  assert.equal(StdioServerTransport.prototype.start, stockStart);
});

test('refuses a class of another shape with an error naming it, patching nothing', () => {
  class NotATransport {
    start() {}
  }
  assert.throws(() => patchStdioTransport(NotATransport), (e) => e.name === 'UnsupportedSdkError' && /NotATransport/.test(e.message) && /close is missing/.test(e.message));
  class LooksLikeOne {
    constructor() {
      this._readBuffer = { append() {}, readMessage() { return null; }, clear() {} };
    }
    start() {}
    close() {}
    send() {}
    processReadBuffer() {
      for (;;) if (this._reader.next() === null) break;
    }
  }
  assert.throws(() => patchStdioTransport(LooksLikeOne), /LooksLikeOne is not a supported MCP stdio transport: processReadBuffer\(\) does not read this\._readBuffer\.readMessage\(\)/);
  assert.throws(() => patchStdioTransport(undefined), /not a class/);
  assert.ok(!isStdioPatched(NotATransport));
  assert.throws(() => patchStdioTransport(NotATransport, { source: { name: 'x-sdk', version: '9' } }), /x-sdk@9 is not a supported/);
});

test('the ESM load hook helper names the transport classes a module defines', () => {
  const files = {
    '@modelcontextprotocol/sdk/dist/esm/client/stdio.js': ['StdioClientTransport'],
    '@modelcontextprotocol/sdk/dist/esm/server/stdio.js': ['StdioServerTransport'],
    '@modelcontextprotocol/client/dist/stdio.mjs': ['StdioClientTransport'],
    '@modelcontextprotocol/server/dist/stdio.mjs': ['StdioServerTransport'],
    '@modelcontextprotocol/sdk/dist/esm/shared/stdio.js': [],
  };
  for (const [file, names] of Object.entries(files)) {
    assert.deepEqual(definedClasses(fs.readFileSync(path.join(ROOT, 'node_modules', file), 'utf8')).transports, names, file);
  }
});

test('patchStdioExports patches what a loaded module exports and leaves others alone', () => {
  const mod = require('@modelcontextprotocol/client/stdio');
  patchStdioExports(mod, require.resolve('@modelcontextprotocol/client/stdio'));
  try {
    assert.ok(isStdioPatched(mod.StdioClientTransport));
    patchStdioExports({ StdioClientTransport: 42 }, undefined);
    patchStdioExports(null, undefined);
  } finally {
    patchStdioTransport(mod.StdioClientTransport)();
  }
});

// --- server transports over in-process streams ------------------------------

const SERVERS = [
  ['1.x ESM', () => import('@modelcontextprotocol/sdk/server/stdio.js'), 1],
  ['1.x CJS', async () => require('@modelcontextprotocol/sdk/server/stdio.js'), 1],
  ['2.x ESM', () => import('@modelcontextprotocol/server/stdio'), 2],
  ['2.x CJS', async () => require('@modelcontextprotocol/server/stdio'), 2],
  ['2.0.0 ESM (server-2-oldest)', () => import('server-2-oldest/stdio'), 2],
];

/** Feed `parts` (one write each) to a server transport; what its callbacks saw. */
async function runServer(StdioServerTransport, parts, options) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport(stdin, stdout, options);
  const seen = { messages: [], errors: [], closed: 0 };
  transport.onmessage = (m) => seen.messages.push(m);
  transport.onerror = (e) => seen.errors.push(e);
  transport.onclose = () => seen.closed++;
  await transport.start();
  seen.native = offersHandoff(transport._readBuffer);
  for (const part of parts) {
    stdin.write(part);
    await tick();
  }
  if (seen.closed === 0) await transport.close();
  else seen.closedBeforeEnd = true;
  return seen;
}

for (const [name, load, generation] of SERVERS) {
  test(`SDK ${name} StdioServerTransport: patched and stock see the same messages, errors and close (bad lines, then an overflow)`, async () => {
    const { StdioServerTransport } = await load();
    const big = line({ ...NOTE, params: { data: 'y'.repeat(600) } });
    const parts = [
      line(NOTE),
      '{"jsonrpc":"2.0","method":}\n',
      '\n',
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"}}\n')]),
      line({ jsonrpc: '2.0', id: 3, error: { code: 1, message: 'm', extra: true } }),
      big.slice(0, 100),
      big.slice(100, 400),
      big.slice(400),
      line({ ...NOTE, id: 7, method: 'ping' }),
    ];
    const stock = await runServer(StdioServerTransport, parts, { maxBufferSize: 256 });
    const unpatch = patchStdioTransport(StdioServerTransport);
    let patched;
    try {
      patched = await runServer(StdioServerTransport, parts, { maxBufferSize: 256 });
    } finally {
      unpatch();
    }
    assert.equal(stock.native, false);
    assert.equal(patched.native, true);
    assert.deepEqual(patched.messages, stock.messages);
    assert.equal(stock.messages[1].params.data, 'caf\ufffd\ufffd', 'invalid UTF-8 is U+FFFD');
    assert.deepEqual(stock.messages[2].error, { code: 1, message: 'm' }, 'the schema drops unknown error keys');
    assert.equal(patched.errors.length, stock.errors.length);
    assert.equal(stock.errors.length, generation === 1 ? 3 : 1, stock.errors.map((e) => e.message).join('\n'));
    const overflow = 'ReadBuffer exceeded maximum size of 256 bytes';
    assert.equal(stock.errors.at(-1).message, overflow);
    assert.equal(patched.errors.at(-1).message, overflow);
    assert.equal(patched.errors.at(-1).constructor, Error);
    // The transport closed itself on the overflow, as stock; nothing after it.
    assert.equal(stock.closed, 1);
    assert.equal(patched.closed, 1);
    assert.equal(patched.closedBeforeEnd, true);
  });
}

// --- the native read buffer itself ------------------------------------------

test('default size limit: the SDK\'s 10 MiB; maxBufferSize picks another', () => {
  assert.equal(new NativeReadBuffer()._framer.maxMessageSize, 10 * 1024 * 1024);
  assert.equal(new NativeReadBuffer({ maxBufferSize: 1000 })._framer.maxMessageSize, 1000);
  const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
  const unpatch = patchStdioTransport(StdioClientTransport);
  try {
    const t = new StdioClientTransport({ command: process.execPath, maxBufferSize: 12345 });
    stdio._useNativeReadBuffer(t, {});
    assert.equal(t._readBuffer._framer.maxMessageSize, 12345);
  } finally {
    unpatch();
  }
});

test('the stock SDK on a blank line: 1.x reports it (SyntaxError), 2.x skips it; the native buffer does the same by default', () => {
  const { ReadBuffer: R1 } = require('@modelcontextprotocol/sdk/shared/stdio.js');
  const { ReadBuffer: R2 } = require('@modelcontextprotocol/client');
  const feed = (rb) => {
    rb.append(Buffer.from('\n' + line(NOTE)));
    const out = [];
    for (;;) {
      try {
        const m = rb.readMessage();
        if (m === null) break;
        out.push('message');
      } catch (error) {
        out.push(error.name);
      }
    }
    return out;
  };
  assert.deepEqual(feed(new R1()), ['SyntaxError', 'message']);
  assert.deepEqual(feed(new R2()), ['message']);
  assert.deepEqual(feed(new NativeReadBuffer({ sdk: 1 })), ['StdioFramingError', 'message']);
  assert.deepEqual(feed(new NativeReadBuffer({ sdk: 2 })), ['message']);
  assert.deepEqual(feed(new NativeReadBuffer({ sdk: 2, blankLines: 'report' })), ['StdioFramingError', 'message']);
});

test('size limit: the native buffer throws the SDK\'s error at exactly the appends where the stock one does, however the stream is cut', () => {
  const { ReadBuffer: R1 } = require('@modelcontextprotocol/sdk/shared/stdio.js');
  const { ReadBuffer: R2 } = require('@modelcontextprotocol/client');
  const big = line({ ...NOTE, params: { data: 'z'.repeat(300) } });
  const stream = Buffer.from(line(NOTE) + line({ ...NOTE, params: { n: 2 } }) + big + line({ ...NOTE, params: { n: 3 } }) + line(NOTE));
  const run = (rb, cuts) => {
    const out = [];
    let at = 0;
    for (const cut of [...cuts, stream.length]) {
      try {
        rb.append(stream.subarray(at, cut));
      } catch (error) {
        out.push(`append threw: ${error.message}`);
        at = cut;
        continue;
      }
      at = cut;
      for (;;) {
        try {
          const m = rb.readMessage();
          if (m === null) break;
          out.push(m);
        } catch {
          out.push('error');
        }
      }
    }
    return out;
  };
  let overflows = 0;
  for (const [R, sdk] of [
    [R1, 1],
    [R2, 2],
  ]) {
    for (let i = 0; i <= stream.length; i += 3) {
      for (const j of [i, i + 50, i + 200, i + 290]) {
        const cuts = j > i && j < stream.length ? [i, j] : [i];
        const want = run(new R({ maxBufferSize: 256 }), cuts);
        assert.deepEqual(run(new NativeReadBuffer({ maxBufferSize: 256, sdk }), cuts), want, `cuts ${cuts}`);
        overflows += want.filter((x) => typeof x === 'string' && x.startsWith('append threw')).length;
      }
    }
  }
  assert.ok(overflows > 100);
  // No limit where the SDK release has none (1.0 to 1.23): nothing is dropped.
  const unlimited = new NativeReadBuffer({ maxBufferSize: Infinity });
  const huge = line({ ...NOTE, params: { data: 'h'.repeat(11 * 1024 * 1024) } });
  assert.equal(run(unlimited, [5]).filter((x) => typeof x !== 'object').length, 0);
  unlimited.append(Buffer.from(huge));
  assert.equal(unlimited.readMessage().params.data.length, 11 * 1024 * 1024);
});

test('append before everything was read keeps the rest, in order; clear() drops a partial line; strings are accepted', () => {
  const rb = new NativeReadBuffer();
  rb.append(Buffer.from(line({ ...NOTE, params: { n: 1 } }) + 'oops\n' + line({ ...NOTE, params: { n: 2 } })));
  assert.deepEqual(rb.readMessage(), { ...NOTE, params: { n: 1 } });
  rb.append(line({ ...NOTE, params: { n: 3 } }));
  assert.throws(() => rb.readMessage(), (e) => e.reason === 'malformed-json' && e.line === 2);
  assert.deepEqual(rb.readMessage(), { ...NOTE, params: { n: 2 } });
  assert.deepEqual(rb.readMessage(), { ...NOTE, params: { n: 3 } });
  assert.equal(rb.readMessage(), null);
  rb.append(Buffer.from('{"jsonrpc":"2.0",'));
  rb.clear();
  rb.append(Buffer.from(line(NOTE)));
  assert.deepEqual(rb.readMessage(), NOTE);
  assert.equal(rb.readMessage(), null);
});

test('every text encoding path (ASCII, Latin-1, two-byte, astral; in one chunk and across chunks) gives the exact strings', () => {
  const texts = ['plain', 'café ÿ ß ü', 'Ā ĉ € 日本', 'emoji 😀 👍🏽 𝄞', '\u0080\u00ff', 'mixed é and 😀'];
  for (const text of texts) {
    const m = { ...NOTE, params: { data: text, long: text.repeat(20_000) } };
    const bytes = Buffer.from(line(m));
    // In one chunk (batched), and cut in three (assembled across chunks).
    for (const cuts of [[], [7, Math.floor(bytes.length / 2)]]) {
      const rb = new NativeReadBuffer();
      let at = 0;
      const got = [];
      for (const cut of [...cuts, bytes.length]) {
        rb.append(bytes.subarray(at, cut));
        at = cut;
        for (let x; (x = rb.readMessage()) !== null; ) got.push(x);
      }
      assert.deepEqual(got, [m], `${JSON.stringify(text)} cut at ${cuts}`);
    }
  }
});

test('invalid UTF-8: the native buffer decodes exactly as Buffer#toString(\'utf8\') (every 1- and 2-byte sequence, 50,000 random ones)', () => {
  // Bytes a JSON string may hold raw: none of '"', '\\', or control characters.
  const usable = (x) => x >= 0x20 && x !== 0x22 && x !== 0x5c;
  const sequences = [];
  for (let x = 0; x < 256; x++) if (usable(x)) sequences.push([x]);
  for (let x = 0x80; x < 256; x++) for (let y = 0; y < 256; y++) if (usable(y)) sequences.push([x, y]);
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) & 0xff;
  while (sequences.length < 50_000 + 256 * 128) {
    const length = 1 + (random() % 6);
    const bytes = [];
    while (bytes.length < length) {
      const x = random() % 3 === 0 ? 0x61 + (random() % 26) : 0x80 + (random() % 128);
      bytes.push(x);
    }
    sequences.push(bytes);
  }
  for (const sdk of [1, 2]) {
    const rb = new NativeReadBuffer({ sdk });
    const lines = sequences.map((bytes) => Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"m","params":{"s":"'), Buffer.from(bytes), Buffer.from('","k'), Buffer.from(bytes), Buffer.from('":1}}\n')]));
    // In one chunk, and cut every 7 bytes (inside sequences).
    for (const chunked of [false, true]) {
      const stream = Buffer.concat(lines);
      const chunks = chunked ? Array.from({ length: Math.ceil(stream.length / 7) }, (_, i) => stream.subarray(7 * i, 7 * i + 7)) : [stream];
      const got = [];
      for (const chunk of chunks) {
        rb.append(chunk);
        for (let m; (m = rb.readMessage()) !== null; ) got.push(m);
      }
      assert.equal(got.length, sequences.length);
      let replaced = 0;
      for (let i = 0; i < sequences.length; i++) {
        const want = Buffer.from(sequences[i]).toString('utf8');
        if (got[i].params.s !== want || !Object.hasOwn(got[i].params, `k${want}`)) {
          assert.fail(`bytes ${Buffer.from(sequences[i]).toString('hex')}: native ${JSON.stringify(got[i].params)}, Buffer#toString ${JSON.stringify(want)}`);
        }
        if (want.includes('\ufffd')) replaced++;
      }
      assert.ok(replaced > 40_000, `${replaced} sequences with replacements`);
    }
  }
});

test('install({ strict: true }) frames the SDK\'s stdio transports strictly; install() as stock', async () => {
  const { install } = require('../../entries/index.cjs');
  const latin1 = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf'), Buffer.from([0xe9]), Buffer.from('"}}\n')]);
  const seen = async () => {
    const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
    const stdin = new PassThrough();
    const transport = new StdioServerTransport(stdin, new PassThrough());
    const out = [];
    transport.onmessage = (m) => out.push(m.params.data);
    transport.onerror = (e) => out.push(`${e.name}: ${e.reason}`);
    await transport.start();
    assert.ok(offersHandoff(transport._readBuffer));
    stdin.write(latin1);
    await tick();
    await transport.close();
    return out;
  };
  for (const [options, want] of [
    [{ strict: true }, ['StdioFramingError: invalid-utf8']],
    [{}, ['caf\ufffd']],
  ]) {
    const installation = install({ ...options, cwd: ROOT });
    try {
      assert.deepEqual(await seen(), want, JSON.stringify(options));
    } finally {
      installation.uninstall();
    }
  }
});

test('every SDK release\'s stock ReadBuffer against the native one that replaces it: same messages, same errors, on 4,000 generated lines in random chunks', async () => {
  const { generator, rng } = await import('./support/jsonrpc-gen.mjs');
  const releases = [
    ['1.32.2', () => import('@modelcontextprotocol/sdk/shared/stdio.js'), 1, false],
    ['1.23.0', () => import('sdk-1-middle/shared/stdio.js'), 1, true],
    ['1.2.0', () => import('sdk-1-oldest-cjs/shared/stdio.js'), 1, true],
    ['1.0.0', () => import('sdk-1-oldest/shared/stdio.js'), 1, true],
    ['2.4.0', () => import('@modelcontextprotocol/client'), 2, false],
    ['2.0.0', () => import('client-2-oldest'), 2, false],
  ];
  const g = generator(0x0dd);
  const r = rng(0x0dd);
  const parts = [];
  for (let i = 0; i < 4000; i++) {
    let l = Buffer.from(g.line());
    if (r.chance(0.03)) l = Buffer.concat([l.subarray(0, l.length >> 1), Buffer.from([0xe9]), l.subarray(l.length >> 1)]);
    if (r.chance(0.03)) l = Buffer.concat([l, Buffer.from('\r')]);
    parts.push(l, Buffer.from('\n'));
  }
  const stream = Buffer.concat(parts);
  const cuts = [];
  for (let at = 0; at < stream.length; at += 1 + r.int(r.chance(0.3) ? 40 : 9000)) cuts.push(at);
  cuts.push(stream.length);
  const run = (rb) => {
    const out = [];
    for (let i = 1; i < cuts.length; i++) {
      rb.append(stream.subarray(cuts[i - 1], cuts[i]));
      drainMessages(rb, out);
    }
    return out;
  };
  for (const [version, load, sdk, verify] of releases) {
    const { ReadBuffer } = await load();
    const transport = { _readBuffer: new ReadBuffer() };
    stdio._useNativeReadBuffer(transport, { sdk });
    assert.ok(offersHandoff(transport._readBuffer));
    assert.equal(transport._readBuffer._reader._verifies(), verify, `${version}: schemas differ from the framer's`);
    const want = run(new ReadBuffer());
    assert.ok(want.filter((x) => typeof x === 'object').length > 1300, version);
    assert.deepStrictEqual(run(transport._readBuffer), want, version);
  }
});
