// lib/adapters/v2.cjs's liftNotification: the wire-only `_meta` keys the 2.x
// SDK lifts out of an inbound notification before its handler sees it
// (`liftWireOnlyMaterial` in the SDK, a module-private helper the patched
// `_onnotification` cannot call). The adapter's RESERVED_ENVELOPE_META_KEYS
// are checked against the SDK's exported *_META_KEY constants, and the lift
// against what the stock SDK's own `_onnotification` hands a handler, for
// every exported key, on the oldest and the newest 2.x release installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { liftNotification, RESERVED_ENVELOPE_META_KEYS } = require('../../lib/adapters/v2.cjs');

const RELEASES = [
  ['@modelcontextprotocol/client 2.4.0', '@modelcontextprotocol/client'],
  ['@modelcontextprotocol/client 2.0.0', 'client-2-oldest'],
];

/** What a stock Client's `_onnotification` passes its fallback handler for `message`. */
async function stockSees(Client, message) {
  const client = new Client({ name: 'lift-check', version: '1.0.0' });
  const seen = [];
  client.fallbackNotificationHandler = async (notification) => {
    seen.push(notification);
  };
  client.onerror = (error) => seen.push({ error: String(error) });
  client._onnotification(structuredClone(message));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return seen;
}

for (const [label, specifier] of RELEASES) {
  test(`${label}: the reserved envelope keys are SDK *_META_KEY values, and the lift matches the stock handler's view`, async () => {
    const sdk = await import(specifier);
    const exported = Object.entries(sdk).filter(([name, value]) => /_META_KEY$/.test(name) && typeof value === 'string');
    assert.ok(exported.length >= RESERVED_ENVELOPE_META_KEYS.length, `${label} exports its _meta keys`);
    const values = exported.map(([, value]) => value);
    for (const key of RESERVED_ENVELOPE_META_KEYS) assert.ok(values.includes(key), `${key} is one of ${label}'s *_META_KEY values`);

    // Each exported key alone, all of them together, and each beside a key of the application's own.
    const metas = [
      ...values.map((key) => ({ [key]: 'v' })),
      ...values.map((key) => ({ [key]: 'v', 'app/own': 1 })),
      Object.fromEntries(values.map((key) => [key, 'v'])),
      { 'app/own': 1 },
      {},
    ];
    let lifted = 0;
    for (const _meta of metas) {
      const message = { jsonrpc: '2.0', method: 'notifications/x-lift-check', params: { a: 1, _meta } };
      const seen = await stockSees(sdk.Client, message);
      assert.equal(seen.length, 1, `${JSON.stringify(_meta)}: the stock handler ran once: ${JSON.stringify(seen)}`);
      const ours = liftNotification(structuredClone(message));
      assert.deepEqual(ours, seen[0], `${label}, _meta ${JSON.stringify(_meta)}`);
      if (JSON.stringify(ours) !== JSON.stringify(message)) lifted++;
    }
    // The check above can fail: some keys are lifted (it is not comparing two untouched copies).
    assert.ok(lifted >= RESERVED_ENVELOPE_META_KEYS.length, `${lifted} of ${metas.length} notifications had keys lifted`);
  });
}
