'use strict';
// The memory-safety regressions of the N-API layer's audit, one case per process:
//
//   node --expose-gc test/native/support/memory-safety-cases.cjs <case>
//
// A case prints "ok <case> ..." and exits 0, or throws (exit 1). Before the
// fixes these crashed the process (segfault, abort, heap exhaustion), hung, or
// returned foreign data; test/native/memory-safety.test.mjs runs each one in a child
// process with a time limit so that a crash or a hang fails the test instead
// of killing the runner.

const assert = require('node:assert/strict');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..', '..');
const native = require(path.join(ROOT, 'lib', 'native', 'addon.cjs'));
const { NativeReadBuffer } = require(path.join(ROOT, 'lib', 'stdio', 'read-buffer.cjs'));
const { StdioFramer, ProgressTokens } = native;
const Dispatcher = require(path.join(ROOT, 'lib', 'classify', 'dispatch.cjs')).dispatcherClass();

const gc = globalThis.gc ?? (() => {});
const tick = () => new Promise((resolve) => setImmediate(resolve));

const line = (id) => `{"jsonrpc":"2.0","id":${id},"result":{"n":${id},"s":"${'x'.repeat(id % 7)}"}}\n`;
const lines = (from, n) => Array.from({ length: n }, (_, i) => line(from + i)).join('');

/** Every message and error of one `framer.push()` result (its layout: the binding's `boundary`, crates/core/src/boundary.rs). */
function decode(out) {
  if (out === undefined) return [];
  const B = native.boundary;
  const [meta, count] = [out[B.OUT_ENTRIES], out[B.OUT_COUNT]];
  const batch = out[B.OUT_BATCH] === undefined ? [] : JSON.parse(out[B.OUT_BATCH]);
  // Array.from, not push(): a test may have accessors on Array.prototype.
  let ordinal = 0;
  return Array.from({ length: count }, (_, i) => {
    const k = B.ENTRY_SIZE * i;
    const [code, s, start, end] = [meta[k + B.ENTRY_CODE], meta[k + B.ENTRY_SLOT], meta[k + B.ENTRY_START], meta[k + B.ENTRY_END]];
    if (code <= 0) return { error: out[s + B.BAD_MESSAGE], offset: out[s + B.BAD_OFFSET], line: out[s + B.BAD_LINE], reason: out[s + B.BAD_REASON] };
    if (s === B.OUT_BATCH) return batch[ordinal++];
    return JSON.parse(out[s].slice(start, end));
  });
}

/** Frees as much of what JavaScript let go of as possible, and reuses the memory. */
function churn() {
  for (let i = 0; i < 3; i++) gc();
  // Array.from, not push(): a test may have accessors on Array.prototype.
  return Array.from({ length: 64 }, (_, i) => new Uint8Array(4096 + 64 * i).fill(0xab)).length;
}

function detach(arrayBuffer) {
  // Transfers the backing store away; `arrayBuffer` is left detached and the
  // clone is garbage at once.
  structuredClone(arrayBuffer, { transfer: [arrayBuffer] });
}

function readAll(rb) {
  const got = [];
  for (let m = rb.readMessage(); m !== null; m = rb.readMessage()) got.push(m);
  return got;
}

