'use strict';
// Adapter for @modelcontextprotocol/sdk 1.x (`sdk/shared/protocol.js`, ESM and CJS builds).
//
// The only SDK method replaced here is `_onnotification`: the stock one defers
// every handler by a microtask, which lets a response that arrived after a
// progress notification run first. This one runs the handler synchronously;
// handler lookup, the fallback handler and the error text are the SDK's.
// A leaf: what runs the handler (and the progress fast path) the patcher
// passes in (`run`, see lib/patch/protocol.cjs).

const { sourceOf, looksUpHandlerByMethod, liftsWireOnlyMaterial } = require('./common.cjs');

const generation = 1;

/** Why this adapter cannot patch `Protocol`, or null when it can. */
function refuse(Protocol) {
  const proto = Protocol.prototype;
  if (typeof proto._negotiatedWireCodec === 'function') return 'it is a 2.x Protocol';
  for (const name of ['connect', '_onnotification', '_onresponse', '_onrequest', '_onprogress', '_onerror', 'setNotificationHandler']) {
    if (typeof proto[name] !== 'function') return `Protocol.prototype.${name} is missing`;
  }
  const onnotification = sourceOf(proto._onnotification);
  if (!looksUpHandlerByMethod(onnotification)) {
    return "_onnotification does not look up this._notificationHandlers by its notification's method";
  }
  if (!/fallbackNotificationHandler/.test(onnotification)) return '_onnotification has no fallbackNotificationHandler';
  // A 2.x Protocol missing _negotiatedWireCodec must not get the 1.x method, which has no 2.x gates.
  if (/_shouldDropInbound|_negotiatedWireCodec/.test(onnotification) || liftsWireOnlyMaterial(onnotification)) return '_onnotification has 2.x gates';
  if (!/\.onmessage\s*=/.test(sourceOf(proto.connect))) return 'connect() does not assign transport.onmessage';
  return null;
}

/**
 * The replacement methods. `run`: { tryPlainProgress(protocol, handler,
 * notification) -> boolean, invokeHandler(protocol, handler, notification,
 * codec, withCodec) }, the patcher's.
 */
function methods(original, run) {
  const { tryPlainProgress, invokeHandler } = run;
  return {
    _onnotification(notification) {
      const handler = this._notificationHandlers.get(notification.method) ?? this.fallbackNotificationHandler;
      // Ignore notifications not being subscribed to (as the SDK does).
      if (handler === undefined) return;
      if (tryPlainProgress(this, handler, notification)) return;
      invokeHandler(this, handler, notification, undefined);
    },
  };
}

module.exports = { generation, refuse, methods };
