// Runs one script against one SDK variant (test/patch/support/sdk-copies.mjs)
// and returns what the application saw, as streams of events. A script is
// the role under test ('client' or 'server'), the requests it sends first
// (`calls`, each with or without onprogress), what its onerror does
// (`onerrorThrows`), and the messages its peer then sends, split into reads
// (test/patch/support/protocol-script.mjs makes them).
//
// Delivery: a read is delivered by calling transport.onmessage once per
// message, one after another (as the SDK's stdio and other transports do
// after a read); between reads the event loop is drained. With `reenter`,
// the read's remaining messages are delivered from inside the first user
// callback that runs while its first message is dispatched (an onprogress,
// a notification handler, an onerror that does not throw).
//
// Must run where nothing else listens for process-level escapes (a child
// process, not a node:test file): an onerror that throws reaches
// 'unhandledRejection' and 'uncaughtException', which the runner records.
//
// The streams, each compared on its own (see normalise() and compare()):
//   e         synchronous user callbacks in order: onerror (its text),
//             notification handlers, onprogress, late progress
//   threw     what transport.onmessage threw (and 'uncaughtException')
//   unhandled unhandled rejections
//   async     onerror reports of handler promises that rejected
//   starts    request handler starts, in order
//   sent      replies sent (a multiset: sorted)
//   settled   how each call settled (a multiset: sorted)
//   all       every event above, in the order it happened (for the tests
//             that show where order differs; compare() leaves it out)
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ScriptedTransport } = require('../../support/scripted-transport.cjs');

const drain = () => new Promise((resolve) => setImmediate(resolve));

export const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token: ';
const REJECTED = 'rejected:';

// Process-level escapes, attributed to the run in progress.
let current;
let listening = false;
function listen() {
  if (listening) return;
  listening = true;
  process.on('unhandledRejection', (error) => {
    if (current) current.record('unhandled', describe(error));
    else throw error;
  });
  process.on('uncaughtException', (error) => {
    if (current) current.record('threw', describe(error));
    else throw error;
  });
}

function describe(error) {
  return error instanceof Error ? error.message : `non-error: ${String(error)}`;
}

/** Resolve the script's symbolic ids: { call: k } -> the id of call k. */
function resolve(value, ids) {
  if (Array.isArray(value)) return value.map((v) => resolve(v, ids));
  if (value === null || typeof value !== 'object') return value;
  if (Object.keys(value).length === 1 && 'call' in value) return ids[value.call];
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = resolve(v, ids);
  return out;
}

function setRequestHandler(sdk, protocol, method, handler) {
  if (sdk.generation === 2) return protocol.setRequestHandler(method, handler);
  const schema = { 'roots/list': sdk.types.ListRootsRequestSchema, 'tools/list': sdk.types.ListToolsRequestSchema }[method];
  return protocol.setRequestHandler(schema, handler);
}

function setNotificationHandler(sdk, protocol, method, handler) {
  if (sdk.generation === 2) return protocol.setNotificationHandler(method, handler);
  const schema = {
    'notifications/message': sdk.types.LoggingMessageNotificationSchema,
    'notifications/roots/list_changed': sdk.types.RootsListChangedNotificationSchema,
  }[method];
  return protocol.setNotificationHandler(schema, handler);
}

function sendRequest(sdk, protocol, options) {
  const request = { method: 'ping' };
  return sdk.generation === 1 ? protocol.request(request, sdk.types.EmptyResultSchema, options) : protocol.request(request, options);
}

/** Whether onerror throws for this error: a function of its text only, so every variant decides alike. */
export function onerrorThrowsFor(mode, text) {
  if (mode === 'always') return true;
  if (mode === 'some') {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
    return (h & 1) === 1;
  }
  return false;
}

/**
 * Run `script` on `sdk` ('patched' variants get configure()d so that late
 * progress is recorded: pass `configure`). Returns the streams.
 */
