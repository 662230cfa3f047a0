// Differential test: the Rust classifier (classify(), and the Dispatcher's
// gathered fast path) against the SDK's own zod type guards, tried in the
// order Protocol.connect tries them, on generated and hand-made odd messages,
// for SDK 1.x and 2.x. Deterministic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { classify } = require('../../lib/native/addon.cjs');
const Dispatcher = require('../../lib/classify/dispatch.cjs').dispatcherClass();
const v1 = await import('@modelcontextprotocol/sdk/types.js');
const v2 = await import('@modelcontextprotocol/client');

function sdk(m, t) {
  if (t.isJSONRPCResultResponse(m)) return 'result';
  if (t.isJSONRPCErrorResponse(m)) return 'error';
  if (t.isJSONRPCRequest(m)) return 'request';
  if (t.isJSONRPCNotification(m)) return 'notification';
  return 'invalid';
}
const RT = 'io.modelcontextprotocol/related-task';
const scalars = [undefined, null, 0, -0, 1, -7, 1.5, NaN, Infinity, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), '', '2.0', 'x', true, false, [], [1], {}, () => {}, Symbol('s'), 10n, new String('2.0'), new Number(1), new Date(0), new Map()];
const metas = [undefined, null, {}, [], 'm', { progressToken: 1 }, { progressToken: 't' }, { progressToken: 1.5 }, { progressToken: null }, { progressToken: undefined }, { [RT]: { taskId: 't' } }, { [RT]: { taskId: 1 } }, { [RT]: 'x' }, { [RT]: {} }, { other: 1 }, { serverInfo: 5 }, Object.create(null)];
const objs = [undefined, null, {}, [], 'p', () => {}, new Date(0), Object.create(null), ...metas.map((m) => ({ _meta: m })), { a: 1, _meta: { progressToken: 2 } }];
const errors = [undefined, null, {}, [], { code: 1, message: 'm' }, { code: 1.5, message: 'm' }, { code: '1', message: 'm' }, { code: 1 }, { message: 'm' }, { code: 1, message: 2 }, { code: 1, message: 'm', data: undefined }, { code: 1, message: 'm', extra: 1 }, { code: 2 ** 53, message: 'm' }, { code: NaN, message: 'm' }];
const idVals = [undefined, null, 0, -0, 1, 1.5, NaN, 2 ** 53, 2 ** 53 - 1, '', 'a', true, {}, [], new String('a')];
const methodVals = [undefined, null, 'm', '', 1, new String('m'), {}];
const jsonrpcVals = [undefined, '2.0', '2.0 ', '1.0', 2, new String('2.0'), null];

let rng = 12345;
const rand = (n) => { rng = (rng * 1103515245 + 12345) & 0x7fffffff; return rng % n; };
const pick = (a) => a[rand(a.length)];
const ABSENT = Symbol('absent');
const maybe = (a, pAbsent) => (rand(100) < pAbsent ? ABSENT : pick(a));

function gen() {
  const m = {};
  const set = (k, v) => { if (v !== ABSENT) m[k] = v; };
  set('jsonrpc', rand(100) < 85 ? '2.0' : maybe(jsonrpcVals, 30));
  const shape = rand(5);
  if (shape === 0) { set('id', maybe(idVals, 15)); set('result', maybe(objs, 10)); }
  else if (shape === 1) { set('id', maybe(idVals, 40)); set('error', maybe(errors, 10)); }
  else if (shape === 2) { set('id', maybe(idVals, 15)); set('method', maybe(methodVals, 10)); set('params', maybe(objs, 40)); }
  else if (shape === 3) { set('method', maybe(methodVals, 10)); set('params', maybe(objs, 40)); }
  else { for (const k of ['id', 'result', 'error', 'method', 'params']) set(k, maybe([...idVals, ...objs, ...errors], 70)); }
  if (rand(100) < 5) set(pick(['foo', '__proto__', 'ID', 'data']), pick(scalars));
  return m;
}

