'use strict';
// The replay's script and session: what the recorded server sent, cut into
// answers, and the ReplaySession that matches a live client's messages to
// them (lib/testing/cassette-player.cjs serves it on stdio or in process).
//
// What the recorded server sent is cut into answers: everything it sent after
// a client request (up to and including its response; its progress
// notifications by token; any other notification or server-to-client request
// until the client's next message) is that request's answer, and what it sent
// after a client notification is that notification's answer. A live request
// is matched to a recorded one by method and by order among the requests of
// that method, and gets that answer with the recorded request id and
// progress token rewritten to the live ones. Live answers to the server's own
// requests are consumed. A request with no recorded match gets a JSON-RPC
// error naming the cassette and the request (an unmatched ping gets `{}`).

const { loadCassette, timeline } = require('./cassette.cjs');
const { parseMode, planWrites, rngFor } = require('./coalesce.cjs');
const { PROGRESS_METHOD } = require('../adapters/common.cjs');

/** The JSON-RPC error code of the answer to a request the cassette has no match for. */
const NO_RECORDED_MATCH = -32001;
const ANSWER_TIMEOUT_MS = 10_000;
const GAP_PREFIX = 'mcp-ordered-dispatch-replay-gap-';

const keyOf = (id) => JSON.stringify(id);
const tokenOf = (message) => message?.params?._meta?.progressToken;

/** The answers of a cassette: { preamble, requests: Map<method, [answer]>, notifications: Map<method, [answer]> }. */
function buildScript(cassette) {
  const lines = timeline(cassette);
  const preamble = { kind: 'preamble', lines: [] };
  const requests = new Map();
  const notifications = new Map();
  const byId = new Map();
  const byToken = new Map();
  const serverRequests = new Map();
  let anchor = preamble;
  const push = (map, method, answer) => {
    if (!map.has(method)) map.set(method, []);
    map.get(method).push(answer);
  };
  for (const line of lines) {
    const message = line.message;
    if (line.from === 'client') {
      if (line.kind === 'request') {
        const answer = { kind: 'request', method: message.method, id: message.id, token: tokenOf(message), request: message, lines: [], responded: false, cancelled: false };
        push(requests, message.method, answer);
        byId.set(keyOf(message.id), answer);
        if (answer.token !== undefined && answer.token !== null) byToken.set(keyOf(answer.token), answer);
        anchor = answer;
      } else if (line.kind === 'notification') {
        const answer = { kind: 'notification', method: message.method, lines: [] };
        push(notifications, message.method, answer);
        if (message.method === 'notifications/cancelled') {
          const cancelled = byId.get(keyOf(message.params?.requestId));
          if (cancelled) cancelled.cancelled = true;
        }
        anchor = answer;
      } else if (line.kind === 'response') {
        // The client answered a server-to-client request: if the server sent
        // nothing since, it waited for this answer.
        const asked = serverRequests.get(keyOf(message.id));
        if (asked && asked.answer.lines.at(-1) === asked.line) asked.line.awaitsAnswer = message.id;
        serverRequests.delete(keyOf(message.id));
      }
      continue;
    }
    if (line.kind === 'response') {
      const answer = byId.get(keyOf(message.id));
      if (answer && !answer.responded) {
        answer.lines.push(line);
        answer.responded = true;
        continue;
      }
    } else if (line.kind === 'notification' && message.method === PROGRESS_METHOD) {
      const answer = byToken.get(keyOf(message.params?.progressToken));
      if (answer) {
        answer.lines.push(line);
        continue;
      }
    }
    anchor.lines.push(line);
    if (line.kind === 'request') serverRequests.set(keyOf(message.id), { line, answer: anchor });
  }
  return { name: cassette.name, header: cassette.header, preamble, requests, notifications };
}

function describeRequest(message) {
  let params = message.params === undefined ? '' : JSON.stringify(message.params);
  if (params.length > 200) params = params.slice(0, 200) + '…';
  return `${message.method} (id ${JSON.stringify(message.id)}${params ? `, params ${params}` : ''})`;
}

function errorLine(id, message, data) {
  return { jsonrpc: '2.0', id, error: { code: NO_RECORDED_MATCH, message, data } };
}

/**
 * The lines of a recorded answer for a live request: ids and progress
 * tokens rewritten (a rewritten line keeps its recorded chunk starts; the
 * `recorded` mode clamps them to its new length).
 */
function rewrite(answer, live) {
  const liveToken = live ? tokenOf(live) : undefined;
  const out = [];
  for (const line of answer.lines) {
    const message = line.message;
    if (live && line.kind === 'response' && message.id === answer.id && live.id !== answer.id) {
      out.push({ ...line, bytes: Buffer.from(JSON.stringify({ ...message, id: live.id }) + '\n') });
      continue;
    }
    if (live && line.kind === 'notification' && message.method === PROGRESS_METHOD && answer.token !== undefined && message.params?.progressToken === answer.token) {
      // The live request asked for no progress: the server would have sent none.
      if (liveToken === undefined || liveToken === null) continue;
      if (liveToken !== answer.token) {
        const copy = { ...message, params: { ...message.params, progressToken: liveToken } };
        out.push({ ...line, bytes: Buffer.from(JSON.stringify(copy) + '\n') });
        continue;
      }
    }
    out.push(line);
  }
  return out;
}

/**
 * One replay: feed it what the live client sends (`receive(message)`), and
 * it sends the recorded answers through `io.write(bytes)` (and pings through
 * `io.write` too, when the gap is 'ping').
 */
