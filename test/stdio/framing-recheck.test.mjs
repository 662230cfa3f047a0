// The native read buffer's optimistic path: the framer reads only
// each line's envelope and hands the chunk's messages over as one JSON array
// text; a body that is not JSON makes that JSON.parse throw, and then each
// message is parsed on its own and a line JSON.parse refuses is rechecked by
// the framer's checking path. These lines (valid envelopes, bad bodies, in
// chunks with valid messages around them, some with characters beyond ASCII
// so that the batch is escaped) must give exactly what the SDK's own
// ReadBuffer gives (patched transports: the stock ReadBuffer as reference),
// and, standalone, exactly the errors a framer that checks every body
// reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { NativeReadBuffer } = require('../../lib/stdio/read-buffer.cjs');
const { StdioFramer, boundary } = require('../../lib/native/addon.cjs');
const { ReadBuffer: ReadBuffer1 } = require('@modelcontextprotocol/sdk/shared/stdio.js');
const { ReadBuffer: ReadBuffer2 } = require('@modelcontextprotocol/client');

const BAD_BODIES = ['[1,]', '{"a":tru}', '{"a" 1}', '"\\x"', '"a\u0001b"', '01', '{"a":[}]}', 'é', '"\\é"', '{"a":1}}', 'nul', '"\\u12"', '1 2'];
const PLACES = [
  (b) => `{"jsonrpc":"2.0","method":"m","params":{"x":${b}}}`,
  (b) => `{"jsonrpc":"2.0","id":1,"result":{"content":[${b}]}}`,
  (b) => `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":${b}}}`,
  (b) => ` { "jsonrpc" : "2.0" , "method":"m","params":{"_meta":{"progressToken":1,"x":${b}}} } `,
  (b) => `{"jsonrpc":"2.0","method":"m","x":${b},"method":"n"}`,
  (b) => `{"jsonrpc":"2.0","method":"m","params":{"x":"${b}"}}`,
];
const GOOD = [
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"déjà vu — ✓ 😀"}}',
  '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"plain"}]}}',
  '{"json\\u0072pc":"2.0","id":"x","method":"tools/call","params":{"_meta":{"progressToken":"t"}}}',
];

function lines() {
  const out = [];
  for (const place of PLACES) for (const body of BAD_BODIES) out.push(place(body));
  return out;
}

/** Everything a ReadBuffer gives for `stream` pushed in `chunk`-byte chunks: messages and error texts. */
function drain(rb, stream, chunk) {
  const seen = [];
  for (let i = 0; i < stream.length; i += chunk) {
    rb.append(stream.subarray(i, i + chunk));
    for (;;) {
      let m;
      try {
        m = rb.readMessage();
      } catch (error) {
        seen.push({ error: `${error.name}: ${error.message}`, offset: error.offset, line: error.line, reason: error.reason });
        continue;
      }
      if (m === null) break;
      seen.push({ message: m });
    }
  }
  return seen;
}

function streamOf(bad) {
  // Each bad line between valid messages, so that it shares a batch with them.
  const all = [];
  for (const line of bad) all.push(GOOD[all.length % GOOD.length], line, GOOD[(all.length + 1) % GOOD.length]);
  return Buffer.from(`${all.join('\n')}\n`, 'utf8');
}

for (const [sdk, Reference] of [
  [1, ReadBuffer1],
  [2, ReadBuffer2],
]) {
  test(`SDK ${sdk}.x: bad bodies in valid envelopes give what the SDK's ReadBuffer gives, in one chunk and in small ones`, () => {
    const stream = streamOf(lines());
    for (const chunk of [stream.length, 4096, 97]) {
      const stock = drain(new Reference(), stream, chunk);
      const native = drain(new NativeReadBuffer({ sdk, reference: Reference }), stream, chunk);
      assert.deepEqual(native, stock, `chunks of ${chunk}`);
    }
  });

  test(`SDK ${sdk}.x standalone: the recheck reports exactly what a framer checking every body reports`, () => {
    const stream = streamOf(lines());
    const native = drain(new NativeReadBuffer({ sdk }), stream, 4096);
    // The checking framer's own verdicts, line by line.
    const framer = new StdioFramer({ sdk, checkBodies: true });
    const want = [];
    for (let i = 0; i < stream.length; i += 4096) {
      const out = framer.push(stream.subarray(i, i + 4096));
      if (out === undefined) continue;
      const entries = out[boundary.OUT_ENTRIES];
      for (let k = 0; k < out[boundary.OUT_COUNT] * boundary.ENTRY_SIZE; k += boundary.ENTRY_SIZE) {
        const e = entries[k + boundary.ENTRY_SLOT];
        if (entries[k + boundary.ENTRY_CODE] > 0) want.push('message');
        else want.push({ error: `StdioFramingError: mcp-ordered-dispatch: stdio: ${out[e + boundary.BAD_MESSAGE]}`, offset: out[e + boundary.BAD_OFFSET], line: out[e + boundary.BAD_LINE], reason: out[e + boundary.BAD_REASON] });
      }
    }
    assert.deepEqual(native.map((s) => (s.message !== undefined ? 'message' : s)), want);
    // 1.x reports the bad lines; 2.x drops them (not JSON), as the SDK does.
    const lineCount = stream.toString('utf8').split('\n').length - 1;
    if (sdk === 1) assert.ok(want.filter((w) => w !== 'message').length > 0);
    else assert.ok(want.length < lineCount);
  });
}

