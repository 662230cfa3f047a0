'use strict';
// tapWire(clientOrServer): record what a connected MCP Client or Server
// received, in arrival order, and the order in which the SDK ran the callback
// for each message, so that a test can assert wire order deterministically:
//
//   const tap = tapWire(client);       // before (or after) connect
//   await client.connect(transport);
//   await client.callTool(..., { onprogress });
//   tap.assertWireOrder();             // throws, saying what ran out of order or was lost
//
// It works on the stock SDK (1.x and 2.x) as well as on a patched one: it
// only observes. What counts as "the callback" of an inbound message:
//   response      the SDK's _onresponse (it settles the request's promise synchronously)
//   request       the SDK's _onrequest
//   notification  the handler registered for its method (setNotificationHandler,
//                 or fallbackNotificationHandler), when it actually runs; the
//                 stock SDK runs it a microtask after the message arrived.
//   progress      (notifications/progress) the SDK's _onprogress, which hands it
//                 to the request's `onprogress`; recorded with whether that
//                 callback was still there to receive it.
// The tap changes no path a message takes: it wraps instance methods and the
// handlers in place, and passes every call through. What it recorded is
// checked by lib/testing/wire-order.cjs (assertWireOrder, violations).

const { kindOf } = require('./cassette.cjs');
// Where the SDK keeps its handlers and which methods an inbound message reaches, the adapter says.
const {
  notificationHandlersOf, progressHandlersOf, FALLBACK_NOTIFICATION_HANDLER, INBOUND_METHODS, ON_PROGRESS, PROGRESS_METHOD,
} = require('../adapters/common.cjs');
const { tapOf } = require('./wire-order.cjs');

const kTap = Symbol.for('mcp-ordered-dispatch.wire-tap');
const MapSet = Map.prototype.set;
const MapGet = Map.prototype.get;
const MapHas = Map.prototype.has;

/** The Protocol instance behind a Client, Server or McpServer (which wraps a Server). */
function protocolOf(target) {
  const onresponse = INBOUND_METHODS.response;
  if (target && typeof target[onresponse] === 'function') return target;
  if (target && target.server && typeof target.server[onresponse] === 'function') return target.server;
  throw new TypeError('tapWire: expected an MCP SDK Client, Server or McpServer (1.x or 2.x)');
}

function defineOwn(object, name, value) {
  Object.defineProperty(object, name, { value, writable: true, configurable: true, enumerable: false });
}

function findAccessor(object, name) {
  while (object) {
    const descriptor = Object.getOwnPropertyDescriptor(object, name);
    if (descriptor) return descriptor.get || descriptor.set ? descriptor : undefined;
    object = Object.getPrototypeOf(object);
  }
  return undefined;
}

/** What one tap holds: what it recorded, and how to undo what it changed. */
function newTapState(protocol) {
  return {
    protocol,
    active: true,
    inbound: [],
    callbacks: [],
    outbound: [],
    entryOf: new WeakMap(), // inbound message object -> inbound entry
    tokenToRequest: new Map(), // String(progressToken) -> outbound request id
    restorers: [],
    tappedTransports: new WeakSet(),
    delivering: [], // messages whose tapped onmessage is on the stack
    originals: new WeakMap(), // notification handler wrapper -> handler
  };
}

/**
 * Put an own method in front of `name` (the instance's own, or its class's,
 * patched or not), undone on untap: `wrapper(next, ...args)` runs with the
 * instance as `this` and `next` the method it stands in front of.
 */
function interpose(state, name, wrapper) {
  const { protocol } = state;
  const hadOwn = Object.prototype.hasOwnProperty.call(protocol, name);
  const previous = protocol[name];
  defineOwn(protocol, name, function (first, ...rest) {
    const next = hadOwn ? previous : Reflect.get(Object.getPrototypeOf(this), name, this);
    return wrapper.call(this, next, first, ...rest);
  });
  state.restorers.push(() => {
    if (hadOwn) defineOwn(protocol, name, previous);
    else delete protocol[name];
  });
}

// ---- inbound: wrap whatever the SDK (or the patch) installs as transport.onmessage

function recordInbound(state, message) {
  const kind = kindOf(message);
  const entry = { seq: state.inbound.length + 1, kind, message };
  if (kind === 'request' || kind === 'notification') entry.method = message.method;
  if (kind === 'request' || kind === 'response') entry.id = message.id;
  if (entry.method === PROGRESS_METHOD) entry.progressToken = message.params?.progressToken;
  entry.callbackRan = false;
  state.inbound.push(entry);
  if (message !== null && typeof message === 'object') state.entryOf.set(message, entry);
  return entry;
}

function recordOutbound(state, message) {
  state.outbound.push(message);
  const token = message?.params?._meta?.progressToken;
  if (kindOf(message) === 'request' && token !== undefined && token !== null) {
    state.tokenToRequest.set(String(token), message.id);
  }
}

