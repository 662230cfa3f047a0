'use strict';
// Hostile-JavaScript fuzz of the native layer, run by
// test/native/memory-safety-fuzz.test.mjs in a child process:
//
//   node --expose-gc test/native/support/memory-safety-fuzz.cjs [--steps=N] [--seed=N]
//
// For a number of steps, with a seeded generator, it interleaves:
// * a NativeReadBuffer and a raw StdioFramer fed a stream of JSON-RPC lines
//   (valid and not) in random chunks, read at random moments, cleared now and
//   then: every message must equal JSON.parse of its line (the JavaScript
//   reference), every bad line must throw, in stream order;
// * a Dispatcher whose callbacks dispatch more messages re-entrantly: the
//   delivery order must be the order of the dispatch() calls, and its
//   napi references balanced;
// * random calls of every exported method and accessor (and `classify`) with
//   random receivers (instances of every class, plain objects, primitives,
//   Proxies, objects with a class's prototype) and random arguments
//   (detached and shared buffers, throwing getters, Proxies, BigInt, -0,
//   NaN, 2^53+1, callbacks that call back in);
// * accessors installed on Array.prototype (indices 0-15) and Object.prototype
//   that forge values, detach buffers, run the garbage collector and make
//   random calls; buffers transferred (detached) between calls, including the
//   framer's entries array once it has been read.
// A crash, a hang or a mismatch fails it (exit code != 0); it prints the
// number of operations and the seed.

const assert = require('node:assert/strict');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..', '..');
const native = require(path.join(ROOT, 'lib', 'native', 'addon.cjs'));
const { NativeReadBuffer, StdioFramingError } = require(path.join(ROOT, 'lib', 'stdio', 'read-buffer.cjs'));
const { StdioFramer, ProgressTokens, classify } = native;
const Dispatcher = require(path.join(ROOT, 'lib', 'classify', 'dispatch.cjs')).dispatcherClass();

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const STEPS = Number(args.steps);
assert.ok(Number.isSafeInteger(STEPS) && STEPS > 0, `--steps=N (a positive number) is required, got ${args.steps}`);
const SEED = Number(args.seed ?? Date.now() % 0xffffffff) >>> 0;
const gc = globalThis.gc ?? (() => {});

// mulberry32
let state = SEED;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(random() * n);
const chance = (p) => random() < p;
const pick = (list) => list[int(list.length)];

// The harness keeps its own state in Maps and strings: while the hooks are
// installed, Array.prototype.push (a [[Set]] past the end) would run them.
class Queue {
  map = new Map();
  head = 0;
  tail = 0;
  add(v) {
    this.map.set(this.tail++, v);
  }
  take() {
    if (this.head === this.tail) return undefined;
    const v = this.map.get(this.head);
    this.map.delete(this.head++);
    return v;
  }
  get size() {
    return this.tail - this.head;
  }
  clear() {
    this.map.clear();
    this.head = this.tail = 0;
  }
}

// ---------------------------------------------------------------------------
// lines

const TEXTS = ['', 'a', 'héllo', '€uro', '😀 ok', 'tab\there', 'quote " and \\ backslash', 'ÿ'.repeat(40), 'x'.repeat(300)];
function value(depth) {
  switch (int(depth > 2 ? 5 : 8)) {
    case 0: return pick([0, -0, 1, -1, 2 ** 53 + 1, 1.5e300, 0.1, -123456789]);
    case 1: return pick(TEXTS);
    case 2: return pick([true, false, null]);
    case 3: return int(1000);
    case 4: return pick(TEXTS) + int(100);
    case 5: return Array.from({ length: int(4) }, () => value(depth + 1));
    default: return Object.fromEntries(Array.from({ length: int(4) }, (_, i) => [`k${i}${pick(['', 'é', '_x'])}`, value(depth + 1)]));
  }
}

let nextId = 1;
function validLine() {
  const id = chance(0.2) ? `s${nextId++}` : nextId++;
  switch (int(4)) {
    case 0: return JSON.stringify({ jsonrpc: '2.0', id, result: { v: value(0), big: chance(0.01) ? 'y'.repeat(70_000 + int(1000)) : undefined } });
    case 1: return JSON.stringify({ jsonrpc: '2.0', id, error: { code: int(2000) - 1000, message: pick(TEXTS) } });
    case 2: return JSON.stringify({ jsonrpc: '2.0', id, method: `m/${int(9)}`, params: { a: value(0) } });
    default: return JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: int(100) } });
  }
}
const BAD = ['garbage', '{"jsonrpc":"2.0",', '[1,2', '{"a":1}', '"just a string"', '{"jsonrpc":"2.0","id":1}', '\u00ff\u00fe'];
/** One line: { text (with its newline), expect: the JSON.parse result or ERROR }. */
const ERROR = Symbol('error');
function line() {
  if (chance(0.08)) return { text: `${pick(BAD)}\n`, expect: ERROR };
  const text = validLine();
  return { text: `${text}${chance(0.1) ? '\r' : ''}\n`, expect: JSON.parse(text) };
}

