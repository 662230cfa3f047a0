'use strict';
// Adapter for the SDK's stdio transports (1.x `StdioClientTransport` /
// `StdioServerTransport`, 2.x `@modelcontextprotocol/client/stdio` and
// `@modelcontextprotocol/server/stdio`; ESM and CJS builds): what lib/patch/transports.cjs
// needs to know about them to swap their ReadBuffer for a NativeReadBuffer -
// the shape of a transport class it can patch, how an instance keeps its
// stock ReadBuffer (and that buffer's limit and held bytes), which generation
// a ReadBuffer is, and where SDK releases' message schemas differ.

const { sourceOf, RELATED_TASK } = require('./common.cjs');

/** The SDK's STDIO_DEFAULT_MAX_BUFFER_SIZE. */
const DEFAULT_MAX_BUFFER_SIZE = 10 * 1024 * 1024;

/**
 * What the SDK's ReadBuffer.append() throws when the incomplete line it
 * holds plus a new chunk exceed its limit (1.24+; the transport then reports
 * it and closes).
 */
function readBufferOverflow(maxBufferSize) {
  return new Error(`ReadBuffer exceeded maximum size of ${maxBufferSize} bytes`);
}

/** Why `Transport` is not an SDK stdio transport whose ReadBuffer can be swapped, or null. */
function whyNotStdioTransport(Transport) {
  if (typeof Transport !== 'function' || Transport.prototype === null || typeof Transport.prototype !== 'object') {
    return `it is not a class (got ${typeof Transport})`;
  }
  const proto = Transport.prototype;
  for (const name of ['start', 'close', 'send', 'processReadBuffer']) {
    if (typeof proto[name] !== 'function') return `${Transport.name || 'the class'}.prototype.${name} is missing`;
  }
  if (!/this\._readBuffer\.readMessage\(\)/.test(sourceOf(proto.processReadBuffer))) {
    return 'processReadBuffer() does not read this._readBuffer.readMessage()';
  }
  // The client appends in start(); the server in its _ondata arrow function
  // (constructor or class field), so look at the whole class too.
  const text = sourceOf(Transport) + sourceOf(proto.start);
  // `new ReadBuffer(`, or whatever a minifier renamed the class to: the property is what counts.
  // SDK 1.0-1.23 write `new ReadBuffer()`, which a minifier prints as `new X` with no parentheses.
  if (!/this\._readBuffer\s*=\s*new\s+[\w$.]+\s*(?:\(|[;,)}]|$)/m.test(text)) return 'it does not create a ReadBuffer as this._readBuffer';
  if (!/this\._readBuffer\.append\(/.test(text)) return 'it does not append chunks to this._readBuffer';
  return null;
}

/** A transport's class -> what stdioClassOf() found for it (an HTTP transport may connect again and again). */
const stdioClasses = new WeakMap();

/**
 * The SDK stdio transport class `transport` is an instance of: the farthest
 * ancestor of its class that is one (a host's subclass inherits the SDK's
 * start()), or undefined.
 */
function stdioClassOf(transport) {
  const Class = transport !== null && typeof transport === 'object' ? transport.constructor : undefined;
  if (typeof Class !== 'function') return undefined;
  if (stdioClasses.has(Class)) return stdioClasses.get(Class);
  let found;
  for (let C = Class, depth = 0; typeof C === 'function' && C !== Function.prototype && depth < 32; C = Object.getPrototypeOf(C), depth++) {
    if (whyNotStdioTransport(C) === null) found = C;
  }
  stdioClasses.set(Class, found);
  return found;
}

/** The SDK generation of a stock ReadBuffer: 2.x's readMessage skips lines that are not JSON. */
function generationOfReadBuffer(readBuffer) {
  const readMessage = readBuffer?.readMessage;
  return typeof readMessage === 'function' && /instanceof\s+SyntaxError/.test(sourceOf(readMessage)) ? 2 : 1;
}

function looksLikeReadBuffer(value) {
  return value !== null && typeof value === 'object' && typeof value.append === 'function' && typeof value.readMessage === 'function' && typeof value.clear === 'function';
}

/** A transport instance's ReadBuffer (stock, or one swapped in), or undefined if it has none of that interface. */
function readBufferOf(transport) {
  const buffer = transport._readBuffer;
  return looksLikeReadBuffer(buffer) ? buffer : undefined;
}

/**
 * Per message, on the routing path: whatever the transport holds as its read
 * buffer, unchecked - the Dispatcher takes a hand-off from it only when the
 * message is the very object that buffer last returned (lib/native/addon.cjs).
 */
function handoffSourceOf(transport) {
  return transport._readBuffer;
}

/**
 * The stream a transport instance reads (a client's child stdout, a
 * server's stdin), or undefined before it has one.
 */
function inputStreamOf(transport) {
  return transport._process?.stdout ?? transport._stdin ?? undefined;
}

// The SDK transport classes' own ReadBuffer class, learned once per class.
const ownReadBuffers = new WeakMap();

/**
 * The class of the ReadBuffer an SDK stdio transport class itself creates,
 * or undefined when it cannot be learned. Learned from an instance made
 * with inert arguments (the constructors only store them; nothing starts,
 * no stream is touched): the base class's constructor, never a subclass's.
 */
