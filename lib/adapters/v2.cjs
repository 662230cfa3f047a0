'use strict';
// Adapter for the 2.x SDK: the `Protocol` class that @modelcontextprotocol/client
// and @modelcontextprotocol/server each bundle (ESM and CJS builds: four classes).
//
// 2.x's `_onnotification` runs several gates before it looks up a handler:
// the wire-only `_meta` lift, `_shouldDropInbound`, the era-mismatch check on
// edge-classified traffic, and the spec-method era gate. Those gates use
// module-private helpers, so rather than copy them this adapter runs the SDK's
// own `_onnotification` as a probe: while it runs, `_notificationHandlers.get`
// answers a no-op and records that it was reached, which the SDK does only
// after every gate has passed. The real handler is then called synchronously,
// with the SDK's call shape `handler(notification, codec)` / `fallback(notification)`.
// Subclass overrides (Client's `_onnotification`/`_onresponse`) still run:
// they call `super`, which lands here.

// A leaf: what runs the handler (and the progress fast path) the patcher
// passes in (`run`, see lib/adapters/v1.cjs's methods()).
const { sourceOf, looksUpHandlerByMethod, liftsWireOnlyMaterial } = require('./common.cjs');

const generation = 2;

// The reserved envelope keys 2.x lifts out of inbound `_meta` before handlers
// see a notification (`liftWireOnlyMaterial` in the SDK; notifications get the
// envelope lift only). The values are the SDK's exported *_META_KEY constants;
// test/adapters/v2-lift.test.mjs checks them against the installed SDKs.
const RESERVED_ENVELOPE_META_KEYS = [
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/logLevel',
];

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What the SDK's liftWireOnlyMaterial(message, 'notification').message returns. */
function liftNotification(message) {
  const params = message.params;
  if (!isPlainObject(params)) return message;
  const meta = params._meta;
  if (!isPlainObject(meta)) return message;
  let found = false;
  for (const key of RESERVED_ENVELOPE_META_KEYS) {
    if (key in meta) {
      found = true;
      break;
    }
  }
  if (!found) return message;
  const nextParams = { ...params };
  const nextMeta = { ...meta };
  for (const key of RESERVED_ENVELOPE_META_KEYS) delete nextMeta[key];
  if (Object.keys(nextMeta).length > 0) nextParams._meta = nextMeta;
  else delete nextParams._meta;
  return { ...message, params: nextParams };
}

function refuse(Protocol) {
  const proto = Protocol.prototype;
  for (const name of [
    'connect',
    '_onnotification',
    '_onresponse',
    '_onrequest',
    '_onprogress',
    '_onerror',
    '_negotiatedWireCodec',
    'setNotificationHandler',
  ]) {
    if (typeof proto[name] !== 'function') return `Protocol.prototype.${name} is missing`;
  }
  const onnotification = sourceOf(proto._onnotification);
  if (!looksUpHandlerByMethod(onnotification)) {
    return "_onnotification does not look up this._notificationHandlers by its notification's method";
  }
  if (!/Promise\.resolve\(\)\s*\.then\(/.test(onnotification)) return '_onnotification does not defer its handler';
  if (!/fallbackNotificationHandler/.test(onnotification)) return '_onnotification has no fallbackNotificationHandler';
  if (!/\.onmessage\s*=/.test(sourceOf(proto.connect))) return 'connect() does not assign transport.onmessage';
  return null;
}

const MapGet = Map.prototype.get;
const noop = () => {};
// The Map being probed, and whether the probe reached the handler lookup.
let probing = null;
let reached = false;

function probedGet(key) {
  if (this === probing) {
    reached = true;
    return noop;
  }
  return MapGet.call(this, key);
}

function armProbe(handlers) {
  if (handlers.get !== probedGet) {
    Object.defineProperty(handlers, 'get', { value: probedGet, configurable: true, writable: true, enumerable: false });
  }
}

function methods(original, run) {
  const { tryPlainProgress, invokeHandler } = run;
  const lifts = liftsWireOnlyMaterial(sourceOf(original._onnotification));
  const stockOnNotification = original._onnotification;
  return {
    _onnotification(rawNotification, extra) {
      const handlers = this._notificationHandlers;
      armProbe(handlers);
      const outerProbing = probing;
      const outerReached = reached;
      probing = handlers;
      reached = false;
      let passed;
      try {
        stockOnNotification.call(this, rawNotification, extra);
      } finally {
        passed = reached;
        probing = outerProbing;
        reached = outerReached;
      }
      if (!passed) return; // a gate dropped it, as the SDK decided

      const handler = MapGet.call(handlers, rawNotification.method);
      const fallback = this.fallbackNotificationHandler;
      if (handler === undefined && fallback === undefined) return;
      if (tryPlainProgress(this, handler, rawNotification)) return; // plain progress has no _meta to lift
      const notification = lifts ? liftNotification(rawNotification) : rawNotification;
      if (handler === undefined) invokeHandler(this, fallback, notification);
      else invokeHandler(this, handler, notification, this._negotiatedWireCodec(), true);
    },
  };
}

module.exports = { generation, refuse, methods, liftNotification, RESERVED_ENVELOPE_META_KEYS };