/** A stream of lines cut into random chunks; `expected` gets each line's outcome as its newline is cut. */
class Stream {
  pending = Buffer.alloc(0);
  queued = new Queue(); // outcomes of lines not yet fully cut
  constructor(expected) {
    this.expected = expected;
  }
  chunk() {
    while (this.pending.length < 4096) {
      const l = line();
      this.pending = Buffer.concat([this.pending, Buffer.from(l.text)]);
      this.queued.add(l.expect);
    }
    const n = pick([1, 2, 3, 7, 64, 500, 4096, int(4096) + 1]);
    const bytes = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    for (const b of bytes) if (b === 0x0a) this.expected.add(this.queued.take());
    return bytes;
  }
  /** Drops the incomplete line (as clear() does) and starts the next one fresh. */
  dropPartial() {
    const nl = this.pending.indexOf(0x0a);
    if (nl >= 0) {
      this.pending = this.pending.subarray(nl + 1);
      this.queued.take();
    }
  }
}

/** A copy of `bytes` in a fresh buffer of a random kind. */
function container(bytes) {
  switch (int(4)) {
    case 0: return Buffer.from(bytes);
    case 1: {
      const u = new Uint8Array(new ArrayBuffer(bytes.length + int(16)), 0, bytes.length);
      u.set(bytes);
      return u;
    }
    case 2: {
      const u = new Uint8Array(new SharedArrayBuffer(bytes.length + 8), 4, bytes.length);
      u.set(bytes);
      return u;
    }
    default: {
      const u = new Uint8Array(bytes.length);
      u.set(bytes);
      return u;
    }
  }
}

const detachable = new Queue();
function detach(buffer) {
  if (buffer instanceof ArrayBuffer && buffer.byteLength > 0 && !(buffer instanceof SharedArrayBuffer)) {
    try {
      structuredClone(buffer, { transfer: [buffer] });
    } catch {}
  }
}
function detachSome() {
  while (detachable.size > 0 && chance(0.5)) detach(detachable.take());
}

function same(got, want, what) {
  if (want === ERROR) {
    assert.ok(got instanceof StdioFramingError, `${what}: expected a StdioFramingError, got ${String(got)}`);
  } else {
    assert.equal(JSON.stringify(got), JSON.stringify(want), what);
  }
}

// ---------------------------------------------------------------------------
// the tracked objects

const counts = { ops: 0, messages: 0, errors: 0, framed: 0, dispatched: 0, calls: 0, threw: 0, hooks: 0, hookActions: 0 };

const rbExpected = new Queue();
const rbStream = new Stream(rbExpected);
let rb = new NativeReadBuffer();
function rbAppend() {
  const bytes = rbStream.chunk();
  const c = container(bytes);
  rb.append(c);
  if (chance(0.3)) detach(c.buffer);
}
function rbRead(n) {
  for (let i = 0; i < n; i++) {
    let got;
    try {
      got = rb.readMessage();
    } catch (error) {
      got = error;
    }
    const want = rbExpected.take();
    if (want === undefined) {
      assert.equal(got, null, 'readMessage() after the last complete line');
      return;
    }
    same(got, want, `NativeReadBuffer message (seed ${SEED})`);
    if (want === ERROR) counts.errors++;
    else counts.messages++;
  }
}
function rbClear() {
  rb.clear();
  rbExpected.clear();
  rbStream.dropPartial();
}

const fExpected = new Queue();
const fStream = new Stream(fExpected);
const framer = new StdioFramer({ sdk: 1 });
function framerPush() {
  const c = container(fStream.chunk());
  const out = framer.push(c);
  if (chance(0.3)) detach(c.buffer);
  if (out === undefined) return;
  const [meta, count] = [out[0], out[1]];
  const batch = out[2] === undefined ? undefined : JSON.parse(out[2]);
  let ordinal = 0;
  for (let i = 0; i < count; i++) {
    const k = 4 * i;
    const code = meta[k];
    const s = meta[k + 1];
    const want = fExpected.take();
    if (code <= 0) {
      assert.equal(want, ERROR, `StdioFramer reported an error for a valid line: ${out[s]} (seed ${SEED})`);
    } else {
      const got = s === 2 ? batch[ordinal++] : JSON.parse(out[s].slice(meta[k + 2], meta[k + 3]));
      same(got, want, `StdioFramer message (seed ${SEED})`);
    }
    counts.framed++;
  }
  if (chance(0.5)) detachable.add(meta.buffer);
}