class ReplaySession {
  constructor(cassette, options, io) {
    this.script = buildScript(loadCassette(cassette));
    this.mode = parseMode(options.coalesce ?? 'separate');
    this.rng = this.mode.name === 'random' ? rngFor(this.mode.seed) : undefined;
    this.gap = options.gap ?? 'immediate';
    this.timing = options.timing === true ? 1 : options.timing || 0;
    this.io = io;
    this.used = { requests: new Map(), notifications: new Map() };
    this.waiting = new Map(); // id -> resolve
    this.timers = new Set();
    this.queue = Promise.resolve();
    this.closed = false;
    this.gapSeq = 0;
    this.inputEnded = false;
    if (this.script.preamble.lines.length > 0) this.enqueue(this.script.preamble.lines);
  }

  get cassetteName() {
    return this.script.name;
  }

  nth(kind, method) {
    const used = this.used[kind];
    const n = used.get(method) ?? 0;
    used.set(method, n + 1);
    return n;
  }

  receive(message) {
    if (this.closed || message === null || typeof message !== 'object') return;
    const isRequest = typeof message.method === 'string' && message.id !== undefined && message.id !== null;
    if (isRequest) {
      const recorded = this.script.requests.get(message.method) ?? [];
      const n = this.nth('requests', message.method);
      const answer = recorded[n];
      if (!answer) {
        if (message.method === 'ping') {
          this.enqueueMessage({ jsonrpc: '2.0', id: message.id, result: {} });
          return;
        }
        const text = `mcp-ordered-dispatch replay: the cassette ${this.cassetteName} has no recorded match for request ${describeRequest(message)}: ` +
          `it recorded ${recorded.length} ${message.method} request(s), and this is number ${n + 1}`;
        this.enqueueMessage(errorLine(message.id, text, { cassette: this.cassetteName, method: message.method, index: n }));
        return;
      }
      const lines = rewrite(answer, message);
      this.enqueue(lines);
      if (!answer.responded && !answer.cancelled) {
        this.enqueueMessage(errorLine(message.id, `mcp-ordered-dispatch replay: the cassette ${this.cassetteName} recorded no response to ${describeRequest(answer.request)}`, { cassette: this.cassetteName, method: message.method, index: n }));
      }
      return;
    }
    if (typeof message.method === 'string') {
      const recorded = this.script.notifications.get(message.method) ?? [];
      const answer = recorded[this.nth('notifications', message.method)];
      if (answer && answer.lines.length > 0) this.enqueue(rewrite(answer, undefined));
      return;
    }
    // An answer to one of the server's requests (or a gap ping): consumed.
    const resolve = this.waiting.get(keyOf(message.id));
    if (resolve) {
      this.waiting.delete(keyOf(message.id));
      resolve();
    }
  }

  enqueueMessage(message) {
    this.enqueue([{ bytes: Buffer.from(JSON.stringify(message) + '\n'), kind: 'response', t: 0 }]);
  }

  enqueue(lines) {
    if (lines.length === 0) return;
    const writes = planWrites(lines, this.mode, this.rng);
    this.queue = this.queue.then(() => this.emit(writes)).catch((error) => this.io.error?.(error));
  }

  async emit(writes) {
    for (let i = 0; i < writes.length; i++) {
      if (this.closed) return;
      const write = writes[i];
      if (i > 0) await this.pause(writes[i - 1], write);
      if (this.closed) return;
      await this.io.write(write.bytes);
      for (const id of write.awaits) await this.answerOf(id);
    }
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  /** Resolves when the live client answers request `id` (or after ANSWER_TIMEOUT_MS, or on close). */
  answerOf(id, timeout = ANSWER_TIMEOUT_MS) {
    if (this.closed || this.inputEnded) return Promise.resolve();
    return new Promise((resolve) => {
      const key = keyOf(id);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.waiting.get(key) !== done) return;
        this.waiting.delete(key);
        this.io.warn?.(`no answer to request ${key} after ${timeout} ms; going on`);
        resolve();
      }, timeout);
      this.timers.add(timer);
      const done = () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve();
      };
      this.waiting.set(key, done);
    });
  }

  async pause(previous, next) {
    if (this.mode.name === 'recorded') {
      if (this.timing > 0 && next.t > previous.t) return this.sleep(Math.min((next.t - previous.t) * this.timing, 10_000));
      return this.io.turn();
    }
    if (this.mode.name === 'random' || !previous.boundary) return this.io.turn();
    if (this.gap === 'ping') {
      const id = `${GAP_PREFIX}${++this.gapSeq}`;
      const answered = this.answerOf(id);
      await this.io.write(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n'));
      return answered;
    }
    if (typeof this.gap === 'number') return this.sleep(this.gap);
    return this.io.turn();
  }

  /** Stop: nothing more is sent; waits end. Resolves when what was under way has stopped. */
  close() {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
    return this.queue;
  }

  /** The client can answer no more: what is queued goes out without waiting for answers or pings. */
  endInput() {
    this.inputEnded = true;
    if (this.gap === 'ping') this.gap = 'immediate';
    for (const resolve of this.waiting.values()) resolve();
    this.waiting.clear();
  }

  /** Resolves once everything queued so far has been sent. */
  drain() {
    return this.queue;
  }
}

module.exports = { NO_RECORDED_MATCH, ReplaySession };
