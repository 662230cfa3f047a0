'use strict';
// patchProtocol(Protocol): route a Protocol class's inbound path through the
// native Dispatcher. Three things change, and nothing else:
//   1. connect(): the routing closure the SDK installs on transport.onmessage
//      (zod type guards, then _onresponse/_onrequest/_onnotification) is
//      replaced by one that hands each message to a per-connection native
//      Dispatcher, which classifies it and calls back in wire order.
//   2. _onnotification(): runs the handler synchronously instead of a
//      microtask later (the generation's adapter, lib/adapters/v1.cjs and
//      v2.cjs, with invokeHandler() below running the handler).
//   3. _onprogress() and setNotificationHandler(): follow the progress-token
//      lifecycle (lib/progress/tokens.cjs), so progress after its request
//      finished is dropped quietly.
// _onresponse, _onrequest and every subclass override stay the SDK's.

const native = require('../native/addon.cjs');
const { notificationHandlerError, unknownMessageError } = require('../adapters/common.cjs');
const { notificationDispatch, generationOfShape } = require('../adapters/upstream.cjs');
const progress = require('../progress/tokens.cjs');
const stdioAdapter = require('../adapters/stdio.cjs');
const { UnsupportedSdkError, describeSource, patchRecordOf, replaceMethods } = require('./records.cjs');
const fixEnv = require('./fix-env.cjs');

// Each adapter loads when a class is first checked against it, the one for
// the generation the class's shape names first: a process that loads only
// copies of one generation never loads the other's adapter.
const ADAPTERS = { 2: () => require('../adapters/v2.cjs'), 1: () => require('../adapters/v1.cjs') };
const kPatch = Symbol.for('mcp-ordered-dispatch.patch');

function describe(source) {
  return describeSource(source, 'this Protocol class');
}

/** The adapter that recognises `Protocol`, or an UnsupportedSdkError saying why none does. */
function selectAdapter(Protocol, source) {
  if (typeof Protocol !== 'function' || Protocol.prototype === null || typeof Protocol.prototype !== 'object') {
    return new UnsupportedSdkError(
      `mcp-ordered-dispatch: ${describe(source)} is not a Protocol class (got ${typeof Protocol})`,
    );
  }
  const reasons = {};
  const likely = generationOfShape(Protocol);
  for (const generation of [likely, 3 - likely]) {
    const adapter = ADAPTERS[generation]();
    const why = adapter.refuse(Protocol);
    if (why === null) return adapter;
    reasons[generation] = `${generation}.x: ${why}`;
  }
  return new UnsupportedSdkError(
    `mcp-ordered-dispatch: ${describe(source)} is not supported; its Protocol does not have the shape ` +
      `of a supported MCP SDK (${reasons[2]}; ${reasons[1]}), and it does not dispatch notifications in wire order ` +
      'itself (as an SDK release with the upstream fix does). Nothing was patched. ' +
      'Supported: @modelcontextprotocol/sdk 1.x, @modelcontextprotocol/client and @modelcontextprotocol/server 2.x.',
  );
}

// Stock's routing closure has no try/catch: whatever _onresponse, _onrequest,
// the synchronous part of _onnotification or _onerror throws (a user onerror
// that throws, above all) leaves transport.onmessage. So each callback keeps
// what it threw, the Dispatcher goes on with the rest of its queue, and the
// outermost orderedOnMessage rethrows it once the queue is empty (see
// interceptRouting). A notification handler's own failure never gets here:
// invokeHandler reports it as the SDK does.
function keep(state, error) {
  if (state.escapes === undefined) state.escapes = [error];
  else state.escapes.push(error);
}

