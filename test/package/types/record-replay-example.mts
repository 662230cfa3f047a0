// Type-checked example (ESM) of record and replay in mcp-ordered-dispatch/testing,
// the way a user's test would use them. Not run; compiled by test/package/types.test.mjs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, InMemoryTransport } from '@modelcontextprotocol/client';
import {
  COALESCING_MODES,
  NO_RECORDED_MATCH,
  REPLAY_SERVER_PATH,
  CassetteError,
  forEachCoalescing,
  readCassette,
  recordTransport,
  redactCassette,
  replayServerCommand,
  replayTransport,
  tapWire,
} from 'mcp-ordered-dispatch/testing';
import type { Cassette, CoalescingMismatch, CoalescingMode, ReplayServerParams } from 'mcp-ordered-dispatch/testing';

export async function recordOverHttp(url: URL): Promise<void> {
  const client = new Client({ name: 'types-example', version: '1.0.0' });
  const transport: StreamableHTTPClientTransport = recordTransport(new StreamableHTTPClientTransport(url), 'http.ndjson');
  await client.connect(transport);
  await client.close();
}

export async function replayUnderEveryMode(file: string): Promise<number[]> {
  const modes: CoalescingMode[] = ['separate', 'all-in-one', 'random:7'];
  const names: readonly string[] = COALESCING_MODES;
  void names;
  const results = await forEachCoalescing(
    file,
    async (params: ReplayServerParams, mode: CoalescingMode) => {
      const client = new Client({ name: 'types-example', version: '1.0.0' });
      const tap = tapWire(client);
      await client.connect(mode === 'recorded' ? params.transport() : new StdioClientTransport(params));
      const seen: number[] = [];
      await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 5 } }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      await tap.settle();
      tap.untap();
      await client.close();
      return seen;
    },
    { modes },
  ).catch((error: CoalescingMismatch) => {
    throw new Error(`${error.mode} (${error.modes.join(', ')}): ${error.message}`);
  });
  return results['separate'] ?? [];
}

export async function inProcess(file: string): Promise<void> {
  const cassette: Cassette = readCassette(file);
  if (cassette.header.level !== 'bytes') throw new CassetteError('not recorded with record');
  const client = new Client({ name: 'types-example', version: '1.0.0' });
  await client.connect(replayTransport(cassette, { coalesce: 'last-with-response', timing: 0.5 }));
  const command: { command: string; args: string[] } = replayServerCommand(file, { coalesce: 'recorded', gap: 'immediate', timing: true });
  void command;
  void REPLAY_SERVER_PATH;
  const { changed }: { changed: number } = redactCassette(cassette, 'redacted.ndjson', (message) => {
    if (message?.result?.token) message.result.token = '[redacted]';
    return message;
  });
  void changed;
  try {
    await client.listPrompts();
  } catch (error) {
    if ((error as { code?: number }).code !== NO_RECORDED_MATCH) throw error;
  }
}

export async function withTheTwoXClient(file: string): Promise<void> {
  const client = new Client2({ name: 'types-example', version: '1.0.0' });
  await client.connect(replayTransport(file, { coalesce: 'random:1' }));
  const [clientSide] = InMemoryTransport.createLinkedPair();
  const recorded: InMemoryTransport = recordTransport(clientSide, 'memory.ndjson', { side: 'client', header: { note: 'x' } });
  void recorded;
  await client.close();
}
