// Split invariance and bad input for the native stdio framing.
// 1. Valid streams cut at every byte offset (inside multi-byte UTF-8
//    characters too, and at every pair of offsets for a short stream) give
//    the same messages as the stream in one piece.
// 2. Bad bytes from a real child process (test/stdio/fixtures/bad-bytes-server.mjs),
//    read by a real SDK Client over its patched StdioClientTransport: each
//    bad line reaches onerror naming its byte offset, and the valid message
//    written right after it is still delivered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drainMessages } from './support/read-buffer.mjs';

const require = createRequire(import.meta.url);
const { patchStdioTransport } = require('../../lib/patch/transports.cjs');
const { NativeReadBuffer } = require('../../lib/stdio/read-buffer.cjs');
const { kHandoff } = require('../../lib/stdio/handoff.cjs');
const { patchProtocol } = require('../../lib/patch/protocol.cjs');
const native = require('../../lib/native/addon.cjs');
const { loadSdk, FLAVORS, callTool } = require('../support/sdk.cjs');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER = path.join(HERE, 'fixtures', 'bad-bytes-server.mjs');

const MESSAGES = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo wörld' }, _meta: { progressToken: 'p-😀' } } },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-😀', progress: 1, total: 2, message: '€ 1/2' } },
  { jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: '日本語のテキスト 👍🏽' }] } },
  { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Método no encontrado', data: { ü: ['ß'] } } },
  { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'plain ascii' } },
];

function drain(rb, chunks) {
  const got = [];
  for (const chunk of chunks) {
    rb.append(chunk);
    for (let m; (m = rb.readMessage()) !== null; ) got.push(m);
  }
  return got;
}

for (const sdk of [1, 2]) {
  for (const eol of ['\n', '\r\n']) {
    test(`SDK ${sdk}.x, ${JSON.stringify(eol)} line ends: a stream cut at every byte offset gives the same messages`, () => {
      const stream = Buffer.from(MESSAGES.map((m) => JSON.stringify(m) + eol).join(''), 'utf8');
      assert.ok(stream.length > Buffer.from(stream.toString('latin1'), 'latin1').length - 1, 'the stream has multi-byte characters');
      assert.deepEqual(drain(new NativeReadBuffer({ sdk }), [stream]), MESSAGES);
      let insideCharacter = 0;
      for (let i = 0; i <= stream.length; i++) {
        if (i < stream.length && (stream[i] & 0xc0) === 0x80) insideCharacter++;
        const got = drain(new NativeReadBuffer({ sdk }), [stream.subarray(0, i), stream.subarray(i)]);
        assert.deepEqual(got, MESSAGES, `cut at byte ${i}`);
      }
      assert.ok(insideCharacter > 20, 'cuts inside multi-byte characters were tried');
    });
  }

  test(`SDK ${sdk}.x: every pair of cuts, and one byte per chunk, give the same messages`, () => {
    const short = [MESSAGES[1], MESSAGES[4]];
    const stream = Buffer.from(short.map((m) => JSON.stringify(m) + '\n').join(''), 'utf8');
    for (let i = 0; i <= stream.length; i++) {
      for (let j = i; j <= stream.length; j++) {
        const got = drain(new NativeReadBuffer({ sdk }), [stream.subarray(0, i), stream.subarray(i, j), stream.subarray(j)]);
        assert.deepEqual(got, short, `cuts at ${i} and ${j}`);
      }
    }
    const all = Buffer.from(MESSAGES.map((m) => JSON.stringify(m) + '\n').join(''), 'utf8');
    const bytes = Array.from({ length: all.length }, (_, i) => all.subarray(i, i + 1));
    assert.deepEqual(drain(new NativeReadBuffer({ sdk }), bytes), MESSAGES);
  });

  test(`SDK ${sdk}.x: bad lines cut anywhere give the same errors at the same offsets`, () => {
    const parts = [
      JSON.stringify(MESSAGES[0]),
      '{"jsonrpc":"2.0","method":',
      JSON.stringify(MESSAGES[1]),
      '{"jsonrpc":"2.0","id":true,"method":"m"}',
      '',
      JSON.stringify(MESSAGES[2]),
    ];
    const stream = Buffer.from(parts.join('\n') + '\n', 'utf8');
    const read = (chunks) => {
      const rb = new NativeReadBuffer({ sdk });
      const out = [];
      for (const chunk of chunks) {
        rb.append(chunk);
        drainMessages(rb, out, (error) => `${error.reason}@${error.offset}`);
      }
      return out;
    };
    const offsetOf = (n) => Buffer.byteLength(parts.slice(0, n).map((p) => p + '\n').join(''));
    const whole = read([stream]);
    // 2.x drops the lines that are not JSON, as its ReadBuffer does.
    const expected = [MESSAGES[0], ...(sdk === 1 ? [`malformed-json@${offsetOf(1)}`] : []), MESSAGES[1], `not-json-rpc@${offsetOf(3)}`, ...(sdk === 1 ? [`blank-line@${offsetOf(4)}`] : []), MESSAGES[2]];
    assert.deepEqual(whole, expected);
    for (let i = 0; i <= stream.length; i++) assert.deepEqual(read([stream.subarray(0, i), stream.subarray(i)]), expected, `cut at ${i}`);
  });
}