function dispatcherFor(protocol, state, generation) {
  // The Dispatcher's front end (lib/classify/dispatch.cjs) loads when the
  // first Protocol connects, not when the SDK loads.
  const Dispatcher = require('../classify/dispatch.cjs').dispatcherClass();
  return new Dispatcher({
    // The classifier mirrors the SDK generation's own schemas.
    sdk: generation,
    onResponse: progress.answeredBy(state, (message) => {
      try {
        if (progress.isExpectedLateResponse(protocol, state, message)) return;
        protocol._onresponse(message);
      } catch (error) {
        keep(state, error);
      }
    }),
    onRequest: (message, extra) => {
      try {
        protocol._onrequest(message, extra);
      } catch (error) {
        keep(state, error);
      }
    },
    onNotification: (message, extra, plainProgress) => {
      // Rust found a plain progress notification: the adapter may skip zod (lib/progress/tokens.cjs).
      state.plainProgress = plainProgress ? message : undefined;
      try {
        protocol._onnotification(message, extra);
      } catch (error) {
        keep(state, error);
      }
    },
    onInvalid: (message) => {
      try {
        protocol._onerror(unknownMessageError(message));
      } catch (error) {
        keep(state, error);
      }
    },
    // The callbacks above catch what they throw; this is the Dispatcher's own net.
    onError: (error, kind) => protocol._onerror(kind === 'notification' ? notificationHandlerError(error) : error),
  });
}

/**
 * Report a notification handler's failure as the SDK's deferred
 * `.catch(error => this._onerror(...))` does: if onerror itself throws,
 * that becomes an unhandled rejection, as the SDK's promise chain makes it.
 */
function reportAsStock(protocol, error) {
  try {
    progress.reportHandlerError(protocol, error);
  } catch (thrown) {
    Promise.reject(thrown);
  }
}

function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';
}

/**
 * Run a notification handler now, in wire order. A synchronous throw or a
 * rejected promise reaches the protocol's onerror exactly as the SDK words it.
 * `withCodec` keeps the SDK's call shape: 2.x calls registered handlers as
 * `handler(notification, codec)` and the fallback as `fallback(notification)`.
 */
function invokeHandler(protocol, handler, notification, codec, withCodec = false) {
  let result;
  try {
    result = withCodec ? handler(notification, codec) : handler(notification);
  } catch (error) {
    reportAsStock(protocol, error);
    return;
  }
  if (isThenable(result)) {
    // onerror throwing here rejects the promise then() returns, unhandled, as in the SDK.
    result.then(undefined, (error) => progress.reportHandlerError(protocol, error));
  }
}

/** What the adapters' methods run (see lib/adapters/v1.cjs's methods()). */
const RUN = Object.freeze({
  invokeHandler,
  tryPlainProgress: (protocol, handler, notification) => progress.tryPlainProgress(protocol, handler, notification, reportAsStock),
});

/**
 * Make `transport.onmessage = sdkRouting` (done by the SDK's connect before
 * it starts the transport) install our routing instead. The SDK reads the
 * previous onmessage first and calls it before routing; ours does the same.
 * Returns a function that undoes the interception if the SDK never assigned.
 */
