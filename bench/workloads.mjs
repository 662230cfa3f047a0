// The workloads of the stdio benchmarks, in one place: bench/framing.mjs
// frames them in-process, bench/flood-server.mjs writes them from a real
// child, bench/eventloop.mjs parses the same message for its floor.

/** The stdio readers' targets, shown (met / not met) next to the rows they concern. */
export const TARGETS = {
  /** Native reader main-thread time at most this many times plain JSON.parse of the same lines. */
  mainThreadVsParse: 1.15,
  /** Worst event-loop stall while a 9 MiB result arrives, at most this many times its JSON.parse. */
  stallVsParse: 1.2,
  /** Single-request round trip: patched p50 at most this many µs above stock's. */
  roundTripP50Us: 20,
};

/**
 * The patched variants bench/eventloop.mjs and bench/roundtrip.mjs run
 * against stock: [result key, what the row's name adds].
 */
export const READER_VARIANTS = [
  ['patched', ' (install(): the off-thread reader, the default)'],
  ['mainthread', ', main-thread reader (offThread: false)'],
  ['tokio', ", off-thread reader with its framing jobs on napi-rs's tokio runtime (--features tokio-reader)"],
];

/**
 * What install() gets in a bench child for each variant, and the read
 * buffer it must then give the stdio transport (a comparison of stock with
 * stock would mean nothing). stock: install() is not called.
 */
const VARIANT_SETUP = {
  patched: { offThread: undefined, buffer: 'ThreadReadBuffer' },
  mainthread: { offThread: false, buffer: 'NativeReadBuffer' },
  tokio: { offThread: true, buffer: 'ThreadReadBuffer' },
};

/**
 * Patch this process for `variant` with install() of `root`'s SDK copies
 * (whatever the working directory); `offThread` (bounds to try) replaces the
 * default of the variants that read off the main thread. Returns the check
 * that a transport got the variant's read buffer (it throws otherwise).
 */
export async function installVariant(variant, root, offThread) {
  const setup = VARIANT_SETUP[variant];
  if (setup === undefined) {
    if (variant !== 'stock') throw new Error(`unknown variant ${variant}: stock, ${Object.keys(VARIANT_SETUP).join(', ')}`);
    return () => {};
  }
  const option = setup.offThread === false ? false : (offThread ?? setup.offThread);
  const { install } = await import('../entries/index.mjs');
  install({ paths: [root], ...(option === undefined ? {} : { offThread: option }) });
  return (transport) => {
    const name = transport._readBuffer?.constructor?.name;
    if (name !== setup.buffer) throw new Error(`install() gave the ${variant} variant's transport a ${name}, not a ${setup.buffer}`);
  };
}

/** The middle value (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `rounds` rounds of `run(variant)` for every variant, the first variant
 * rotating from round to round so that a change in load hits all alike:
 * { [variant]: [result of each round] }.
 */
export function rotatedRuns(variants, rounds, run) {
  const runs = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + i) % variants.length];
      runs[variant].push(run(variant));
    }
  }
  return runs;
}

/** The size of the big workloads. */
export const BIG_SIZE = 9 * 1024 * 1024;

export function smallMessages(count) {
  const lines = [];
  for (let i = 0; i < count; i++) {
    let m;
    switch (i % 4) {
      case 0:
        m = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: `tok-${i >> 6}`, progress: i, total: count, message: `step ${i}` } };
        break;
      case 1:
        m = { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: `hello world ${i}` }, _meta: { progressToken: i } } };
        break;
      case 2:
        m = { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `result ${i}` }], isError: false } };
        break;
      default:
        m = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'bench', data: i % 32 === 3 ? `ligne ${i} — déjà vu ✓` : `line ${i}` } };
    }
    lines.push(JSON.stringify(m));
  }
  return lines;
}

export function bigMessage(size) {
  // Half a long text (with escapes and non-ASCII), half structured rows.
  const unit = 'The quick brown fox jumps over the lazy dog. "Quoted" \\ déjà vu — ✓\n';
  const text = unit.repeat(Math.ceil(size / 2 / unit.length));
  const rows = [];
  let approx = 0;
  for (let i = 0; approx < size / 2; i++) {
    const row = { id: i, name: `row ${i}`, value: i * 1.5, ok: i % 3 === 0, tags: ['alpha', 'beta'] };
    approx += 80;
    rows.push(row);
  }
  const message = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }], structuredContent: { rows } } };
  return [JSON.stringify(message)];
}

export function bigTextMessage(size) {
  // A tool result carrying one file's contents: the usual shape of a large result.
  const unit = 'export function step(n) { return n + 1; } // "quoted" \\ déjà vu — ✓\n';
  const text = unit.repeat(Math.floor(size / Buffer.byteLength(JSON.stringify(unit))));
  return [JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } })];
}

/** What a server streams to a client: `count` log notifications (ASCII, and now and then not). */
export function logNotifications(count) {
  const lines = [];
  for (let i = 0; i < count; i++) {
    const data = i % 32 === 3 ? `ligne ${i} — déjà vu ✓` : `line ${i} of the build output`;
    lines.push(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'bench', data } }));
  }
  return lines;
}