function wrapOnmessage(state, raw) {
  if (typeof raw !== 'function') return raw;
  const { delivering } = state;
  return function tappedOnMessage(message, extra) {
    if (!state.active || delivering.includes(message)) return raw.call(this, message, extra);
    recordInbound(state, message);
    delivering.push(message);
    try {
      return raw.call(this, message, extra);
    } finally {
      delivering.pop();
    }
  };
}

function tapTransport(state, transport) {
  if (!transport || (typeof transport !== 'object' && typeof transport !== 'function')) return;
  if (state.tappedTransports.has(transport)) return;
  const own = Object.getOwnPropertyDescriptor(transport, 'onmessage');
  if (own && !own.configurable) throw new Error('tapWire: transport.onmessage is not configurable');
  state.tappedTransports.add(transport);
  // A setter inherited from the transport's prototype (if any) still gets the value.
  const inherited = own ? undefined : findAccessor(Object.getPrototypeOf(transport), 'onmessage');
  let raw = own ? (own.get ? own.get.call(transport) : own.value) : transport.onmessage;
  let wrapped = wrapOnmessage(state, raw);
  if (inherited?.set && wrapped !== raw) inherited.set.call(transport, wrapped);
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    // The SDK's connect chains the previous onmessage into its own: a
    // chained call with the message being recorded does not record again.
    get() {
      return state.active ? wrapped : raw;
    },
    set(value) {
      raw = value;
      wrapped = wrapOnmessage(state, value);
      if (inherited?.set) inherited.set.call(transport, wrapped);
    },
  });
  const originalSend = Object.prototype.hasOwnProperty.call(transport, 'send') ? transport.send : undefined;
  const send = transport.send;
  if (typeof send === 'function') {
    defineOwn(transport, 'send', function tappedSend(message, ...rest) {
      if (state.active) recordOutbound(state, message);
      return send.call(this, message, ...rest);
    });
  }
  state.restorers.push(() => {
    Object.defineProperty(transport, 'onmessage', {
      value: raw,
      writable: true,
      configurable: true,
      enumerable: true,
    });
    if (!own && inherited) {
      delete transport.onmessage;
      if (inherited.set) inherited.set.call(transport, raw);
    }
    if (originalSend !== undefined) defineOwn(transport, 'send', originalSend);
    else delete transport.send;
  });
}

// ---- callbacks

function entryFor(state, message, kind, method) {
  const direct = message !== null && typeof message === 'object' ? state.entryOf.get(message) : undefined;
  if (direct && !direct.callbackRan) return direct;
  // The SDK may hand a callback a copy (a zod parse, 2.x's _meta lift): the
  // oldest message of that kind and method (and id, or progress token and
  // value) still waiting for its callback.
  const pending = state.inbound.filter(
    (e) => !e.callbackRan && e.kind === kind && (method === undefined || e.method === method) &&
      (kind !== 'response' || e.id === message?.id),
  );
  const params = message?.params;
  if (kind === 'notification' && params && params.progressToken !== undefined) {
    const same = pending.find(
      (e) => String(e.progressToken) === String(params.progressToken) && e.message?.params?.progress === params.progress,
    );
    if (same) return same;
  }
  return pending[0];
}

function recordCallback(state, message, kind, method = kind === 'notification' ? message?.method : undefined) {
  const entry = entryFor(state, message, kind, method);
  if (!entry) return null;
  entry.callbackRan = true;
  const record = { seq: entry.seq, kind: entry.kind };
  if (entry.method !== undefined) record.method = entry.method;
  if (entry.id !== undefined) record.id = entry.id;
  if (entry.progressToken !== undefined) {
    record.progressToken = entry.progressToken;
    record.progress = 'lost';
  }
  state.callbacks.push(record);
  return record;
}

// Notification handlers are wrapped where they sit in the SDK's handler map,
// lazily: right before the SDK looks one up (in _onnotification, below), so
// handlers registered at any time are covered without touching Map#set.
// Progress notifications are the exception: every path to a request's
// onprogress (the SDK's own handler, and the patch's fast path, which only
// runs while that handler is the SDK's unwrapped one) goes through
// _onprogress, which is tapped instead (below).
function wrapNotificationHandler(state, handler) {
  if (typeof handler !== 'function' || state.originals.has(handler)) return handler;
  const wrapped = function tappedNotificationHandler(notification, ...rest) {
    if (state.active) recordCallback(state, notification, 'notification');
    return handler.call(this, notification, ...rest);
  };
  state.originals.set(wrapped, handler);
  return wrapped;
}