function interceptRouting(protocol, transport, generation) {
  const own = Object.getOwnPropertyDescriptor(transport, 'onmessage');
  if (own && !own.configurable) return () => {};
  const readPrevious = () => (own ? (own.get ? own.get.call(transport) : own.value) : undefined);
  let assigned = false;
  const restore = () => {
    if (own) Object.defineProperty(transport, 'onmessage', own);
    else delete transport.onmessage;
  };
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get() {
      return own ? readPrevious() : Reflect.get(Object.getPrototypeOf(transport) ?? {}, 'onmessage', transport);
    },
    set(_sdkRouting) {
      const previous = this.onmessage;
      assigned = true;
      restore();
      // One Dispatcher per instance, kept across reconnects.
      const state = progress.stateOf(protocol);
      state.dispatcher ??= dispatcherFor(protocol, state, generation);
      const dispatcher = state.dispatcher;
      // With the report on, wrapped to count reads (lib/progress/tokens.cjs).
      transport.onmessage = progress.countReads(state, function orderedOnMessage(message, extra) {
        previous?.(message, extra);
        // The read buffer it came from, if any (stdio: a native one hands
        // over the framer's classification, lib/patch/transports.cjs).
        const source = stdioAdapter.handoffSourceOf(transport);
        // From inside a callback: queued, it runs right after it; what it
        // throws leaves the outermost call.
        if (state.depth > 0) {
          dispatcher._dispatchFrom(source, message, extra);
          return undefined;
        }
        state.depth++;
        try {
          dispatcher._dispatchFrom(source, message, extra);
        } finally {
          state.depth--;
        }
        const escapes = state.escapes;
        if (escapes === undefined) return undefined;
        state.escapes = undefined;
        // Stock throws each out of its own onmessage call; one call can throw
        // only one, so any other (messages queued from inside a callback) is thrown a microtask later.
        for (let i = 1; i < escapes.length; i++) queueMicrotask(() => { throw escapes[i]; });
        throw escapes[0];
      });
    },
  });
  return () => {
    if (!assigned) restore();
  };
}

/**
 * Run `connect` (a connect() about to start `transport`) the way every
 * patched connect() starts one: first what register asks of the transport
 * (beforeConnect: its stdio class patched in time), then with this thread
 * marked as starting a transport for its first turn (lib/patch/fix-env.cjs:
 * a child started then is its MCP server).
 */
function connectStarting(record, transport, connect) {
  const before = record?.beforeConnect;
  if (before !== undefined) {
    try {
      before(transport);
    } catch {
      // What register asks of a transport is never worth a connection.
    }
  }
  return fixEnv.whileConnecting(connect);
}

function patchedConnect(originalConnect, generation, recordOf) {
  return function connect(transport, ...rest) {
    if (transport === null || (typeof transport !== 'object' && typeof transport !== 'function')) {
      return originalConnect.call(this, transport, ...rest);
    }
    progress.instrumentProgressHandlers(this, progress.stateOf(this));
    const release = interceptRouting(this, transport, generation);
    try {
      return connectStarting(recordOf(), transport, () => originalConnect.call(this, transport, ...rest));
    } finally {
      // connect() assigns onmessage synchronously, before its first await;
      // if it threw first (e.g. already connected), leave the transport as it was.
      release();
    }
  };
}

/**
 * A subclass's own connect() runs before the patched one and may start the
 * transport itself: 2.x's Client.connect() negotiates the protocol version
 * on it first, and calls Protocol's connect() only after. Each such
 * override, between `instance`'s class and `proto`, is wrapped once (when an
 * instance is constructed) to start its transport as the patched one does.
 * Only where that matters: register asks something of transports, or this
 * thread took run's variables out. Unpatching restores them.
 */
function coverOverrides(instance, proto, record) {
  if ((record.beforeConnect === undefined && !fixEnv.tookOut()) || !Object.prototype.isPrototypeOf.call(proto, instance)) return;
  for (let p = Object.getPrototypeOf(instance); p !== null && p !== proto && !record.overridesSeen.has(p); p = Object.getPrototypeOf(p)) {
    record.overridesSeen.add(p);
    const own = Object.getOwnPropertyDescriptor(p, 'connect');
    if (own === undefined || typeof own.value !== 'function' || !own.writable || !own.configurable) continue;
    const override = own.value;
    const wrapper = {
      connect(transport, ...rest) {
        return connectStarting(record, transport, () => override.call(this, transport, ...rest));
      },
    }.connect;
    // The override's name and length (docs/how-it-works.md, "Differences from stock").
    Object.defineProperty(wrapper, 'name', { value: override.name });
    Object.defineProperty(wrapper, 'length', { value: override.length });
    Object.defineProperty(p, 'connect', { ...own, value: wrapper });
    record.overrides.push([p, own]);
  }
}