test('a big line with a bad body, assembled across chunks (a string of its own), is rechecked too', () => {
  const big = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'x'.repeat(200_000)}"}],"bad":[1,]}}`;
  const stream = Buffer.from(`${GOOD[0]}\n${big}\n${GOOD[1]}\n`, 'utf8');
  const stock = drain(new ReadBuffer1(), stream, 65536);
  const native = drain(new NativeReadBuffer({ sdk: 1, reference: ReadBuffer1 }), stream, 65536);
  assert.deepEqual(native, stock);
  assert.equal(stock.filter((s) => s.error !== undefined).length, 1);
  const standalone = drain(new NativeReadBuffer({ sdk: 1 }), stream, 65536);
  assert.equal(standalone[1].reason, 'malformed-json');
  assert.equal(standalone[1].offset, Buffer.byteLength(GOOD[0]) + 1);
  assert.equal(standalone[1].line, 2);
});

test('recheck refuses an entry that is not an unchecked message of the last push', () => {
  const framer = new StdioFramer({ sdk: 1, checkBodies: false });
  framer.push(Buffer.from('{"jsonrpc":"2.0","method":"m"}\nnot json\n'));
  assert.throws(() => framer.recheck(1), /not an unchecked message/);
  assert.throws(() => framer.recheck(5), /not an unchecked message/);
  assert.throws(() => framer.recheck('0'), /entry index/);
  // Entry 0 is valid JSON: its recheck is the message.
  const out = framer.recheck(0);
  assert.ok(out[boundary.OUT_ENTRIES][boundary.ENTRY_CODE] > 0);
  assert.equal(framer.text(0), '{"jsonrpc":"2.0","method":"m"}');
  assert.equal(framer.text(1), undefined);
});

for (const [what, text] of [
  ['mostly beyond ASCII (an external UTF-16 string)', 'déjà vu — ✓ 😀 "quoted" \\ '.repeat(120_000)],
  ['with a little beyond ASCII (escaped, an external one-byte string)', `${'The quick brown fox jumps over the lazy dog. "Quoted" \\ '.repeat(3)}déjà vu — ✓ 😀\n`.repeat(20_000)],
]) test(`a multi-megabyte message ${what} is what the SDK parses, and its recheck reads the raw line`, () => {
  const good = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } });
  const bad = `${good.slice(0, -2)},]}`;
  const stream = Buffer.from(`${good}\n${bad}\n${GOOD[1]}\n`, 'utf8');
  const stock = drain(new ReadBuffer1(), stream, 65536);
  const native = drain(new NativeReadBuffer({ sdk: 1, reference: ReadBuffer1 }), stream, 65536);
  assert.equal(native.length, 3);
  assert.deepEqual(native, stock);
  assert.equal(native[0].message.result.content[0].text, text);
  // Collected and finalized without trouble.
  globalThis.gc?.();
});

test('verify mode (an SDK release whose schemas differ): an error response goes to the SDK parse as its raw text, not the escaped batch text', () => {
  const lines = [GOOD[0], '{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m","data":["déjà — ✓",]}}', '{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"déjà — ✓"}}', GOOD[1]];
  const stream = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  const stock = drain(new ReadBuffer1(), stream, stream.length);
  const native = drain(new NativeReadBuffer({ sdk: 1, reference: ReadBuffer1, verify: true }), stream, stream.length);
  assert.deepEqual(native, stock);
  assert.match(stock[1].error, /SyntaxError/);
});