// --- bad bytes through a real SDK client over a real child process ---------

const LIMIT = 4096;

for (const { generation, build } of FLAVORS) {
  test(`SDK ${generation}.x ${build.toUpperCase()} client over stdio, strict: each bad line reaches onerror with its offset, and the next message still arrives`, async () => {
    const sdk = await loadSdk(generation, build);
    // strict: every bad line is a StdioFramingError naming its offset (by
    // default the errors are the SDK's own: test/stdio/framing-fidelity.test.mjs).
    const unpatchTransport = patchStdioTransport(sdk.StdioClientTransport, { sdk: generation, strict: true });
    const unpatchProtocol = patchProtocol(sdk.Protocol);
    const client = new sdk.Client({ name: 'framing-test', version: '1.0.0' }, { capabilities: {} });
    const errors = [];
    const notes = [];
    client.onerror = (error) => errors.push(error);
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/message' && notification.params?.logger === 'bad-bytes') notes.push(notification.params.data);
    };
    const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [SERVER, `--limit=${LIMIT}`, '--skip=too-large'], maxBufferSize: LIMIT, stderr: 'inherit' });
    try {
      await client.connect(transport);
      assert.equal(transport._readBuffer.constructor.name, 'ThreadReadBuffer', 'the transport frames natively (the off-thread reader, the default)');
      const result = await callTool(sdk, client, { name: 'bad-bytes', arguments: {} });
      assert.match(result.content[0].text, /^\d+ cases$/);
      const cases = Number(result.content[0].text.split(' ')[0]);
      // Every valid message after a bad line arrived, in order, intact.
      assert.equal(notes.length, cases, JSON.stringify(notes));
      for (const note of notes) assert.equal(note.text, 'héllo 😀');
      // strict reports invalid UTF-8, and under 2.x lines that are not JSON,
      // which stock does not. (An oversized line closes the transport, as
      // stock: test/stdio/framing-fidelity.test.mjs.)
      const expected = notes;
      assert.deepEqual(
        errors.map((e) => `${e.reason}@${e.offset}`),
        expected.map((n) => `${n.case}@${n.offset}`),
        errors.map((e) => e.message).join('\n'),
      );
      for (const error of errors) {
        assert.equal(error.name, 'StdioFramingError');
        assert.match(error.message, new RegExp(`byte offset ${error.offset}\\b`));
      }
      assert.ok(transport._readBuffer[kHandoff].hits > 0, 'the Dispatcher took the framer\'s classification');
      // The connection is still usable.
      await client.ping();
    } finally {
      await client.close();
      unpatchProtocol();
      unpatchTransport();
    }
  });
}