/**
 * Patch `Protocol` (idempotent). Returns a function that restores the
 * original methods. A class that already dispatches notifications in wire
 * order (fixed upstream) is left stock; the function returned does nothing.
 * Throws UnsupportedSdkError, patching nothing, when the class is neither.
 */
function patchProtocol(Protocol, options = {}) {
  const existing = patchRecord(Protocol);
  if (existing) return existing.unpatch;
  const status = sdkStatus(Protocol, options.source);
  if (status instanceof Error) throw status;
  // An SDK that already dispatches in wire order is left stock, quietly.
  if (status.status === 'fixed-upstream') return leftStock;
  native.load(); // a NativeAddonError when no addon loads
  const adapter = status.adapter;
  const proto = Protocol.prototype;

  const original = {
    connect: proto.connect,
    _onnotification: proto._onnotification,
    _onprogress: proto._onprogress,
    setNotificationHandler: proto.setNotificationHandler,
  };
  let record;
  const setNotificationHandler = progress.makeSetNotificationHandler(original.setNotificationHandler);
  const replacement = {
    connect: patchedConnect(original.connect, adapter.generation, () => record),
    _onprogress: progress.makeOnProgress(original._onprogress),
    // The Protocol constructor registers its own notification handlers: each new instance's class is known here first.
    setNotificationHandler: {
      setNotificationHandler(...args) {
        coverOverrides(this, proto, record);
        return setNotificationHandler.apply(this, args);
      },
    }.setNotificationHandler,
    ...adapter.methods(original, RUN),
  };
  record = replaceMethods(proto, kPatch, replacement, { generation: adapter.generation, source: options.source, overrides: [], overridesSeen: new WeakSet() });
  const unpatchMethods = record.unpatch;
  record.unpatch = () => {
    if (proto[kPatch] === record) for (const [p, own] of record.overrides.splice(0)) Object.defineProperty(p, 'connect', own);
    unpatchMethods();
  };
  return record.unpatch;
}

/**
 * Have `fn(transport)` called with each transport a Protocol class patched
 * here connects, before the SDK's connect() starts it (register's, in a
 * Bun-compiled executable: lib/patch/receiver.cjs). Nothing for a class not patched.
 */
function beforeConnect(Protocol, fn) {
  const record = patchRecord(Protocol);
  if (record !== undefined) record.beforeConnect = fn;
}

function patchRecord(Protocol) {
  return patchRecordOf(Protocol, kPatch);
}

function isPatched(Protocol) {
  return patchRecord(Protocol) !== undefined;
}

function leftStock() {}

// Protocol class -> what the behavioural probe said (it constructs an instance: once per class).
const dispatchOf = new WeakMap();

/**
 * Where a Protocol class stands: { status: 'patched', generation } (by us),
 * { status: 'fixed-upstream', generation } (it already runs notification
 * handlers in wire order: left stock), { status: 'patchable', generation,
 * adapter }, or an UnsupportedSdkError saying why it is none of these.
 */
function sdkStatus(Protocol, source) {
  const record = patchRecord(Protocol);
  if (record) return { status: 'patched', generation: record.generation };
  if (typeof Protocol === 'function' && Protocol.prototype !== null && typeof Protocol.prototype === 'object') {
    let dispatch = dispatchOf.get(Protocol);
    if (dispatch === undefined) {
      dispatch = notificationDispatch(Protocol);
      dispatchOf.set(Protocol, dispatch);
    }
    if (dispatch === 'in-order') return { status: 'fixed-upstream', generation: generationOfShape(Protocol) };
  }
  const adapter = selectAdapter(Protocol, source);
  if (adapter instanceof Error) return adapter;
  return { status: 'patchable', generation: adapter.generation, adapter };
}

/** The native Dispatcher a connected Client/Server routes through, if any. */
function dispatcherOf(protocol) {
  return protocol?.[progress.kState]?.dispatcher;
}

module.exports = { patchProtocol, isPatched, beforeConnect, sdkStatus, dispatcherOf, UnsupportedSdkError };
