// Type-checked example (CommonJS): require() of the testing entry, with a 2.x Server.
import testing = require('mcp-ordered-dispatch/testing');
import ordered = require('mcp-ordered-dispatch');
import { Server } from '@modelcontextprotocol/server';

export function tapServer(): string[] {
  const server = new Server({ name: 'types-example', version: '1.0.0' }, { capabilities: {} });
  const tap = testing.tapWire(server);
  const { command, args }: { command: string; args: string[] } = testing.rawServerCommand({ mode: 'last-with-response' });
  void [command, args, ordered.dispatcherOf(server)?.stats().maxQueued];
  return tap.violations();
}
