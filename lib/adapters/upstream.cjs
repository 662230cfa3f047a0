'use strict';
// Recognising an SDK release that already dispatches notifications in wire
// order (the fix proposed upstream: `_onnotification` runs the handler
// synchronously instead of a microtask later). Such a copy needs nothing from
// us and is left stock.
//
// Decided by behaviour, not by the method's source text: an instance of the
// class (constructed with its own constructor; the abstract `assert*` hooks
// its subclasses provide answer as no-ops) gets a handler for a method no
// spec gate knows, and `_onnotification` is called once. If the handler ran
// before `_onnotification` returned, the SDK dispatches in order. If it did
// not (the stock SDKs defer it), or anything about the probe fails, this says
// nothing and the adapters' shape checks decide.

const PROBE_METHOD = 'notifications/x-mcp-ordered-dispatch-probe';
const noop = () => {};

/** A fresh, unconnected instance of `Protocol`, or undefined if it cannot be made. */
function probeInstance(Protocol) {
  const proto = new Proxy(Protocol.prototype, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (value === undefined && typeof key === 'string' && key.startsWith('assert')) return noop;
      return value;
    },
  });
  function Probe() {}
  Probe.prototype = proto;
  try {
    return Reflect.construct(Protocol, [], Probe);
  } catch {
    return undefined;
  }
}

/**
 * 'in-order' when `Protocol.prototype._onnotification` runs a registered
 * handler before it returns; 'deferred' when it returns without having run
 * it; 'unknown' when the probe could not tell (no handler map, a throw).
 */
function notificationDispatch(Protocol) {
  const proto = Protocol?.prototype;
  if (!proto || typeof proto._onnotification !== 'function') return 'unknown';
  const instance = probeInstance(Protocol);
  const handlers = instance?._notificationHandlers;
  if (!(handlers instanceof Map)) return 'unknown';
  let ran = false;
  try {
    handlers.set(PROBE_METHOD, () => {
      ran = true;
    });
    // Whatever it reports (a deferred handler that fails later) goes nowhere.
    instance.onerror = noop;
    proto._onnotification.call(instance, { jsonrpc: '2.0', method: PROBE_METHOD, params: {} });
  } catch {
    return 'unknown';
  }
  return ran ? 'in-order' : 'deferred';
}

/** Which generation an unpatched Protocol class is, by its shape (2.x has a wire codec). */
function generationOfShape(Protocol) {
  return typeof Protocol.prototype._negotiatedWireCodec === 'function' ? 2 : 1;
}

module.exports = { notificationDispatch, generationOfShape };
