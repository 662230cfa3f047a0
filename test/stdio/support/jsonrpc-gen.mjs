// Seeded generator of JSON-RPC message lines, valid and invalid, for the
// framing tests. Each line is JSON text (or deliberately not), without '\n'.
// Numbers and strings whose spelling matters (1.0, 1e400, -0, "\u0032.0",
// lone surrogates, duplicate keys, __proto__) are written as raw text.

/** mulberry32: a small deterministic PRNG. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (xs) => xs[int(xs.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

/** A value written as this exact JSON text. */
export class Raw {
  constructor(text) {
    this.text = text;
  }
}

/** An object written with these [key, value] entries, in order (keys may repeat). */
export class Entries {
  constructor(entries) {
    this.entries = entries;
  }
}

export function stringify(v) {
  if (v instanceof Raw) return v.text;
  if (v instanceof Entries) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${stringify(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map(stringify).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${stringify(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const RELATED = 'io.modelcontextprotocol/related-task';

export function generator(seed) {
  const r = rng(seed);

  const goodIds = () => r.pick([0, 1, 42, -7, 2 ** 53 - 1, -(2 ** 53 - 1), 'a', '', 'req-1', 'é😀', new Raw('1.0'), new Raw('1e2'), new Raw('-0'), new Raw('0.1e1'), new Raw('"\\u0031"')]);
  const badIds = () =>
    r.pick([1.5, -0.25, 2 ** 53, -(2 ** 53), 1e21, 2 ** 64, true, false, null, {}, [], [1], { id: 1 }, new Raw('1e400'), new Raw('-1e400'), new Raw('1.0000000000000002'), new Raw('9007199254740993')]);
  const id = () => (r.chance(0.85) ? goodIds() : badIds());
  const token = () => (r.chance(0.85) ? goodIds() : badIds());
  const anyValue = (depth = 0) => {
    const leaf = r.pick([null, true, false, 0, 1.5, -3, 'x', '', 'ünï', new Raw('1e400'), new Raw('"\\ud800"'), new Raw('"\\n\\t\\""')]);
    if (depth > 2 || r.chance(0.5)) return leaf;
    if (r.chance(0.5)) return Array.from({ length: r.int(3) }, () => anyValue(depth + 1));
    const o = {};
    for (let i = r.int(3); i > 0; i--) o[r.pick(['a', 'b', 'text', 'n', '_meta', 'progressToken'])] = anyValue(depth + 1);
    return o;
  };
  const task = () => r.pick([{ taskId: 't-1' }, { taskId: 't', extra: 1 }, { taskId: 1 }, {}, 't', null, [], { taskId: null }]);
  const meta = () => {
    if (r.chance(0.08)) return r.pick([null, [], 'm', 1, true]);
    const m = {};
    if (r.chance(0.7)) m.progressToken = token();
    if (r.chance(0.2)) m[RELATED] = task();
    if (r.chance(0.2)) m.other = anyValue(1);
    if (r.chance(0.05)) m.progressToken = undefined;
    return m;
  };
  const params = () => {
    if (r.chance(0.05)) return r.pick([[], [1, 2], 'p', null, 1, true]);
    const p = r.pick([{}, { name: 'echo', arguments: { text: 'hi' } }, { progress: 1, total: 3, message: 'm' }, { level: 'info', data: anyValue() }]);
    const out = { ...p };
    if (r.chance(0.5)) out._meta = meta();
    return out;
  };
  const result = () => {
    if (r.chance(0.05)) return r.pick([[], 'ok', null, 1, true]);
    const res = r.pick([{}, { content: [{ type: 'text', text: 'done' }] }, { tools: [], nextCursor: 'c' }, { structured: anyValue() }]);
    const out = { ...res };
    if (r.chance(0.3)) out._meta = meta();
    return out;
  };
  const errorObject = () => {
    if (r.chance(0.05)) return r.pick([[], 'boom', null, 1]);
    const e = {};
    if (r.chance(0.95)) e.code = r.chance(0.9) ? r.pick([-32600, -32601, 0, 1, -1]) : badIds();
    if (r.chance(0.95)) e.message = r.chance(0.9) ? r.pick(['Invalid request', '', 'é']) : r.pick([1, null, true, {}]);
    if (r.chance(0.3)) e.data = anyValue();
    if (r.chance(0.1)) e.extra = 1;
    return e;
  };
  const jsonrpc = () => (r.chance(0.95) ? '2.0' : r.pick(['1.0', '2', 2, 2.0, null, ['2.0'], '2.0 ', new Raw('"\\u0032.0"'), new Raw('"\\ud800"')]));
  const method = () => (r.chance(0.96) ? r.pick(['tools/call', 'notifications/progress', 'ping', 'notifications/message', 'x', '', new Raw('"\\ud800\\udc00"'), new Raw('"\\udfff"')]) : r.pick([1, null, true, {}, []]));

  /** A message-shaped value of a random kind, then a random mutation or two. */
  function message() {
    const kind = r.int(4);
    const m = { jsonrpc: jsonrpc() };
    if (kind === 0) {
      m.id = id();
      m.result = result();
    } else if (kind === 1) {
      if (r.chance(0.85)) m.id = r.chance(0.1) ? null : id();
      m.error = errorObject();
    } else if (kind === 2) {
      m.id = id();
      m.method = method();
      if (r.chance(0.8)) m.params = params();
    } else {
      m.method = method();
      if (r.chance(0.8)) m.params = params();
    }
    // Structural mutations.
    const mutations = r.chance(0.6) ? 0 : r.chance(0.8) ? 1 : 2;
    for (let i = 0; i < mutations; i++) {
      switch (r.int(11)) {
        case 0: delete m.jsonrpc; break;
        case 1: m[r.pick(['foo', 'extra', 'ID', 'Method'])] = anyValue(); break;
        case 2: if (m.id === undefined) m.id = id(); else delete m.id; break;
        case 3: m.params = params(); break;
        case 4: m.result = result(); break;
        case 5: m.error = errorObject(); break;
        case 6: if (m.method === undefined) m.method = method(); else delete m.method; break;
        case 7: delete m.result; delete m.error; delete m.method; break;
        case 8: m.jsonrpc = jsonrpc(); break;
        case 9: m.params = [1]; break;
        default: m.id = badIds();
      }
    }
    return m;
  }

  /** One line of text. */
  function line() {
    const roll = r.next();
    if (roll < 0.03) {
      // Not an object at all.
      return stringify(r.pick([[], [{ jsonrpc: '2.0', method: 'x' }], 'x', 1, null, true]));
    }
    if (roll < 0.07) {
      // Malformed JSON.
      const base = stringify(message());
      return r.pick([
        base.slice(0, Math.max(1, r.int(base.length))),
        `${base},`,
        `${base} x`,
        base.replace(/"/, "'"),
        base.replace(/:/, ':NaN,"y":'),
        '{"jsonrpc":"2.0","method":"m",}',
        '{"jsonrpc":"2.0","id":01,"method":"m"}',
        '{"jsonrpc":"2.0","id":1.,"method":"m"}',
        '{"jsonrpc":"2.0","method":"m","params":{"x":"\\q"}}',
        '{"jsonrpc":"2.0","method":"\u0001"}',
        '\uFEFF{"jsonrpc":"2.0","method":"m"}',
      ]);
    }
    const m = message();
    if (roll < 0.1) {
      // Duplicate keys and __proto__ (JSON.parse: last value wins; __proto__ is an own key).
      const entries = Object.entries(m);
      const [k, v] = r.pick(entries.length ? entries : [['method', 'm']]);
      const extra = r.pick([
        [k, r.pick([v, anyValue(), id()])],
        ['__proto__', anyValue()],
        ['id', id()],
      ]);
      return stringify(new Entries(r.chance(0.5) ? [...entries, extra] : [extra, ...entries]));
    }
    let text = stringify(m);
    if (r.chance(0.05)) text = `  ${text}\t`;
    if (r.chance(0.05)) text += '\r';
    return text;
  }

  return { line, message, rng: r };
}
