// lib/stdio.cjs: patching the SDK's stdio transports (1.x and 2.x, client and
// server, ESM and CJS builds) so that they frame natively, and what the
// native read buffer does at the edges (sizes, blank lines, clear, backlog).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const stdio = require('../lib/stdio.cjs');
const { NativeReadBuffer, patchStdioTransport, isStdioPatched, findStdioTransports, patchStdioTransports, stdioClassesDefinedIn, patchStdioExports } = stdio;

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const line = (m) => JSON.stringify(m) + '\n';
const NOTE = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('finds every stdio transport class (1.x and 2.x, client and server, ESM and CJS; npm aliases included) and patches them all', () => {
  const found = findStdioTransports([ROOT]);
  const names = found.map((f) => `${f.source.name}@${f.source.version} ${f.source.build} ${f.Transport.name} sdk${f.sdk}`).sort();
  assert.deepEqual(names, [
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
  const { patched, unpatch } = patchStdioTransports([ROOT]);
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
    assert.deepEqual(stdioClassesDefinedIn(fs.readFileSync(path.join(ROOT, 'node_modules', file), 'utf8')), names, file);
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
];

for (const [name, load, generation] of SERVERS) {
  test(`SDK ${name} StdioServerTransport: native framing, errors with offsets, maxBufferSize honoured, transport stays open`, async () => {
    const { StdioServerTransport } = await load();
    const unpatch = patchStdioTransport(StdioServerTransport);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioServerTransport(stdin, stdout, { maxBufferSize: 256 });
    const messages = [];
    const errors = [];
    let closed = false;
    transport.onmessage = (m) => messages.push(m);
    transport.onerror = (e) => errors.push(e);
    transport.onclose = () => {
      closed = true;
    };
    try {
      await transport.start();
      assert.ok(transport._readBuffer instanceof NativeReadBuffer);
      assert.equal(transport._readBuffer._framer.maxMessageSize, 256);
      const big = line({ ...NOTE, params: { data: 'y'.repeat(600) } });
      const parts = [line(NOTE), '{"jsonrpc":"2.0","method":}\n', '\n', big.slice(0, 100), big.slice(100, 400), big.slice(400), line({ ...NOTE, id: 7, method: 'ping' })];
      for (const part of parts) {
        stdin.write(part);
        await tick();
      }
      assert.deepEqual(messages, [NOTE, { ...NOTE, id: 7, method: 'ping' }]);
      const offsets = [];
      let at = 0;
      for (const p of parts.slice(0, 4)) {
        offsets.push(at);
        at += Buffer.byteLength(p);
      }
      const expected = [`malformed-json@${offsets[1]}`, ...(generation === 1 ? [`blank-line@${offsets[2]}`] : []), `too-large@${offsets[3]}`];
      assert.deepEqual(errors.map((e) => `${e.reason}@${e.offset}`), expected);
      assert.equal(closed, false, 'a bad line does not close the transport (the stock one closes on an oversized message)');
    } finally {
      await transport.close();
      unpatch();
    }
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

test('the stock SDK on an oversized message loses the valid messages buffered with it; the native buffer does not', () => {
  const { ReadBuffer: R1 } = require('@modelcontextprotocol/sdk/shared/stdio.js');
  const big = line({ ...NOTE, params: { data: 'z'.repeat(300) } });
  const run = (rb) => {
    const out = [];
    for (const chunk of [line(NOTE) + line(NOTE).slice(0, 20), line(NOTE).slice(20) + big.slice(0, 200), big.slice(200) + line(NOTE)]) {
      try {
        rb.append(Buffer.from(chunk));
      } catch (error) {
        out.push(`append threw: ${error.message}`);
        continue;
      }
      for (;;) {
        try {
          const m = rb.readMessage();
          if (m === null) break;
          out.push('message');
        } catch (error) {
          out.push(error.reason ?? error.name);
        }
      }
    }
    return out;
  };
  // Stock: the buffer is cleared with the second message in it, and the chunk
  // holding the third (behind the big one's tail) overflows again.
  const overflow = 'append threw: ReadBuffer exceeded maximum size of 256 bytes';
  assert.deepEqual(run(new R1({ maxBufferSize: 256 })), ['message', overflow, overflow]);
  assert.deepEqual(run(new NativeReadBuffer({ maxBufferSize: 256 })), ['message', 'message', 'too-large', 'message']);
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
