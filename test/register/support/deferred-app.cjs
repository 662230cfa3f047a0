'use strict';
// One process of test/register/deferred.test.mjs: the real SDK (CommonJS
// builds), its Protocol and stdio client transport handed to register's class
// receiver with the patch deferred to first use (lib/patch/receiver.cjs, as
// lib/register/hooks.cjs makes it), then used one way (argv[3]); prints what
// happened as JSON. MCP_ORDERED_DISPATCH_ENTRIES (comma-separated) narrows
// the entry methods, to show that each row fails without its trampoline.
//
//   node deferred-app.cjs <generation 1|2> <way>

const path = require('node:path');
const ROOT = path.join(__dirname, '..', '..', '..');
const modules = require(path.join(ROOT, 'lib', 'adapters', 'modules.cjs'));
if (process.env.MCP_ORDERED_DISPATCH_ENTRIES !== undefined) {
  modules.PROTOCOL_ENTRIES.splice(0, Infinity, ...process.env.MCP_ORDERED_DISPATCH_ENTRIES.split(',').filter(Boolean));
}
const { createClassReceiver } = require(path.join(ROOT, 'lib', 'patch', 'receiver.cjs'));
const { loadSdk, callTool } = require(path.join(ROOT, 'test', 'support', 'sdk.cjs'));
const { ScriptedTransport } = require(path.join(ROOT, 'test', 'support', 'scripted-transport.cjs'));
const { progress, toolResult } = require(path.join(ROOT, 'test', 'support', 'messages.cjs'));

const [generation, way] = [Number(process.argv[2]), process.argv[3]];
const kPatch = Symbol.for('mcp-ordered-dispatch.patch');
const kStdioPatch = Symbol.for('mcp-ordered-dispatch.stdio-patch');
// Read as own properties: asking isPatched() would make the deferred patch itself.
const patchedNow = (Class, key = kPatch) => Object.hasOwn(Class.prototype, key);

/** One call whose three progress notifications and response arrive in one tick: the progress values seen, the errors. */
async function burst(sdk, client, transport) {
  const seen = [];
  const errors = [];
  client.onerror = (e) => errors.push(e.message);
  const call = callTool(sdk, client, { name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
  const request = await transport.nextRequest('tools/call');
  const token = request.params._meta.progressToken;
  for (const value of [1, 2, 3]) transport.onmessage(progress(token, value));
  transport.onmessage(toolResult(request.id));
  await call;
  await new Promise((resolve) => setImmediate(resolve));
  return { seen, errors };
}

async function main() {
  const sdk = await loadSdk(generation, 'cjs');
  const { Protocol } = sdk;
  const proto = Protocol.prototype;
  const before = { connect: proto.connect, setNotificationHandler: proto.setNotificationHandler };
  const early = way === 'connected' ? new sdk.Client({ name: 'early', version: '1' }) : undefined;
  const receiver = createClassReceiver({ deferred: true });
  receiver.patchLoaded(Protocol, require.resolve(generation === 1 ? '@modelcontextprotocol/sdk/shared/protocol.js' : '@modelcontextprotocol/client'));
  receiver.patchStdioLoaded({ StdioClientTransport: sdk.StdioClientTransport }, require.resolve(generation === 1 ? '@modelcontextprotocol/sdk/client/stdio.js' : '@modelcontextprotocol/client/stdio'));
  const out = {
    deferred: !patchedNow(Protocol),
    trampolines: ['connect', 'setNotificationHandler'].map((name) => proto[name] !== before[name] && proto[name].name === before[name].name && proto[name].length === before[name].length),
  };
  const host = { connect: 0, setNotificationHandler: 0 };
  if (way === 'wrapped') {
    for (const name of ['connect', 'setNotificationHandler']) {
      const inner = proto[name];
      proto[name] = function hostWrapper(...args) {
        host[name]++;
        return inner.apply(this, args);
      };
    }
  }
  let Client = sdk.Client;
  if (way === 'subclass') {
    Client = class extends sdk.Client {
      async connect(transport, ...rest) {
        host.connect++;
        return super.connect(transport, ...rest);
      }
    };
  }
  if (way === 'stdio') {
    const transport = new sdk.StdioClientTransport({ command: process.execPath, args: ['-e', ''] });
    out.stdioBeforeStart = patchedNow(sdk.StdioClientTransport, kStdioPatch);
    await transport.start();
    out.stdioAfterStart = patchedNow(sdk.StdioClientTransport, kStdioPatch);
    await transport.close();
    out.protocolUntouched = !patchedNow(Protocol);
    console.log(JSON.stringify(out));
    return;
  }
  if (way === 'unpatch') {
    const { isPatched, patchProtocol } = require(path.join(ROOT, 'entries', 'index.cjs'));
    out.isPatched = isPatched(Protocol);
    const unpatch = patchProtocol(Protocol);
    unpatch();
    out.restored = proto.connect === before.connect && proto.setNotificationHandler === before.setNotificationHandler && !patchedNow(Protocol);
    console.log(JSON.stringify(out));
    return;
  }
  const client = early ?? new Client({ name: 'app', version: '1' });
  out.patchedAtConstruction = patchedNow(Protocol);
  const transport = new ScriptedTransport();
  await client.connect(transport);
  out.patchedAtConnect = patchedNow(Protocol);
  Object.assign(out, await burst(sdk, client, transport));
  out.host = host;
  out.hostWrappersKept = way !== 'wrapped' || (proto.connect.name === 'hostWrapper' && proto.setNotificationHandler.name === 'hostWrapper');
  await client.close();
  console.log(JSON.stringify(out));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