const special = [];
// inherited enumerable keys, non-enumerable own keys, getters, class instances, null-proto
{ const p = { jsonrpc: '2.0' }; const o = Object.create(p); o.method = 'm'; special.push(o); }
{ const o = { jsonrpc: '2.0', method: 'm' }; Object.defineProperty(o, 'foo', { value: 1, enumerable: false }); special.push(o); }
{ const o = { method: 'm' }; Object.defineProperty(o, 'jsonrpc', { value: '2.0', enumerable: false }); special.push(o); }
{ const o = { jsonrpc: '2.0', id: 1 }; Object.defineProperty(o, 'method', { get: () => 'm', enumerable: true }); special.push(o); }
{ const o = Object.create(null); o.jsonrpc = '2.0'; o.id = 1; o.result = Object.create(null); special.push(o); }
{ class M { constructor() { this.jsonrpc = '2.0'; this.method = 'm'; } } special.push(new M()); }
{ const o = { jsonrpc: '2.0', method: 'm' }; o[Symbol('x')] = 1; special.push(o); }
{ const o = { jsonrpc: '2.0', method: 'm', params: { _meta: Object.create({ progressToken: 1.5 }) } }; special.push(o); }
{ special.push(JSON.parse('{"jsonrpc":"2.0","method":"m","__proto__":{}}')); }
{ special.push(JSON.parse('{"jsonrpc":"2.0","method":"m","params":{"__proto__":{"_meta":1}}}')); }
{ special.push(new Proxy({ jsonrpc: '2.0', id: 1, result: {} }, {})); }
{ const a = ['x']; a.jsonrpc = '2.0'; a.method = 'm'; special.push(a); }
{ const f = function () {}; f.jsonrpc = '2.0'; f.method = 'm'; special.push(f); }
{ special.push({ jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { [RT]: { taskId: new String('t') } } } }); }
{ special.push({ jsonrpc: '2.0', [`k${'x'.repeat(100)}`]: 1, method: 'm' }); }
{ special.push({ jsonrpc: '2.0', ['é'.repeat(40)]: 1 }); }
{ const o = { jsonrpc: '2.0', method: 'm' }; Object.defineProperty(o, 'id', { value: 5, enumerable: false }); special.push(o); }
{ const o = { jsonrpc: '2.0', method: 'm' }; Object.defineProperty(o, 'id', { value: 1.5, enumerable: false }); special.push(o); }
{ const o = { jsonrpc: '2.0', method: 'm' }; Object.defineProperty(o, 'params', { value: 'x', enumerable: false }); special.push(o); }
{ const o = { jsonrpc: '2.0', id: 1 }; Object.defineProperty(o, 'result', { value: {}, enumerable: false }); special.push(o); }
{ const o = Object.create({ id: 3 }); o.jsonrpc = '2.0'; o.method = 'm'; special.push(o); }
{ const p = {}; Object.defineProperty(p, 'id', { value: 3, enumerable: false }); const o = Object.create(p); o.jsonrpc = '2.0'; o.method = 'm'; special.push(o); }
special.push(...scalars);

let last;
const mk = (sdkMajor) =>
  new Dispatcher({
    sdk: sdkMajor,
    onResponse(_m, isErr) {
      last = isErr ? 'error' : 'result';
    },
    onRequest() {
      last = 'request';
    },
    onNotification() {
      last = 'notification';
    },
    onInvalid(_m, r) {
      last = `invalid:${r}`;
    },
    onError(e) {
      throw e;
    },
  });

for (const [name, guards, profile] of [
  ['1.x', v1, 1],
  ['2.x', v2, 2],
]) {
  test(`SDK ${name}: the Rust classifier gives the SDK type guards' verdict on every message`, () => {
    const dispatcher = mk(profile);
    const all = [...special];
    for (let i = 0; i < 15000; i++) all.push(gen());
    const mismatches = [];
    for (const m of all) {
      const want = sdk(m, guards);
      const got0 = classify(m, profile);
      const got = typeof got0 === 'string' ? got0 : 'invalid';
      last = undefined;
      dispatcher.dispatch(m, undefined);
      const viaDispatch = last.startsWith('invalid:') ? 'invalid' : last;
      const sameReason = typeof got0 === 'string' || last === `invalid:${got0.invalid}`;
      if (want !== got || viaDispatch !== want || !sameReason) mismatches.push({ want, got: got0, viaDispatch: last, m });
    }
    assert.ok(all.length > 15000);
    assert.deepEqual(mismatches.slice(0, 5), []);
    // Both kinds of verdict occur in the sample, so agreement means something.
    const verdicts = new Set(all.map((m) => sdk(m, guards)));
    assert.deepEqual([...verdicts].sort(), ['error', 'invalid', 'notification', 'request', 'result']);
  });
}
