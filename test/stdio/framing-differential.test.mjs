// Differential test: the native framer's verdict on every line (valid message
// of which kind, or not a JSON-RPC message, or not JSON) against the SDK's
// own: JSON.parse, then JSONRPCMessageSchema and the four type guards
// isJSONRPCResultResponse / ErrorResponse / Request / Notification, for
// SDK 1.x (@modelcontextprotocol/sdk/types.js) and 2.x (the schemas the
// client and server import from @modelcontextprotocol/core/internal).
// 12,000 seeded lines, valid and mutated, cut into random chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { generator, rng } from './support/jsonrpc-gen.mjs';

const require = createRequire(import.meta.url);
const { StdioFramer } = require('../../lib/native/addon.cjs');
const { NativeReadBuffer } = require('../../lib/stdio/read-buffer.cjs');

const SEED = 0x5eed_0004;
const COUNT = 12_000;
const KINDS = ['result', 'error', 'request', 'notification'];

function sdk1() {
  const t = require('@modelcontextprotocol/sdk/types.js');
  return {
    name: 'SDK 1.x',
    generation: 1,
    parse: (v) => t.JSONRPCMessageSchema.parse(v),
    schemas: { 'sdk/types.js JSONRPCMessageSchema': (v) => t.JSONRPCMessageSchema.safeParse(v).success },
    guards: [t.isJSONRPCResultResponse, t.isJSONRPCErrorResponse, t.isJSONRPCRequest, t.isJSONRPCNotification],
  };
}

function sdk2() {
  // The client and the server each import their schemas from
  // @modelcontextprotocol/core/internal: resolve it from each package.
  const clientRequire = createRequire(require.resolve('@modelcontextprotocol/client'));
  const serverRequire = createRequire(require.resolve('@modelcontextprotocol/server'));
  const clientSchema = clientRequire('@modelcontextprotocol/core/internal').JSONRPCMessageSchema;
  const serverSchema = serverRequire('@modelcontextprotocol/core/internal').JSONRPCMessageSchema;
  const client = require('@modelcontextprotocol/client');
  const server = require('@modelcontextprotocol/server');
  const parses = (parse) => (v) => {
    try {
      parse(v);
      return true;
    } catch {
      return false;
    }
  };
  return {
    name: 'SDK 2.x',
    generation: 2,
    parse: (v) => clientSchema.parse(v),
    schemas: {
      'client core/internal JSONRPCMessageSchema': (v) => clientSchema.safeParse(v).success,
      'server core/internal JSONRPCMessageSchema': (v) => serverSchema.safeParse(v).success,
      'client parseJSONRPCMessage': parses(client.parseJSONRPCMessage),
    },
    guards: [client.isJSONRPCResultResponse, client.isJSONRPCErrorResponse, client.isJSONRPCRequest, client.isJSONRPCNotification],
    serverGuards: [server.isJSONRPCResultResponse, server.isJSONRPCErrorResponse, server.isJSONRPCRequest, server.isJSONRPCNotification],
  };
}

/** The SDK's verdict on one line: 'malformed-json', 'not-json-rpc' or a kind. */
function sdkVerdict(sdk, line) {
  let value;
  try {
    value = JSON.parse(line.replace(/\r$/, ''));
  } catch {
    return { verdict: 'malformed-json' };
  }
  const schemaVerdicts = Object.entries(sdk.schemas).map(([name, check]) => [name, check(value)]);
  const guards = sdk.guards.map((g) => g(value));
  if (sdk.serverGuards) assert.deepEqual(sdk.serverGuards.map((g) => g(value)), guards, `server and client guards disagree on ${line}`);
  const matched = guards.flatMap((ok, i) => (ok ? [KINDS[i]] : []));
  assert.ok(matched.length <= 1, `${sdk.name}: several guards accept ${line}`);
  for (const [name, ok] of schemaVerdicts) {
    assert.equal(ok, matched.length === 1, `${sdk.name}: ${name} says ${ok} but the guards say ${matched} for ${line}`);
  }
  // What the SDK's ReadBuffer returns: the schema's parse (which drops
  // unknown keys of error and related-task objects).
  return { verdict: matched[0] ?? 'not-json-rpc', value: matched.length === 1 ? sdk.parse(value) : undefined };
}