// The dispatcher: each dispatch() call is one delivery, in call order.
let calls = '';
let deliveries = '';
let depth = 0;
let d;
function track(kind) {
  return (message) => {
    deliveries += `${message?.id ?? (typeof message === 'object' && message !== null ? message.method : String(message))}:${kind};`;
    if (depth < 3 && chance(0.3)) {
      depth++;
      try {
        for (let i = int(3); i > 0; i--) trackedDispatch();
        if (chance(0.2)) randomCall();
      } finally {
        depth--;
      }
    }
  };
}
const dCallbacks = {
  onResponse: track('response'),
  onRequest: track('request'),
  onNotification: track('notification'),
  onInvalid: track('invalid'),
  onError: () => {},
};
d = new Dispatcher(dCallbacks);
let dispatchSerial = 0;
function trackedDispatch() {
  const id = `d${dispatchSerial++}`;
  const kind = int(5);
  let message;
  if (kind === 0) message = { jsonrpc: '2.0', id, result: {} };
  else if (kind === 1) message = { jsonrpc: '2.0', id, method: 'x', params: {} };
  else if (kind === 2) message = { jsonrpc: '2.0', id, method: 'notifications/message', params: { level: 'info' } };
  else if (kind === 3) message = { jsonrpc: '2.0', id, get error() { throw new Error('getter'); } };
  else message = new Proxy({ jsonrpc: '2.0', id, result: {} }, {});
  // Every message has its own id, read back from the callback.
  calls += `${id}:`;
  d.dispatch(message, undefined);
  counts.dispatched++;
}

// ---------------------------------------------------------------------------
// random calls with random receivers and arguments

const noop = () => {};
const junk = {
  dispatcher: new Dispatcher({ onResponse: noop, onRequest: noop, onNotification: noop, onInvalid: noop, onError: noop }),
  framer: new StdioFramer(),
  tokens: new ProgressTokens(3),
  readBuffer: new NativeReadBuffer(),
};
const reentrant = () => {
  if (depth < 3) {
    depth++;
    try {
      randomCall();
    } finally {
      depth--;
    }
  }
  return 1;
};
function randomReceiver() {
  switch (int(12)) {
    case 0: return junk.dispatcher;
    case 1: return junk.framer;
    case 2: return junk.tokens;
    case 3: return junk.readBuffer;
    case 4: return {};
    case 5: return Object.create(pick([Dispatcher, StdioFramer, ProgressTokens, NativeReadBuffer]).prototype);
    case 6: return new Proxy(pick(Object.values(junk)), {});
    case 7: return pick([1, 'x', 10n, Symbol('s'), true]);
    case 8: return pick([null, undefined]);
    case 9: return [];
    case 10: return pick([junk.framer, junk.dispatcher, junk.tokens]);
    default: return () => {};
  }
}
function randomArg() {
  switch (int(18)) {
    case 0: return pick([0, -0, NaN, Infinity, -1, 2 ** 53 + 1, 4294967296, 1e300, 3.7]);
    case 1: return pick(['', 'x', '\ud800', 'a'.repeat(100)]);
    case 2: return pick([10n, -1n, Symbol('arg'), true]);
    case 3: return pick([null, undefined]);
    case 4: return Buffer.from(lineText());
    case 5: {
      const u = container(Buffer.from(lineText()));
      if (chance(0.5)) detach(u.buffer);
      return u;
    }
    case 6: return new Int32Array(4);
    case 7: return new Proxy({}, { get: () => { throw new Error('trap'); } });
    case 8: return { get jsonrpc() { throw new Error('getter'); } };
    case 9: return { sdk: pick([1, 2, 3, '1', undefined]), maxMessageSize: pick([1, 10, 1e9, -1, NaN, undefined]), blankLines: pick(['skip', 'report', 'x', undefined]) };
    case 10: return { onResponse: reentrant, onRequest: reentrant, onNotification: reentrant, onInvalid: reentrant, onError: reentrant, sdk: pick([1, 2, undefined]) };
    case 11: return reentrant;
    case 12: return JSON.parse(validLine());
    case 13: return [1, 2, 3];
    case 14: return new DataView(new ArrayBuffer(8));
    case 15: return Object.create(null);
    case 16: return pick(Object.values(junk));
    default: return int(5);
  }
}
function lineText() {
  return line().text.repeat(1 + int(3));
}