/** Wrap the handler the SDK is about to look up for `method`; whether there is one (or a fallback). */
function wrapHandlerFor(state, method) {
  const { protocol } = state;
  const map = notificationHandlersOf(protocol);
  if (!(map instanceof Map)) return false;
  const handler = MapGet.call(map, method);
  if (method !== PROGRESS_METHOD && typeof handler === 'function' && !state.originals.has(handler)) {
    MapSet.call(map, method, wrapNotificationHandler(state, handler));
  }
  return typeof handler === 'function' || typeof protocol[FALLBACK_NOTIFICATION_HANDLER] === 'function';
}

// While the handler of a progress notification runs, the request's
// onprogress (in the SDK's progress handler map, keyed by the token as the
// SDK keys it) is swapped for a stand-in that notes it was called.
// Map.prototype is used directly, so nothing else that watches that map sees the swap.
function withProgressProbe(state, record, run) {
  const map = progressHandlersOf(state.protocol);
  let key;
  let original;
  if (map instanceof Map) {
    for (const candidate of [Number(record.progressToken), record.progressToken]) {
      if (MapHas.call(map, candidate)) {
        key = candidate;
        original = MapGet.call(map, candidate);
        break;
      }
    }
  }
  if (typeof original !== 'function') return run();
  const standIn = function (...args) {
    record.progress = 'delivered';
    return original.apply(this, args);
  };
  MapSet.call(map, key, standIn);
  try {
    return run();
  } finally {
    if (MapGet.call(map, key) === standIn) MapSet.call(map, key, original);
  }
}

/** The fallback notification handler: wrap whatever is (or will be) assigned. */
function tapFallbackHandler(state) {
  const { protocol } = state;
  const name = FALLBACK_NOTIFICATION_HANDLER;
  const own = Object.getOwnPropertyDescriptor(protocol, name);
  if (own && !own.configurable) return;
  let value = protocol[name];
  let wrapped = wrapNotificationHandler(state, value);
  Object.defineProperty(protocol, name, {
    configurable: true,
    enumerable: own ? own.enumerable : true,
    get() {
      return state.active ? wrapped : value;
    },
    set(v) {
      value = v;
      wrapped = wrapNotificationHandler(state, v);
    },
  });
  state.restorers.push(() => {
    Object.defineProperty(protocol, name, {
      value,
      writable: true,
      configurable: true,
      enumerable: own ? own.enumerable : true,
    });
    if (!own && value === undefined) delete protocol[name];
  });
}

/**
 * The methods each inbound message reaches, in front of the class's (patched
 * or not): responses and requests count as called back there; a notification
 * when its handler runs, a progress notification when _onprogress runs.
 */
function tapInboundMethods(state) {
  for (const [kind, name] of Object.entries(INBOUND_METHODS)) {
    interpose(state, name, function (next, message, ...rest) {
      if (state.active && kind === 'notification') {
        // A notification with a handler is owed a callback from here on.
        const entry = message !== null && typeof message === 'object' ? state.entryOf.get(message) : undefined;
        if (wrapHandlerFor(state, message?.method) && entry) entry.awaitingCallback = true;
      } else if (state.active) {
        recordCallback(state, message, kind);
      }
      return next.call(this, message, ...rest);
    });
  }
  // Where a progress notification reaches the request's onprogress.
  interpose(state, ON_PROGRESS, function (next, notification, ...rest) {
    const record = state.active ? recordCallback(state, notification, 'notification', PROGRESS_METHOD) : null;
    if (!record) return next.call(this, notification, ...rest);
    return withProgressProbe(state, record, () => next.call(this, notification, ...rest));
  });
}

/** connect(): tap the transport before the SDK (or the patch) installs its routing; a live one now. */
function tapConnect(state) {
  interpose(state, 'connect', function (next, transport, ...rest) {
    if (state.active) tapTransport(state, transport);
    return next.call(this, transport, ...rest);
  });
  if (state.protocol.transport) tapTransport(state, state.protocol.transport);
}

/** On untap, the notification handlers wrapped in the SDK's map go back. */
function restoreNotificationHandlers(state) {
  const map = notificationHandlersOf(state.protocol);
  if (!(map instanceof Map)) return;
  for (const [method, handler] of map) {
    if (state.originals.has(handler)) MapSet.call(map, method, state.originals.get(handler));
  }
}

/**
 * @param {object} target a Client, Server or McpServer, connected or not yet
 * @returns {WireTap}
 */
function tapWire(target) {
  const protocol = protocolOf(target);
  if (protocol[kTap]) throw new Error('tapWire: this Client/Server is already tapped');
  const state = newTapState(protocol);
  tapFallbackHandler(state);
  tapInboundMethods(state);
  tapConnect(state);
  state.restorers.push(() => restoreNotificationHandlers(state));
  defineOwn(protocol, kTap, true);
  state.restorers.push(() => delete protocol[kTap]);
  return tapOf(state);
}

module.exports = { tapWire };