/** The framer's verdict on each line of the stream, pushed in random chunks (strict: every line has one). */
function framerVerdicts(lines, generation, seed) {
  const r = rng(seed);
  const stream = Buffer.from(lines.join('\n') + '\n', 'utf8');
  const framer = new StdioFramer({ sdk: generation, strict: true });
  const verdicts = [];
  for (let at = 0; at < stream.length; ) {
    const size = r.chance(0.3) ? 1 + r.int(16) : 1 + r.int(70_000);
    const out = framer.push(stream.subarray(at, Math.min(stream.length, at + size)));
    at += size;
    if (out === undefined) continue;
    const [meta, count] = out;
    for (let i = 0; i < count; i++) {
      const [code, s] = [meta[4 * i], meta[4 * i + 1]];
      verdicts.push(code > 0 ? { verdict: KINDS[(code & 7) - 1], v2only: (code & 8) !== 0 } : { verdict: out[s + 3], text: out[s] });
    }
  }
  return verdicts;
}

const lines = (() => {
  const g = generator(SEED);
  return Array.from({ length: COUNT }, () => g.line());
})();

for (const load of [sdk1, sdk2]) {
  const sdk = load();
  test(`${sdk.name}: the framer agrees with JSONRPCMessageSchema and the type guards on ${COUNT} generated lines`, () => {
    const got = framerVerdicts(lines, sdk.generation, SEED + sdk.generation);
    assert.equal(got.length, lines.length, 'one verdict per line');
    const tally = {};
    for (let i = 0; i < lines.length; i++) {
      const want = sdkVerdict(sdk, lines[i]).verdict;
      tally[want] = (tally[want] ?? 0) + 1;
      assert.equal(got[i].verdict, want, `line ${i + 1}: ${lines[i]}\nframer: ${JSON.stringify(got[i])}`);
    }
    // The set must exercise every verdict, and valid and invalid in bulk.
    for (const v of [...KINDS, 'not-json-rpc', 'malformed-json']) assert.ok(tally[v] > 100, `too few "${v}" lines: ${JSON.stringify(tally)}`);
    const valid = KINDS.reduce((n, k) => n + tally[k], 0);
    assert.ok(valid > 3000 && lines.length - valid > 3000, JSON.stringify(tally));
  });

  test(`${sdk.name}: the native read buffer returns what the SDK's ReadBuffer returns for each valid line, throws for the others${sdk.generation === 2 ? ' (skipping those that are not JSON, as 2.x does)' : ''}`, () => {
    const rb = new NativeReadBuffer({ sdk: sdk.generation });
    const r = rng(SEED ^ sdk.generation);
    const stream = Buffer.from(lines.join('\n') + '\n', 'utf8');
    const results = [];
    for (let at = 0; at < stream.length; ) {
      const size = 1 + r.int(r.chance(0.5) ? 200 : 100_000);
      rb.append(stream.subarray(at, at + size));
      at += size;
      for (;;) {
        let m;
        try {
          m = rb.readMessage();
        } catch (error) {
          results.push({ error });
          continue;
        }
        if (m === null) break;
        results.push({ message: m });
      }
    }
    let offset = 0;
    let at = 0;
    let skipped = 0;
    for (let i = 0; i < lines.length; i++) {
      const { verdict, value } = sdkVerdict(sdk, lines[i]);
      if (verdict === 'malformed-json' && sdk.generation === 2) {
        skipped++;
        offset += Buffer.byteLength(lines[i]) + 1;
        continue;
      }
      const result = results[at++];
      if (KINDS.includes(verdict)) {
        assert.ok(result.message, `line ${i + 1} should be a message: ${lines[i]}: ${result.error?.message}`);
        assert.deepEqual(result.message, value);
      } else {
        const { error } = result;
        assert.ok(error, `line ${i + 1} should fail: ${lines[i]}`);
        assert.equal(error.name, 'StdioFramingError');
        assert.equal(error.reason, verdict);
        assert.equal(error.offset, offset, `line ${i + 1}: ${error.message}`);
        assert.equal(error.line, i + 1);
        assert.match(error.message, new RegExp(`byte offset ${offset} \\(line ${i + 1}\\)`));
      }
      offset += Buffer.byteLength(lines[i]) + 1;
    }
    assert.equal(results.length, at);
    assert.equal(skipped > 100, sdk.generation === 2);
  });
}
