'use strict';
// The SDK's packages and modules, as the loaders see them: which packages
// there are and where each keeps its Protocol and stdio transports (per
// generation), and how a loaded module is recognised as one that defines
// them — by its source text (ES modules, for the load hooks) or by its
// exports (CommonJS).
//
// Dependency-free, requires nothing but node:path: lib/hooks.cjs loads it when `register`
// installs its hooks, and lib/esm-transform.cjs on a module.register()
// loader thread (lib/esm-hooks.mjs), where nothing else of the package loads.

const path = require('node:path');

/** The SDK packages' npm scope (with its trailing slash). */
const SDK_SCOPE = '@modelcontextprotocol/';
/** How a file path under the scope reads, on this platform. */
const SDK_PATH = `${path.sep}@modelcontextprotocol${path.sep}`;
/** How a module URL under the scope reads. */
const SDK_URL_SEGMENT = '/@modelcontextprotocol/';

/** Where each SDK package keeps its Protocol (the module `install()` loads). */
const SDK_PACKAGES = [
  { name: '@modelcontextprotocol/sdk', subpath: './shared/protocol.js' },
  { name: '@modelcontextprotocol/client', subpath: '.' },
  { name: '@modelcontextprotocol/server', subpath: '.' },
];

/** The stdio transport classes' export names, both generations. */
const STDIO_EXPORTS = ['StdioClientTransport', 'StdioServerTransport'];

/** Where each SDK package keeps its stdio transports. */
const STDIO_MODULES = [
  { name: '@modelcontextprotocol/sdk', subpath: './client/stdio.js', exportName: 'StdioClientTransport', sdk: 1 },
  { name: '@modelcontextprotocol/sdk', subpath: './server/stdio.js', exportName: 'StdioServerTransport', sdk: 1 },
  { name: '@modelcontextprotocol/client', subpath: './stdio', exportName: 'StdioClientTransport', sdk: 2 },
  { name: '@modelcontextprotocol/server', subpath: './stdio', exportName: 'StdioServerTransport', sdk: 2 },
];

/** The generation of an SDK package by its (package.json) name: 1, 2, or undefined for another. */
function generationOfPackage(name) {
  if (name === '@modelcontextprotocol/sdk') return 1;
  return typeof name === 'string' && name.startsWith(SDK_SCOPE) ? 2 : undefined;
}

// ---- ES modules, by source text (the load hooks) ----

const DEFINES_PROTOCOL = /(?:^|\n)(?:export class Protocol\b|var Protocol = class\b|class Protocol\b)/;
const DEFINES_STDIO_TRANSPORT =
  /(?:^|\n)(?:export class (Stdio(?:Client|Server)Transport)\b|var (Stdio(?:Client|Server)Transport) = class\b|class (Stdio(?:Client|Server)Transport)\b)/g;

// Byte strings that every match of the patterns above contains: most SDK
// modules contain none, and are then passed on without being decoded. Each
// group has one substring common to all its needles, looked for first: one
// scan of a module's bytes per group, not one per needle.
const PROTOCOL_NEEDLES = { common: 'Protocol', needles: ['class Protocol', 'Protocol = class'] };
const STDIO_NEEDLES = {
  common: 'Stdio',
  needles: ['class StdioClientTransport', 'class StdioServerTransport', 'StdioClientTransport = class', 'StdioServerTransport = class'],
};

/** Whether an ES module's source defines `Protocol` as a module-scope class. */
function definesProtocol(source) {
  return DEFINES_PROTOCOL.test(source);
}

/** The names of the SDK stdio transport classes an ES module's source defines (module-scope bindings). */
function stdioClassesDefinedIn(source) {
  const names = new Set();
  for (const m of String(source).matchAll(DEFINES_STDIO_TRANSPORT)) names.add(m[1] ?? m[2] ?? m[3]);
  return [...names];
}

/** Whether a module's undecoded bytes (a Buffer) may define Protocol (or, with `framing`, a stdio transport). */
function mayDefine(bytes, framing) {
  const found = ({ common, needles }) => bytes.includes(common) && needles.some((n) => bytes.includes(n));
  return found(PROTOCOL_NEEDLES) || (framing && found(STDIO_NEEDLES));
}

// ---- CommonJS, by exports ----

/** Whether a module export looks like an SDK Protocol class (the adapters decide whether it is a supported one). */
function isSdkProtocol(value) {
  return typeof value === 'function' && value.prototype && typeof value.prototype._onnotification === 'function';
}

/** Whether a module's exports include a stdio transport class. */
function exportsStdio(exports) {
  return STDIO_EXPORTS.some((name) => typeof exports[name] === 'function');
}

module.exports = {
  SDK_SCOPE,
  SDK_PATH,
  SDK_URL_SEGMENT,
  SDK_PACKAGES,
  STDIO_EXPORTS,
  STDIO_MODULES,
  generationOfPackage,
  definesProtocol,
  stdioClassesDefinedIn,
  mayDefine,
  isSdkProtocol,
  exportsStdio,
};