const cases = {
  // Finding 1: the entries Int32Array the framer reuses (NativeReadBuffer's message reader's
  // `_meta`) is detached and collected; later pushes must not write into it.
  async 'detached-entries'() {
    const rb = new NativeReadBuffer();
    rb.append(Buffer.from(lines(0, 4)));
    assert.deepEqual(readAll(rb).map((m) => m.id), [0, 1, 2, 3]);
    assert.ok(rb._reader._meta instanceof Int32Array, 'the message reader keeps the entries array as _meta');
    detach(rb._reader._meta.buffer);
    const framer = new StdioFramer();
    const out = framer.push(Buffer.from(lines(0, 2)));
    detach(out[native.boundary.OUT_ENTRIES].buffer);
    churn();
    await tick();
    churn();
    let next = 4;
    for (let round = 0; round < 300; round++) {
      const n = 1 + (round % 60);
      rb.append(Buffer.from(lines(next, n)));
      const ids = readAll(rb).map((m) => m.id);
      assert.deepEqual(ids, Array.from({ length: n }, (_, i) => next + i), `round ${round}`);
      next += n;
      const got = decode(framer.push(Buffer.from(lines(round, 3)))).map((m) => m.id);
      assert.deepEqual(got, [round, round + 1, round + 2]);
      if (round % 50 === 0) {
        detach(rb._reader._meta?.buffer ?? new ArrayBuffer(8));
        churn();
      }
    }
    return `${next} messages after detaching the entries array`;
  },

  // Finding 2: every accessor of every class refuses a foreign receiver with a
  // TypeError, and no instance is damaged by an attempt.
  async 'accessor-receivers'() {
    const noop = () => {};
    const callbacks = { onResponse: noop, onRequest: noop, onNotification: noop, onInvalid: noop, onError: noop };
    class SubFramer extends StdioFramer {}
    const own = {
      Dispatcher: new Dispatcher(callbacks),
      StdioFramer: new StdioFramer({ maxMessageSize: 4096 }),
      ProgressTokens: new ProgressTokens(5),
    };
    const classes = { Dispatcher, StdioFramer, ProgressTokens };
    const accessors = {
      Dispatcher: { pending: 'get' },
      StdioFramer: { buffered: 'get', offset: 'get', maxMessageSize: 'get' },
      ProgressTokens: { maxTombstones: 'get+set', expectsLateResponses: 'get' },
    };
    let refused = 0;
    for (const [name, props] of Object.entries(accessors)) {
      const proto = classes[name].prototype;
      const foreign = [
        ...Object.entries(own).filter(([other]) => other !== name).map(([, v]) => v),
        {},
        [],
        () => {},
        Object.create(proto),
        new Proxy(Object.create(proto), {}),
        Object.setPrototypeOf(name === 'StdioFramer' ? new ProgressTokens(1) : new StdioFramer(), proto),
        1,
        'str',
        Symbol('s'),
        10n,
        null,
        undefined,
      ];
      for (const [prop, kind] of Object.entries(props)) {
        const d = Object.getOwnPropertyDescriptor(proto, prop);
        assert.ok(d && typeof d.get === 'function', `${name}.prototype.${prop} is an accessor`);
        if (kind.includes('set')) assert.equal(typeof d.set, 'function', `${name}.prototype.${prop} has a setter`);
        for (const receiver of foreign) {
          assert.throws(() => d.get.call(receiver), TypeError, `${name}.${prop} getter on a foreign receiver`);
          refused++;
          if (d.set) {
            assert.throws(() => d.set.call(receiver, 0), TypeError, `${name}.${prop} setter on a foreign receiver`);
            refused++;
          }
        }
      }
    }
    // The instances are intact and their own accessors work.
    assert.equal(own.Dispatcher.pending, 0);
    assert.equal(own.StdioFramer.maxMessageSize, 4096);
    assert.equal(own.StdioFramer.buffered, 0);
    assert.equal(own.ProgressTokens.maxTombstones, 5);
    own.ProgressTokens.maxTombstones = 7;
    assert.equal(own.ProgressTokens.maxTombstones, 7);
    assert.equal(own.ProgressTokens.expectsLateResponses, false);
    assert.deepEqual(decode(own.StdioFramer.push(Buffer.from(lines(1, 2)))).map((m) => m.id), [1, 2]);
    assert.equal(own.StdioFramer.offset, Buffer.byteLength(lines(1, 2)));
    const sub = new SubFramer();
    sub.push(Buffer.from('{"a"'));
    assert.equal(sub.buffered, 4);
    return `${refused} foreign receivers refused`;
  },

  // Finding 3a: an Array.prototype setter that frees the chunk's memory while
  // the framer reads it.
  async 'push-prototype-setter-frees-chunk'() {
    const body = `not json\n${lines(0, 2000)}not json either\n${lines(2000, 2000)}`;
    const bytes = Buffer.from(body);
    // Its own ArrayBuffer, large (mmap'ed, so freeing it unmaps it).
    let chunk = new Uint8Array(new ArrayBuffer(8 << 20), 0, bytes.length);
    chunk.set(bytes);
    let fired = 0;
    const hook = {
      configurable: true,
      get() {
        return undefined;
      },
      set() {
        fired++;
        if (chunk.buffer.byteLength > 0) detach(chunk.buffer);
        churn();
      },
    };
    for (const i of [0, 1, 2, 3, 4, 5, 6, 7]) Object.defineProperty(Array.prototype, i, hook);
    let out;
    try {
      out = new StdioFramer().push(chunk);
    } finally {
      for (const i of [0, 1, 2, 3, 4, 5, 6, 7]) delete Array.prototype[i];
    }
    assert.equal(fired, 0, 'no Array.prototype setter ran inside push()');
    const items = decode(out);
    assert.equal(items.length, 4002);
    assert.equal(items[0].reason, "malformed-json");
    assert.deepEqual(items.slice(1, 2001).map((m) => m.id), Array.from({ length: 2000 }, (_, i) => i));
    assert.equal(items[2001].reason, "malformed-json");
    assert.deepEqual(items.slice(2002).map((m) => m.id), Array.from({ length: 2000 }, (_, i) => 2000 + i));
    return `${items.length} lines framed`;
  },

  // Finding 3b: an Array.prototype setter that re-enters push() on the same
  // framer (two live `&mut StdioFramer` before the fix).
  async 'push-prototype-setter-reenters'() {
    const framer = new StdioFramer();
    let fired = 0;
    let reentered;
    Object.defineProperty(Array.prototype, 3, {
      configurable: true,
      set() {
        fired++;
        try {
          reentered = framer.push(Buffer.from(`${lines(100, 3)}{"jsonrpc":"2.0",`));
        } catch (error) {
          reentered = error;
        }
      },
    });
    let first;
    let second;
    try {
      // (decode() defines, never assigns, array elements: the hook stays quiet.)
      first = decode(framer.push(Buffer.from(`{"jsonrpc":"2.0","id":1,"res\nbad\n${lines(10, 5)}{"jsonrpc":"2.0"`)));
      second = decode(framer.push(Buffer.from(',"id":77,"result":{}}\n')));
    } finally {
      delete Array.prototype[3];
    }
    assert.equal(first.length, 7);
    assert.deepEqual([first[0].reason, first[1].reason], ['malformed-json', 'malformed-json'], JSON.stringify(first));
    assert.deepEqual(first.slice(2).map((m) => m.id), [10, 11, 12, 13, 14]);
    assert.deepEqual(second.map((m) => m.id), [77]);
    assert.equal(fired, 0, 'no Array.prototype setter ran inside push()');
    assert.equal(reentered, undefined);
    return 'push() not re-entered';
  },

  // Finding 3c: Array.prototype[0]/[1] accessors must neither swallow nor
  // forge a message the Dispatcher queues, nor its callbacks.
  async 'dispatcher-prototype-accessors'() {
    // A string log, not an array: push() would run the Array.prototype hooks.
    let log = '';
    const delivered = { push: (x) => (log += `${x};`) };
    let d;
    const onResponse = (m, isError) => {
      delivered.push(isError ? `error ${m.id}` : m.id);
      if (m.id === 1) {
        d.dispatch({ jsonrpc: '2.0', id: 2, result: {} });
        d.dispatch({ jsonrpc: '2.0', id: 3, error: { code: 1, message: 'x' } });
        Dispatcher.prototype._dispatchClassified.call(d, { jsonrpc: '2.0', id: 4, result: {} }, undefined, 1);
        Dispatcher.prototype._dispatchGathered.call(d, { jsonrpc: '2.0', id: 5, result: {} }, undefined, -1);
      }
    };
    const callbacks = {
      onResponse,
      onRequest: (m) => delivered.push(`request ${m.id}`),
      onNotification: (m) => delivered.push(`notification ${m.method}`),
      onInvalid: (m, reason) => delivered.push(`invalid ${reason}`),
      onError: (e) => delivered.push(`onError ${e}`),
    };
    let runs = 0;
    const forged = { jsonrpc: '2.0', method: 'forged', params: {} };
    const hook = {
      configurable: true,
      get() {
        runs++;
        return forged;
      },
      set() {
        runs++;
      },
    };
    for (let i = 0; i < 10; i++) Object.defineProperty(Array.prototype, i, hook);
    try {
      d = new Dispatcher(callbacks);
      d.dispatch({ jsonrpc: '2.0', id: 1, result: {} });
      d.dispatch({ jsonrpc: '2.0', method: 'n', params: {} });
    } finally {
      for (let i = 0; i < 10; i++) delete Array.prototype[i];
    }
    assert.equal(runs, 0, 'no Array.prototype accessor ran inside the Dispatcher');
    assert.equal(log, '1;2;error 3;4;5;notification n;');
    const stats = d.stats();
    assert.equal(stats.refsCreated, stats.refsReleased);
    assert.equal(stats.refsCreated, 4);
    return `delivered in order: ${log}`;
  },

  // Finding 4: append() three times with a backlog of two or more entries and
  // no read in between (an infinite loop in _stash before the fix).
  async 'read-buffer-backlog'() {
    const rb = new NativeReadBuffer();
    rb.append(Buffer.from(lines(0, 3)));
    rb.append(Buffer.from(`bad\n${lines(3, 2)}`));
    rb.append(Buffer.from(lines(5, 3)));
    rb.append(Buffer.from(lines(8, 2)));
    const got = [];
    for (;;) {
      let m;
      try {
        m = rb.readMessage();
      } catch (error) {
        got.push(error.reason);
        continue;
      }
      if (m === null) break;
      got.push(m.id);
    }
    assert.deepEqual(got, [0, 1, 2, 'malformed-json', 3, 4, 5, 6, 7, 8, 9]);
    // A read, then more appends, then clear() drops everything unread.
    rb.append(Buffer.from(lines(10, 3)));
    assert.equal(rb.readMessage().id, 10);
    rb.append(Buffer.from(lines(13, 3)));
    rb.append(Buffer.from(lines(16, 3)));
    assert.equal(rb.readMessage().id, 11);
    rb.clear();
    assert.equal(rb.readMessage(), null);
    rb.append(Buffer.from(lines(20, 1)));
    assert.equal(rb.readMessage().id, 20);
    assert.equal(rb.readMessage(), null);
    return 'backlog read in order';
  },

  // Finding 5: a framer's native buffer is reported to V8 (and released with
  // the framer), so that creating many framers lets the GC run.
  async 'external-memory'() {
    // (process.memoryUsage().external counts ArrayBuffers only, not what
    // napi_adjust_external_memory reports: the effect is what is measured.)
    // Many framers holding a 1 MiB line each, none kept: the process stays small.
    const big = new Uint8Array(1 << 20).fill(0x20);
    const rss0 = process.memoryUsage().rss;
    let peak = 0;
    for (let i = 0; i < 600; i++) {
      new StdioFramer().push(big);
      if (i % 10 === 9) {
        await tick();
        peak = Math.max(peak, process.memoryUsage().rss - rss0);
      }
    }
    assert.ok(peak < 320 * 1024 * 1024, `600 framers of 1 MiB each peaked at ${(peak / 1048576).toFixed(0)} MiB over the start`);
    return `peak ${(peak / 1048576).toFixed(0)} MiB for 600 MiB of framers`;
  },
};

async function main() {
  const name = process.argv[2];
  const run = cases[name];
  if (!run) {
    console.error(`unknown case ${name}; cases: ${Object.keys(cases).join(', ')}`);
    process.exit(2);
  }
  const detail = await run();
  console.log(`ok ${name}: ${detail}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { cases: Object.keys(cases) };