export async function runScript(sdk, script, { configure, reenter = false } = {}) {
  listen();
  const trace = { e: [], threw: [], unhandled: [], async: [], starts: [], sent: [], settled: [], all: [] };
  // Every event also goes to `all`, in the order it happened (not compared by compare()).
  const record = (stream, text) => {
    if (stream !== 'sent') trace[stream].push(text);
    trace.all.push(`${stream} ${text}`);
  };
  const transport = new ScriptedTransport();
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    if (current === trace) record('sent', JSON.stringify(message));
    return send(message);
  };
  const role = script.role;
  const info = { name: 'fuzz', version: '1.0.0' };
  const protocol =
    role === 'client'
      ? new sdk.Client(info, { capabilities: { roots: { listChanged: true } } })
      : new sdk.Server(info, { capabilities: { tools: {}, logging: {} } });
  configure?.(protocol, { onLateProgress: (n) => record('e', `late:${JSON.stringify(n.params?.progressToken)}`) });

  // Calls the script made before the peer's messages: their progress tokens, once issued.
  const issued = new Set();
  let pending = []; // the rest of a read, for `reenter`
  const deliverNested = () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    for (const message of batch) deliver(message);
  };
  const deliver = (message) => {
    try {
      transport.onmessage(message);
    } catch (error) {
      record('threw', describe(error));
    }
  };

  protocol.onerror = (error) => {
    const text = error.message;
    // Progress for a token that was issued and has retired: stock reports it
    // (unknown token), patched drops it quietly (README, "Progress after its
    // request finished"). Recorded alike, and never thrown for.
    if (text.startsWith(UNKNOWN_TOKEN)) {
      const token = JSON.parse(text.slice(UNKNOWN_TOKEN.length)).params?.progressToken;
      if (issued.has(token)) {
        record('e', `late:${JSON.stringify(token)}`);
        return;
      }
    }
    if (text.includes(REJECTED)) record('async', `onerror:${text}`);
    else record('e', `onerror:${text}`);
    if (onerrorThrowsFor(script.onerrorThrows, text)) throw new Error(`onerror threw for: ${text.slice(0, 80)}`);
    deliverNested();
  };

  const notificationHandler = (method) => (notification) => {
    const mode = notification.params?.data ?? notification.params?.mode;
    record('e', `notif:${method}:${JSON.stringify(notification.params ?? null)}`);
    if (mode === 'throw') throw new Error(`handler threw (${notification.method})`);
    if (mode === 'reject') return Promise.reject(new Error(`${REJECTED}${notification.method}`));
    if (mode === 'close') return protocol.close();
    deliverNested();
    return undefined;
  };
  // Request handlers: every second start throws (starts come in the same order in every variant).
  let starts = 0;
  const requestHandler = (method, result) => () => {
    record('starts', method);
    if (starts++ % 2 === 1) throw new Error(`${method} handler threw`);
    return result;
  };
  if (role === 'client') {
    setNotificationHandler(sdk, protocol, 'notifications/message', notificationHandler('message'));
    setRequestHandler(sdk, protocol, 'roots/list', requestHandler('roots/list', { roots: [] }));
  } else {
    setNotificationHandler(sdk, protocol, 'notifications/roots/list_changed', notificationHandler('roots'));
    setRequestHandler(sdk, protocol, 'tools/list', requestHandler('tools/list', { tools: [] }));
  }
  protocol.fallbackNotificationHandler = notificationHandler('fallback');
  protocol.onclose = () => record('e', 'onclose');

  await protocol.connect(transport);
  if (role === 'server') {
    deliver({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true } }, clientInfo: info } });
    await drain();
    deliver({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await drain();
  }

  // The calls.
  const before = transport.sent.length;
  const calls = script.calls.map((call, k) => {
    const options = call.progress ? { onprogress: (p) => { record('e', `progress:${k}:${JSON.stringify(p)}`); if (p.progress === 13) throw new Error('onprogress threw'); deliverNested(); } } : {};
    const promise = sendRequest(sdk, protocol, options);
    promise.then(
      (result) => record('settled', `${k}:ok:${JSON.stringify(result)}`),
      (error) => record('settled', `${k}:err:${error?.code}:${error?.message}`),
    );
    return promise;
  });
  await drain();
  const requests = transport.sent.slice(before).filter((m) => m.method === 'ping');
  if (requests.length !== calls.length) throw new Error(`sent ${requests.length} requests of ${calls.length}`);
  const ids = requests.map((m) => m.id);
  script.calls.forEach((call, k) => call.progress && issued.add(ids[k]));
  const sentBefore = transport.sent.length;

  current = trace;
  trace.record = record;
  try {
    for (const read of script.reads) {
      // A transport that closed reads no more.
      if (transport.closed) break;
      const messages = read.map((m) => resolve(m, ids));
      if (reenter && messages.length > 1) {
        pending = messages.slice(1);
        deliver(messages[0]);
        deliverNested();
      } else {
        for (const message of messages) deliver(message);
      }
      await drain();
      await drain();
    }
    await protocol.close();
    await drain();
    await drain();
  } finally {
    current = undefined;
  }
  delete trace.record;
  trace.sent = transport.sent.slice(sentBefore).map((m) => JSON.stringify(m)).sort();
  trace.settled.sort();
  return trace;
}

/** The script with each read split into one message per read: how stock is run. */
export function onePerRead(script) {
  return { ...script, reads: script.reads.flat().map((m) => [m]) };
}

const ORDERED = ['e', 'starts', 'async'];
const SORTED = ['threw', 'unhandled', 'sent', 'settled'];

/** The differences between two traces (an empty list when none), stream by stream. */
export function compare(a, b) {
  const out = [];
  for (const key of [...ORDERED, ...SORTED]) {
    const x = SORTED.includes(key) ? [...a[key]].sort() : a[key];
    const y = SORTED.includes(key) ? [...b[key]].sort() : b[key];
    const n = Math.max(x.length, y.length);
    for (let i = 0; i < n; i++) {
      if (x[i] !== y[i]) {
        out.push({ stream: key, index: i, a: x[i], b: y[i] });
        break;
      }
    }
  }
  return out;
}
