// Type-checked example (ESM): the public API and mcp-ordered-dispatch/testing,
// used the way a user's regression test would. Not run; compiled by test/package/types.test.mjs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { install, isPatched, patchProtocol, dispatcherOf, Dispatcher, classify } from 'mcp-ordered-dispatch';
import type { DispatcherStats, Installation } from 'mcp-ordered-dispatch';
import {
  rawServerCommand,
  startRawServer,
  tapWire,
  RAW_SERVER_MODES,
  RAW_SERVER_PATH,
  FABRICATED_TOKEN,
  UNKNOWN_PROGRESS_TOKEN,
} from 'mcp-ordered-dispatch/testing';
import type { CallbackEntry, InboundEntry, RawServerMode, WireTap } from 'mcp-ordered-dispatch/testing';

export async function lostProgressRegression(mode: RawServerMode = 'all-in-one'): Promise<DispatcherStats | undefined> {
  const installation: Installation = install();
  // Copies that already dispatch in wire order are left stock and listed here.
  const upstream: string[] = installation.fixedUpstream.map((s) => `${s.name}@${s.version} (${s.build}, ${s.generation}.x)`);
  void upstream;
  const client = new Client({ name: 'types-example', version: '1.0.0' });
  const tap: WireTap = tapWire(client);
  const errors: string[] = [];
  client.onerror = (error: Error) => {
    if (error.message.startsWith(UNKNOWN_PROGRESS_TOKEN)) errors.push(error.message);
  };
  await client.connect(new StdioClientTransport(rawServerCommand({ mode, progress: 3, gap: 'ping' })));
  const seen: number[] = [];
  await client.callTool({ name: 'progress', arguments: {} }, undefined, {
    onprogress: (p) => seen.push(p.progress),
  });
  await tap.settle();
  tap.assertWireOrder('progress must arrive before the result');
  const first: InboundEntry | undefined = tap.inbound[0];
  const lost: CallbackEntry[] = tap.lostProgress;
  const problems: string[] = tap.violations();
  const progressLost: boolean = tap.callbacks.some((c) => c.progress === 'lost');
  void [first?.seq, lost.length, problems, progressLost, errors, RAW_SERVER_PATH, FABRICATED_TOKEN];
  const stats = dispatcherOf(client)?.stats();
  tap.untap();
  await client.close();
  installation.uninstall();
  return stats;
}

export function customDispatcher(): number {
  const dispatcher = new Dispatcher<{ sessionId: string }>({
    onResponse: (_message, isError) => isError,
    onRequest: (_message, extra) => extra?.sessionId,
    onNotification: () => undefined,
    onInvalid: (_message, reason) => reason,
    onError: (_error, kind) => kind,
  });
  dispatcher.dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId: 's' });
  const kind = classify({ jsonrpc: '2.0', id: 1, result: {} });
  void kind;
  return dispatcher.pending + dispatcher.stats().dispatched;
}

export function patchOneClass(Protocol: abstract new (...args: never[]) => unknown): () => void {
  const unpatch = patchProtocol(Protocol as abstract new (...args: any[]) => unknown, {
    source: { name: '@modelcontextprotocol/sdk', version: '1.32.2', build: 'esm' },
  });
  if (!isPatched(Protocol as abstract new (...args: any[]) => unknown)) throw new Error('not patched');
  return unpatch;
}

export const modes: readonly RawServerMode[] = RAW_SERVER_MODES;
export const served: Promise<void> = startRawServer({ mode: 'separate', stdin: process.stdin, stdout: process.stdout });

// Misuse the declarations must reject.
// @ts-expect-error: not a raw server mode
rawServerCommand({ mode: 'everything-at-once' });
// @ts-expect-error: gap is 'ping', 'immediate' or milliseconds
rawServerCommand({ gap: 'later' });
// @ts-expect-error: tapWire needs a Client or Server object
tapWire('client');

// The progress lifecycle, the native framing and the token table.
import { configure, dispatchStats, NativeReadBuffer, StdioFramingError, patchStdioTransport, isStdioPatched, ProgressTokens } from 'mcp-ordered-dispatch';
import type { DispatchStats, ProgressNotificationLike } from 'mcp-ordered-dispatch';

export function lifecycle(client: Client): number {
  const late: ProgressNotificationLike[] = [];
  configure(client, { onLateProgress: (n) => late.push(n), maxTombstones: 64 });
  install({ onLateProgress: (n) => void n.params.progress, framing: false, strict: true }).framing.length;
  const stats: DispatchStats | undefined = dispatchStats(client);
  return (stats?.late ?? 0) + (stats?.tokens.tombstones ?? 0) + late.length;
}

export function framing(chunk: Uint8Array): string[] {
  const buffer = new NativeReadBuffer({ maxBufferSize: 1 << 20, sdk: 2, blankLines: 'skip', strict: true });
  buffer.append(chunk);
  const out: string[] = [];
  try {
    for (let m = buffer.readMessage(); m !== null; m = buffer.readMessage()) out.push(m.jsonrpc);
  } catch (error) {
    if (error instanceof StdioFramingError) out.push(`${error.reason} at ${error.offset}`);
  }
  const unpatch = patchStdioTransport(StdioClientTransport, { sdk: 1, strict: false });
  if (isStdioPatched(StdioClientTransport)) unpatch();
  const tokens = new ProgressTokens(8);
  tokens.issue(1);
  const verdict: 'active' | 'late' | 'unknown' = tokens.onProgress(1);
  out.push(verdict);
  return out;
}

// @ts-expect-error: maxTombstones is a number
configure({}, { maxTombstones: 'many' });
