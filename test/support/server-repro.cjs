'use strict';
// The lost-progress reproduction on the Server side: a real SDK `Server` with
// its real `StdioServerTransport`, whose stdin/stdout are in-process streams
// played by a raw client (no SDK). The server sends `ping` requests to the
// client with `onprogress`; the raw client answers each with `progress`
// notifications and the response, grouped into writes by `mode` exactly as
// test/fixtures/raw-server.mjs does for the Client side:
//
//   last-with-response  notifications 1..N-1 in separate writes, then the last
//                       notification and the response in ONE write
//   all-in-one          every notification and the response in ONE write
//
// One write is one 'data' chunk for StdioServerTransport, which then delivers
// every message in it in one synchronous loop: the same situation as a pipe
// read that returned several lines.
//
// CommonJS, and it never loads the SDK itself: the caller passes the classes.

const { PassThrough } = require('node:stream');

const UNKNOWN_TOKEN = 'Received a progress notification for an unknown token';
const immediate = () => new Promise((resolve) => setImmediate(resolve));

/**
 * @param {{ Server: Function, StdioServerTransport: Function, generation: 1 | 2,
 *           EmptyResultSchema?: object }} sdk  (1.x needs EmptyResultSchema for server.request)
 * @param {{ pairs?: number, concurrency?: number, mode?: string, progress?: number }} [options]
 */
async function runServerRepro(sdk, options = {}) {
  const { Server, StdioServerTransport, generation, EmptyResultSchema } = sdk;
  const { pairs = 5, concurrency = 3, mode = 'last-with-response', progress = 3, timeout = 30_000 } = options;
  if (!['last-with-response', 'all-in-one'].includes(mode)) throw new TypeError(`unknown mode ${mode}`);
  const started = process.hrtime.bigint();
  const onerrors = [];
  let calls = 0;
  let progressReceived = 0;
  let lost = 0;
  let callsFailed = 0;
  const failures = [];

  for (let pair = 0; pair < pairs; pair++) {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const server = new Server({ name: 'matrix-server', version: '0.0.0' }, { capabilities: {} });
    server.onerror = (error) => onerrors.push(error?.message ?? String(error));
    const transport = new StdioServerTransport(toServer, fromServer);
    await server.connect(transport);

    // The raw client: answer the server's requests, with progress, per `mode`.
    const send = (...messages) => toServer.write(messages.map((m) => JSON.stringify(m) + '\n').join(''));
    const waiters = new Map();
    const answering = [];
    let buffer = '';
    fromServer.setEncoding('utf8').on('data', (chunk) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.method === 'ping' && message.id !== undefined) answering.push(answer(message));
        else if (message.id !== undefined && waiters.has(message.id)) {
          waiters.get(message.id)(message);
          waiters.delete(message.id);
        }
      }
    });
    const roundTrip = (message) =>
      new Promise((resolve) => {
        waiters.set(message.id, resolve);
        send(message);
      });
    async function answer(request) {
      const token = request.params?._meta?.progressToken;
      const response = { jsonrpc: '2.0', id: request.id, result: {} };
      if (token === undefined) return send(response);
      const notes = [];
      for (let i = 1; i <= progress; i++) {
        notes.push({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i, total: progress } });
      }
      if (mode === 'all-in-one') return send(...notes, response);
      const last = notes.pop();
      for (const note of notes) {
        send(note);
        // Let the server read and dispatch this write (and run the stock
        // SDK's deferred handler) before the next one.
        await immediate();
        await immediate();
      }
      return send(...(last ? [last] : []), response);
    }

    try {
      const init = await roundTrip({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } },
      });
      if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await immediate();

      const received = [];
      const tasks = [];
      for (let c = 0; c < concurrency; c++) {
        const values = [];
        received.push(values);
        const requestOptions = { timeout, onprogress: (p) => values.push(p.progress) };
        calls++;
        tasks.push(
          generation === 1
            ? server.request({ method: 'ping' }, EmptyResultSchema, requestOptions)
            : server.request({ method: 'ping' }, requestOptions),
        );
      }
      const settled = await Promise.allSettled(tasks);
      await Promise.allSettled(answering);
      // Stock: the deferred progress handlers run (and fail) a microtask later.
      await immediate();
      settled.forEach((outcome, i) => {
        const values = received[i];
        progressReceived += values.length;
        for (let step = 1; step <= progress; step++) if (!values.includes(step)) lost++;
        if (outcome.status === 'rejected') {
          callsFailed++;
          if (failures.length < 5) failures.push(String(outcome.reason?.message ?? outcome.reason));
        }
      });
    } finally {
      await server.close().catch(() => {});
    }
  }
  return {
    role: 'server',
    pairs,
    calls,
    progressExpected: calls * progress,
    progressReceived,
    lost,
    callsFailed,
    failures,
    onerrorCount: onerrors.length,
    unknownTokenErrors: onerrors.filter((m) => m.startsWith(UNKNOWN_TOKEN)).length,
    onerrors: onerrors.slice(0, 5),
    mode,
    durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
  };
}

module.exports = { runServerRepro };