function ownReadBufferClass(Transport) {
  if (ownReadBuffers.has(Transport)) return ownReadBuffers.get(Transport);
  let Own;
  try {
    const inert = Object.freeze({});
    Own = readBufferOf(Reflect.construct(Transport, [inert, inert]))?.constructor;
  } catch {
    Own = undefined;
  }
  ownReadBuffers.set(Transport, Own);
  return Own;
}

/**
 * Whether the host owns this transport's read buffer: hosts subclass the
 * SDK's transports and put a buffer of their own in `_readBuffer`, and may
 * check later that it is still theirs (Claude Code's client transport
 * throws after start() when it is no longer its BoundedReadBuffer). True
 * when the instance's buffer is not of the class the SDK's own `Transport`
 * creates, or when any subclass between the instance's class and
 * `Transport` names `_readBuffer` in its text.
 */
function hostOwnsReadBuffer(transport, Transport) {
  const stock = transport._readBuffer;
  const Own = ownReadBufferClass(Transport);
  if (Own === undefined || stock?.constructor !== Own) return true;
  for (let C = transport.constructor; typeof C === 'function' && C !== Transport; C = Object.getPrototypeOf(C)) {
    if (/\b_readBuffer\b/.test(sourceOf(C))) return true;
  }
  return false;
}

function setReadBuffer(transport, buffer) {
  transport._readBuffer = buffer;
}

/**
 * What a stock ReadBuffer holds and allows: { maxBufferSize, held, generation, Reference }.
 * Its own limit, whatever it is (releases before 1.24 have none, and
 * `n > undefined` is false there: no limit, Infinity); the bytes it already
 * holds (none before start()); its class, whose own parse is the reference.
 */
function stockReadBuffer(stock) {
  return {
    maxBufferSize: typeof stock._maxBufferSize === 'number' ? stock._maxBufferSize : Infinity,
    held: stock._buffer && stock._buffer.length > 0 ? stock._buffer : undefined,
    generation: generationOfReadBuffer(stock),
    Reference: stock.constructor,
  };
}

// Lines on which SDK releases' JSONRPCMessageSchema differ (older 1.x
// releases: an error response without id, ids and progress tokens beyond
// safe integers, odd related-task objects, ...). The framer mirrors the
// newest releases; a release that judges any of these differently gets
// verify mode (lib/patch/transports.cjs). Every line here is valid JSON.
const CANARIES = [
  '{"jsonrpc":"2.0","error":{"code":1,"message":""}}',
  '{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":""}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":""}}',
  '{"jsonrpc":"2.0","id":1e+21,"method":"m"}',
  '{"jsonrpc":"2.0","id":1e+21,"result":{}}',
  '{"jsonrpc":"2.0","id":1.5,"method":"m"}',
  '{"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":true}}}',
  '{"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":1.5}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":true}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":1e+21}}}',
  '{"jsonrpc":"2.0","method":"m","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":null}}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/related-task":{}}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":null}}',
  '{"jsonrpc":"2.0","method":"m","params":{"_meta":[]}}',
  '{"jsonrpc":"2.0","id":1,"method":"m","extra":1}',
  '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","method":"m","params":[]}',
];

function keepOnly(object, keys) {
  const out = {};
  for (const key of keys) if (Object.prototype.hasOwnProperty.call(object, key)) out[key] = object[key];
  return out;
}

/**
 * Without the SDK's ReadBuffer at hand: drop what the current SDKs' schemas
 * drop (unknown keys of error; of the related-task object in params._meta,
 * and under 1.x in result._meta too).
 */
function stripLikeSchema(message, sdk) {
  if (message.error !== null && typeof message.error === 'object' && !Array.isArray(message.error)) {
    message.error = keepOnly(message.error, ['code', 'message', 'data']);
  }
  for (const part of sdk === 1 ? [message.params, message.result] : [message.params]) {
    const task = part?._meta?.[RELATED_TASK];
    if (task !== null && typeof task === 'object' && !Array.isArray(task)) part._meta[RELATED_TASK] = keepOnly(task, ['taskId']);
  }
  return message;
}

/**
 * Where a client transport keeps what it spawns its server with ({ command,
 * args, env, ... }): an own data property of the instance in every release.
 */
const SERVER_PARAMS = '_serverParams';

/** The SDK's DEFAULT_INHERITED_ENV_VARS: what a server is given when the host gives no `env`. */
const DEFAULT_INHERITED_ENV_VARS = process.platform === 'win32'
  ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
  : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** The SDK's getDefaultEnvironment() of `env`: the inherited variables, shell functions left out. */
function defaultEnvironment(env) {
  const out = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = env[key];
    if (value !== undefined && !value.startsWith('()')) out[key] = value;
  }
  return out;
}

module.exports = {
  SERVER_PARAMS,
  defaultEnvironment,
  DEFAULT_MAX_BUFFER_SIZE,
  readBufferOverflow,
  whyNotStdioTransport,
  stdioClassOf,
  readBufferOf,
  handoffSourceOf,
  setReadBuffer,
  hostOwnsReadBuffer,
  inputStreamOf,
  stockReadBuffer,
  CANARIES,
  stripLikeSchema,
};
