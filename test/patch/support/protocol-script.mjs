// Random scripts for test/patch/support/protocol-runner.mjs, deterministic
// per seed. Ids the SDK assigns are symbolic ({ call: k }: the id of call k).

/** mulberry32: a small seeded PRNG, [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of script `index` of a run seeded `seed` (what a replay passes back). */
export function scriptSeed(seed, index) {
  return (Math.imul(seed >>> 0, 2654435761) + index * 40503 + 1) >>> 0;
}

const ONERROR = ['never', 'always', 'some', 'some'];
const MODES = ['ok', 'ok', 'throw', 'reject'];

/** One script for `role` ('client' | 'server'). */
export function makeScript(seed, role) {
  const random = prng(seed);
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];
  const chance = (p) => random() < p;

  const calls = Array.from({ length: 1 + int(4) }, () => ({ progress: chance(0.7) }));
  const withProgress = calls.map((c, k) => (c.progress ? k : -1)).filter((k) => k >= 0);
  const withoutProgress = calls.map((c, k) => (c.progress ? -1 : k)).filter((k) => k >= 0);
  const call = () => ({ call: int(calls.length) });
  let next = 1;
  const progress = (token, params = { progress: pick([1, 2, 3, 13]), total: pick([undefined, 3, 10]) }) => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: Object.fromEntries(Object.entries({ progressToken: token, ...params }).filter(([, v]) => v !== undefined)),
  });

  const kinds = [
    // progress: a live call's own token (the commonest), another call's, a token never issued, malformed
    [6, () => (withProgress.length ? progress({ call: pick(withProgress) }) : progress(9000 + int(50)))],
    [1, () => (withoutProgress.length ? progress({ call: pick(withoutProgress) }) : progress('tok-' + int(5)))],
    [1, () => progress(pick([9000 + int(50), 'tok-' + int(5), -1]))],
    [1, () => progress(withProgress.length ? { call: pick(withProgress) } : 1, pick([{}, { progress: 'abc' }, { progress: 1, total: 'x' }]))],
    // responses: result, error, for any call (a second one is a duplicate), an unknown id
    [3, () => ({ jsonrpc: '2.0', id: call(), result: {} })],
    [2, () => ({ jsonrpc: '2.0', id: call(), error: { code: pick([-32001, -32603, 42]), message: pick(['boom', 'bad']), ...(chance(0.3) ? { data: { n: 1 } } : {}) } })],
    [1, () => ({ jsonrpc: '2.0', id: 7000 + int(100), ...(chance(0.5) ? { result: {} } : { error: { code: -32000, message: 'stray' } }) })],
    // requests from the peer: handled (every second one throws), built in, no handler
    [2, () => ({ jsonrpc: '2.0', id: `q${next++}`, method: role === 'client' ? 'roots/list' : 'tools/list', params: {} })],
    [1, () => ({ jsonrpc: '2.0', id: 500 + next++, method: pick(['ping', 'custom/unknown']) })],
    // notifications: one with a handler, one the fallback handles; each may throw or reject
    [2, () => (role === 'client'
      ? { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: pick(MODES) } }
      : { jsonrpc: '2.0', method: 'notifications/roots/list_changed' })],
    [2, () => ({ jsonrpc: '2.0', method: 'custom/note', params: { mode: pick(MODES) } })],
    [1, () => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9999, reason: 'none' } })],
    // no JSON-RPC message at all
    [1, () => pick([{ jsonrpc: '2.0' }, { jsonrpc: '2.0', id: 5 }, { foo: 1 }, { jsonrpc: '2.0', method: 7 }, { jsonrpc: '1.0', method: 'x' }])],
  ];
  const total = kinds.reduce((n, [w]) => n + w, 0);
  const message = () => {
    let r = int(total);
    for (const [w, make] of kinds) {
      if (r < w) return make();
      r -= w;
    }
    throw new Error('unreachable');
  };

  const messages = Array.from({ length: 1 + int(10) }, message);
  // Split into reads: each message starts a new read with probability 1/3.
  const reads = [];
  for (const m of messages) {
    if (reads.length === 0 || chance(1 / 3)) reads.push([]);
    reads[reads.length - 1].push(m);
  }
  return { seed, role, calls, onerrorThrows: pick(ONERROR), reads, reenter: chance(0.3) };
}
