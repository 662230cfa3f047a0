// The ES module load hooks' source check (lib/adapters/modules.cjs
// definedClasses, lib/register/esm-transform.cjs): which modules define the SDK's
// `Protocol` or a stdio transport at module scope, found in a module's
// undecoded bytes and in its text alike, and the call appended to them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));
const sdk = require('../../lib/adapters/modules.cjs');
const transform = require('../../lib/register/esm-transform.cjs');

const PATCH_URL = 'file:///x/loader-patch.mjs';
const none = { protocol: false, transports: [] };

// [source, what it defines (with framing)]
const CASES = [
  ['export class Protocol {\n}', { protocol: true, transports: [] }],
  ['class Protocol {}', { protocol: true, transports: [] }],
  ['var Protocol = class {', { protocol: true, transports: [] }],
  ['x;\nvar Protocol = class extends Base {', { protocol: true, transports: [] }],
  ['x;\r\nexport class Protocol{', { protocol: true, transports: [] }],
  ['x;\nclass Protocol', { protocol: true, transports: [] }],
  // Not at the start of a line, another name, or not a class definition.
  ['  class Protocol {}', none],
  ['x; class Protocol {}', none],
  ['export default class Protocol {}', none],
  ['class ProtocolError extends Error {}', none],
  ['class Protocol_ {}', none],
  ['class Protocol2 {}', none],
  ['var ProtocolError = class ProtocolError extends Error {', none],
  ['var Protocol = classy;', none],
  ['let Protocol = class {', none],
  ['import { Protocol } from "./protocol.js";\nclass Client extends Protocol {}', none],
  ['// class Protocol\n', none],
  ['xclass Protocol {}', none],
  ['export  class Protocol {}', none],
  // `$` continues an identifier in JavaScript but not a \b word: as the old pattern read it.
  ['class Protocol$ {}', { protocol: true, transports: [] }],
  // The stdio transports.
  ['export class StdioClientTransport {\n}', { protocol: false, transports: ['StdioClientTransport'] }],
  ['var StdioServerTransport = class {', { protocol: false, transports: ['StdioServerTransport'] }],
  [
    'class StdioServerTransport {}\nclass StdioClientTransport {}\nclass StdioServerTransport {}',
    { protocol: false, transports: ['StdioServerTransport', 'StdioClientTransport'] },
  ],
  ['class StdioClientTransportX {}\nStdio;\nclass Stdio {}', none],
  ['export { StdioClientTransport };\nconst t = new StdioClientTransport();', none],
  ['class Protocol {}\nvar StdioClientTransport = class {', { protocol: true, transports: ['StdioClientTransport'] }],
  ['', none],
  ['Protocol', none],
  ['class Protocol', { protocol: true, transports: [] }],
];

test('definedClasses finds the module-scope definitions the load hooks patch, in bytes as in text', () => {
  for (const [source, expected] of CASES) {
    const label = JSON.stringify(source);
    assert.deepEqual(sdk.definedClasses(source, true), expected, `text ${label}`);
    assert.deepEqual(sdk.definedClasses(Buffer.from(source), true), expected, `bytes ${label}`);
    assert.deepEqual(sdk.definedClasses(source, false), { protocol: expected.protocol, transports: [] }, `without framing ${label}`);
  }
});

test('a module that defines something gets the patch call appended: bytes stay bytes, text stays text; one that already carries it gets nothing', () => {
  const source = 'import x from "y";\nvar Protocol = class {};\nexport class StdioClientTransport {}\n';
  const text = transform.withPatchCall(source, PATCH_URL, true);
  assert.ok(text.startsWith(source));
  assert.match(text.slice(source.length), /__mcpOrderedDispatchPatch\(Protocol, import\.meta\.url\);\n__mcpOrderedDispatchPatchStdio\(\{ StdioClientTransport \}, import\.meta\.url\);\n$/);
  assert.ok(text.includes(JSON.stringify(PATCH_URL)));
  for (const bytes of [Buffer.from(source), new Uint8Array(Buffer.from(source)), Uint8Array.from(Buffer.from(source)).buffer]) {
    const patched = transform.patchedSource(bytes, PATCH_URL, true);
    assert.ok(Buffer.isBuffer(patched), 'bytes in, bytes out');
    assert.equal(patched.toString('utf8'), text);
  }
  assert.equal(transform.patchedSource(source, PATCH_URL, true), text);
  // Without framing, only Protocol.
  assert.ok(!transform.withPatchCall(source, PATCH_URL, false).includes('PatchStdio('));
  // Registered twice (Node 20 runs --require preloads on the loader thread too): appended once.
  assert.equal(transform.withPatchCall(text, PATCH_URL, true), undefined);
  assert.equal(transform.patchedSource(Buffer.from(text), PATCH_URL, true), undefined);
  // Nothing defined: passed on as it is.
  assert.equal(transform.patchedSource(Buffer.from('export const Protocol = 1;\n'), PATCH_URL, true), undefined);
});

/** Every ES module file of an installed SDK package (its .mjs files, or the .js files of its ESM build). */
function esmFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...esmFiles(file));
    else if (entry.name.endsWith('.mjs') || (entry.name.endsWith('.js') && !file.includes(`${path.sep}cjs${path.sep}`))) out.push(file);
  }
  return out;
}

test("in every installed SDK release, exactly the modules that define Protocol and the stdio transports are found, and each of those once", () => {
  const packages = [
    ['@modelcontextprotocol/sdk', 'dist/esm', { protocol: 'shared/protocol.js', transports: { StdioClientTransport: 'client/stdio.js', StdioServerTransport: 'server/stdio.js' } }],
    ['sdk-1-middle', 'dist/esm', { protocol: 'shared/protocol.js', transports: { StdioClientTransport: 'client/stdio.js', StdioServerTransport: 'server/stdio.js' } }],
    ['sdk-1-oldest', 'dist', { protocol: 'shared/protocol.js', transports: { StdioClientTransport: 'client/stdio.js', StdioServerTransport: 'server/stdio.js' } }],
    ['@modelcontextprotocol/client', 'dist', { protocol: /^src-.*\.mjs$/, transports: { StdioClientTransport: 'stdio.mjs' } }],
    ['@modelcontextprotocol/server', 'dist', { protocol: /^src-.*\.mjs$/, transports: { StdioServerTransport: 'stdio.mjs' } }],
    ['client-2-oldest', 'dist', { protocol: /^src-.*\.mjs$/, transports: { StdioClientTransport: 'stdio.mjs' } }],
  ];
  for (const [name, build, expected] of packages) {
    const dir = path.join(root, 'node_modules', name, build);
    const found = { protocol: [], transports: {} };
    for (const file of esmFiles(dir)) {
      const bytes = fs.readFileSync(file);
      const defined = sdk.definedClasses(bytes, true);
      assert.deepEqual(sdk.definedClasses(bytes.toString('utf8'), true), defined, `${name} ${file}: bytes and text agree`);
      const rel = path.relative(dir, file).split(path.sep).join('/');
      if (defined.protocol) found.protocol.push(rel);
      for (const t of defined.transports) (found.transports[t] ??= []).push(rel);
    }
    assert.equal(found.protocol.length, 1, `${name}: one module defines Protocol: ${found.protocol}`);
    if (typeof expected.protocol === 'string') assert.equal(found.protocol[0], expected.protocol, name);
    else assert.match(found.protocol[0], expected.protocol, name);
    for (const [t, file] of Object.entries(expected.transports)) assert.deepEqual(found.transports[t], [file], `${name}: ${t}`);
  }
});