const targets = [];
for (const C of [Dispatcher, StdioFramer, ProgressTokens, NativeReadBuffer]) {
  for (const key of Object.getOwnPropertyNames(C.prototype)) {
    if (key === 'constructor') continue;
    const desc = Object.getOwnPropertyDescriptor(C.prototype, key);
    if (typeof desc.value === 'function') targets.push({ name: `${C.name}.${key}()`, call: (r, a) => desc.value.apply(r, a) });
    if (desc.get) targets.push({ name: `get ${C.name}.${key}`, call: (r) => desc.get.call(r) });
    if (desc.set) targets.push({ name: `set ${C.name}.${key}`, call: (r, a) => desc.set.call(r, a[0]) });
  }
  targets.push({ name: `new ${C.name}()`, call: (_, a) => new C(...a) });
  targets.push({ name: `${C.name}.call()`, call: (r, a) => C.call(r, ...a) });
}
targets.push({ name: 'classify()', call: (_, a) => classify(...a) });
assert.ok(targets.length >= 25, `found ${targets.length} methods and accessors`);

function randomCall() {
  const t = pick(targets);
  const argv = Array.from({ length: int(4) }, randomArg);
  counts.calls++;
  try {
    t.call(randomReceiver(), argv);
  } catch (error) {
    counts.threw++;
    // Whatever was thrown came from JavaScript or the binding, as a value.
    if (error instanceof RangeError && /call stack/.test(error.message)) throw error;
  }
}

// ---------------------------------------------------------------------------
// hooks on Array.prototype and Object.prototype

const FORGED = { jsonrpc: '2.0', method: 'forged', params: {} };
let hooked = false;
// A setter's actions (a collection, a re-entrant call, detaching) run at most
// HOOK_ACTIONS times a step: Node 22 and later run the hooks from their own
// internals hundreds of times more often than Node 20, and each action's own
// calls run them again, so without a bound the steps' time grows with the
// Node line (Node 22: minutes, not seconds) while what they try does not. Every
// hook still runs, forges its value and detaches what it is given.
const HOOK_ACTIONS = 4;
let hookActions = 0;
const hookNames = ['then', 'item', 'next', 'head', 'tail', '_out', '_meta', '_backlog', 'holder', 'buffer'];
function hook() {
  return {
    configurable: true,
    get() {
      counts.hooks++;
      return chance(0.5) ? FORGED : undefined;
    },
    set(v) {
      counts.hooks++;
      if (v instanceof ArrayBuffer) detach(v);
      if (ArrayBuffer.isView(v)) detach(v.buffer);
      if (hookActions <= 0) return;
      hookActions--;
      counts.hookActions++;
      if (chance(0.2)) gc();
      if (chance(0.3)) reentrant();
      if (chance(0.3)) detachSome();
    },
  };
}
function installHooks() {
  for (let i = 0; i < 16; i++) Object.defineProperty(Array.prototype, i, hook());
  for (const name of hookNames) Object.defineProperty(Object.prototype, name, hook());
  hooked = true;
}
function removeHooks() {
  for (let i = 0; i < 16; i++) delete Array.prototype[i];
  for (const name of hookNames) delete Object.prototype[name];
  hooked = false;
}

// ---------------------------------------------------------------------------

function step() {
  counts.ops++;
  hookActions = HOOK_ACTIONS;
  const r = int(100);
  if (r < 25) rbAppend();
  else if (r < 45) rbRead(1 + int(8));
  else if (r < 47) rbClear();
  else if (r < 62) framerPush();
  else if (r < 72) trackedDispatch();
  else if (r < 88) randomCall();
  else if (r < 91) detachSome();
  else if (r < 93) {
    // The read buffer's entries array, once everything in it has been read.
    if (rb._reader._count === 0 && rb._reader._meta) detach(rb._reader._meta.buffer);
  } else if (r < 95) gc();
  else if (r < 98) {
    if (hooked) removeHooks();
    else installHooks();
  } else {
    rb = new NativeReadBuffer();
    rbExpected.clear();
    rbStream.dropPartial();
  }
}

try {
  for (let done = 0; done < STEPS; done++) step();
} finally {
  if (hooked) removeHooks();
}
rbRead(1e9);
assert.equal(deliveries.replace(/:[a-z]+;/g, ':'), calls, `dispatch order (seed ${SEED})`);
assert.equal(d.pending, 0);
const stats = d.stats();
assert.equal(stats.refsCreated, stats.refsReleased, 'napi references balanced');
assert.ok(counts.messages > 100 && counts.framed > 100 && counts.dispatched > 100 && counts.calls > 100, JSON.stringify(counts));
console.log(`ok seed=${SEED} ${JSON.stringify(counts)} refs=${stats.refsCreated}`);
