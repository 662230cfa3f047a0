'use strict';
// The native Dispatcher on its own: wire order, run to completion under
// re-entrant delivery, faults reported and dispatch going on, and panics
// surfacing as JS exceptions.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { classify, _testPanic } = require('../../lib/native/addon.cjs');
const Dispatcher = require('../../lib/classify/dispatch.cjs').dispatcherClass();

function recorder() {
  const log = [];
  const errors = [];
  let dispatcher;
  const callbacks = {
    onResponse: (m, isError) => log.push(`response ${m.id}${isError ? ' (error)' : ''}`),
    onRequest: (m) => {
      log.push(`request ${m.id} start`);
      if (m.method === 'reenter') {
        dispatcher.dispatch({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
        dispatcher.dispatch({ jsonrpc: '2.0', id: m.id, result: {} });
        log.push(`pending ${dispatcher.pending}`);
      }
      if (m.method === 'throw') throw new Error('boom');
      if (m.method === 'throw-primitive') throw 42;
      if (m.method === 'reject') return Promise.reject(new Error('async boom'));
      log.push(`request ${m.id} end`);
      return undefined;
    },
    onNotification: (m, extra) => log.push(`notification ${m.method}${extra ? ` ${JSON.stringify(extra)}` : ''}`),
    onInvalid: (_m, reason) => log.push(`invalid: ${reason}`),
    onError: (error, kind) => errors.push({ error, kind }),
  };
  dispatcher = new Dispatcher(callbacks);
  return { dispatcher, log, errors };
}

test('re-entrant messages wait for the running callback, then run in wire order', () => {
  const { dispatcher, log } = recorder();
  dispatcher.dispatch({ jsonrpc: '2.0', id: 1, method: 'reenter' });
  assert.deepEqual(log, ['request 1 start', 'pending 2', 'request 1 end', 'notification notifications/progress', 'response 1']);
  assert.equal(dispatcher.pending, 0);
  const stats = dispatcher.stats();
  assert.equal(stats.maxQueued, 2);
  assert.equal(stats.refsCreated, stats.refsReleased);
  assert.equal(stats.dispatched, 3);
});

test('a throwing or rejecting callback reaches onError with its kind, and the next message is delivered', async () => {
  const { dispatcher, log, errors } = recorder();
  dispatcher.dispatch({ jsonrpc: '2.0', id: 2, method: 'throw' });
  dispatcher.dispatch({ jsonrpc: '2.0', id: 3, method: 'throw-primitive' });
  dispatcher.dispatch({ jsonrpc: '2.0', id: 4, method: 'reject' });
  dispatcher.dispatch({ jsonrpc: '2.0', method: 'after' }, { sessionId: 's' });
  assert.equal(log.at(-1), 'notification after {"sessionId":"s"}');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(errors.length, 3);
  assert.equal(errors[0].error.message, 'boom');
  assert.equal(errors[0].kind, 'request');
  assert.equal(errors[1].error, 42, 'a thrown primitive arrives unchanged');
  assert.equal(errors[2].error.message, 'async boom');
  assert.equal(dispatcher.stats().handlerErrors, 3);
});

test('an onError that throws does not stop dispatch', () => {
  const seen = [];
  const d = new Dispatcher({
    onResponse: () => {},
    onRequest: () => {},
    onNotification: (m) => {
      seen.push(m.method);
      throw new Error('handler');
    },
    onInvalid: () => {},
    onError: () => {
      throw new Error('onError itself');
    },
  });
  d.dispatch({ jsonrpc: '2.0', method: 'a' });
  d.dispatch({ jsonrpc: '2.0', method: 'b' });
  assert.deepEqual(seen, ['a', 'b']);
  assert.equal(d.stats().onErrorFailures, 2);
});

test('invalid messages get a reason that says what is wrong', () => {
  const { dispatcher, log } = recorder();
  dispatcher.dispatch(null);
  dispatcher.dispatch({ jsonrpc: '2.0', id: 1.5, result: {} });
  dispatcher.dispatch({ jsonrpc: '1.0', method: 'x' });
  dispatcher.dispatch({ jsonrpc: '2.0', id: 6, method: 'x', foo: 1 });
  dispatcher.dispatch({ jsonrpc: '2.0', id: 7, error: { code: 1, message: 'm' } });
  assert.match(log[0], /^invalid: .*must be an object/);
  assert.match(log[1], /^invalid: "id" must be a string or an integer/);
  assert.match(log[2], /^invalid: .*"jsonrpc" must be "2\.0"/);
  assert.match(log[3], /^invalid: .*unexpected key "foo"/);
  assert.equal(log[4], 'response 7 (error)');
});

test('classify mirrors the SDK generations', () => {
  assert.equal(classify({ jsonrpc: '2.0', id: 1, result: {} }), 'result');
  assert.equal(classify({ jsonrpc: '2.0', id: 'a', error: { code: -1, message: 'x' } }), 'error');
  assert.equal(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }), 'request');
  assert.equal(classify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'a' } }), 'notification');
  assert.ok(classify({ jsonrpc: '2.0', id: 2 ** 53, result: {} }).invalid);
  // 1.x checks result._meta.progressToken's type; 2.x does not.
  const message = { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: null } } };
  assert.ok(classify(message, 1).invalid);
  assert.equal(classify(message, 2), 'result');
});

test('a Rust panic surfaces as a JS exception and the process goes on', () => {
  assert.throws(() => _testPanic(), (error) => error instanceof Error && /panic/i.test(error.message));
  const { dispatcher, log } = recorder();
  dispatcher.dispatch({ jsonrpc: '2.0', method: 'still-alive' });
  assert.deepEqual(log, ['notification still-alive']);
});

test('the constructor refuses missing callbacks clearly', () => {
  assert.throws(() => new Dispatcher({}), TypeError);
  assert.throws(() => new Dispatcher({ onResponse() {}, onRequest() {}, onNotification() {}, onInvalid() {}, onError() {}, sdk: 3 }), TypeError);
});
