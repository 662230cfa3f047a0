'use strict';
// The SDK's packages and modules, as the loaders see them: which packages
// there are and where each keeps its Protocol and stdio transports (per
// generation), and how a loaded module is recognised as one that defines
// them - by its source text (ES modules, for the load hooks) or by its
// exports (CommonJS).
//
// Dependency-free, requires nothing but node:path: lib/register/hooks.cjs loads it when `register`
// installs its hooks, and lib/register/esm-transform.cjs on a module.register()
// loader thread (lib/register/esm-hooks.mjs), where nothing else of the package loads.

const path = require('node:path');

/** The SDK packages' npm scope (with its trailing slash). */
const SDK_SCOPE = '@modelcontextprotocol/';
/** How a file path under the scope reads, on this platform. */
const SDK_PATH = `${path.sep}@modelcontextprotocol${path.sep}`;
/** How a module URL under the scope reads. */
const SDK_URL_SEGMENT = '/@modelcontextprotocol/';

/**
 * Whether the ES module at `url` may be an SDK module, by where it is: under
 * node_modules (an npm alias install, checked by its package.json later), or
 * under the SDK's scope anywhere (Deno's npm cache, a linked checkout).
 */
function maySdkUrl(url) {
  return url.includes('/node_modules/') || url.includes(SDK_URL_SEGMENT);
}

/** Where each SDK package keeps its Protocol (the module `install()` loads). */
const SDK_PACKAGES = [
  { name: '@modelcontextprotocol/sdk', subpath: './shared/protocol.js' },
  { name: '@modelcontextprotocol/client', subpath: '.' },
  { name: '@modelcontextprotocol/server', subpath: '.' },
];

/** The stdio transport classes' export names, both generations. */
const STDIO_EXPORTS = ['StdioClientTransport', 'StdioServerTransport'];

/**
 * The methods a use of each SDK class calls first, own methods of its
 * prototype: where register's patch waits for its first use
 * (lib/patch/deferred.cjs). Protocol's constructor calls
 * setNotificationHandler() (1.x and 2.x), and connect() starts the transport;
 * a stdio transport is patched by its start().
 */
const PROTOCOL_ENTRIES = ['setNotificationHandler', 'connect'];
const STDIO_ENTRIES = ['start'];

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

// A module defines a class `Name` at module scope, as the SDK's builds write
// it, when a line starts with one of
//   export class Name      class Name      var Name = class
// followed by a character that cannot continue an identifier (\b) or the end
// of the source. These are looked for in a module's undecoded bytes (a
// Buffer) or its text alike, by one scan for `Protocol` and one for `Stdio`
// (the start of both transports' names): no decoding, no regular expression
// over every module the application loads.

const PROTOCOL = 'Protocol';
const STDIO_PREFIX = 'Stdio';
/** The stdio transport classes, by the name the SDK's modules define them under. */
const STDIO_CLASSES = ['StdioClientTransport', 'StdioServerTransport'];

const NEWLINE = 0x0a;

/** The char code (a byte of a Buffer) at `i`, or -1 past the end. */
function codeAt(source, i) {
  if (i < 0 || i >= source.length) return -1;
  return typeof source === 'string' ? source.charCodeAt(i) : source[i];
}

/** Whether `source` holds the ASCII text `text` at `i`. */
function hasAt(source, i, text) {
  if (i < 0 || i + text.length > source.length) return false;
  for (let k = 0; k < text.length; k++) if (codeAt(source, i + k) !== text.charCodeAt(k)) return false;
  return true;
}

/** Whether the char code `c` ends a word (\b): not A-Z, a-z, 0-9 or _ (-1: the end). */
function endsWord(c) {
  return !((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f);
}

/** Whether a line starts at `i` (the start of the source, or after a newline). */
function lineStartsAt(source, i) {
  return i === 0 || codeAt(source, i - 1) === NEWLINE;
}

const SPACE = 0x20;

/** Whether the name of `length` chars at `i` is a module-scope class definition (see above). */
function definedAt(source, i, length) {
  const after = i + length;
  // Every form has a space before the name and no identifier character
  // after it: most occurrences (ProtocolError, ...) fail here, cheaply.
  if (codeAt(source, i - 1) !== SPACE || !endsWord(codeAt(source, after))) return false;
  if (hasAt(source, i - 6, 'class ')) {
    return lineStartsAt(source, i - 6) || (hasAt(source, i - 13, 'export ') && lineStartsAt(source, i - 13));
  }
  return hasAt(source, i - 4, 'var ') && lineStartsAt(source, i - 4) && hasAt(source, after, ' = class') && endsWord(codeAt(source, after + 8));
}

/**
 * What an ES module's source (a string, or its undecoded bytes as a Buffer)
 * defines at module scope: { protocol, transports } - whether it defines
 * `Protocol`, and which stdio transport classes (looked for only with
 * `framing`, else []).
 */
function definedClasses(source, framing = true) {
  let protocol = false;
  for (let i = source.indexOf(PROTOCOL); i >= 0 && !protocol; i = source.indexOf(PROTOCOL, i + PROTOCOL.length)) {
    protocol = definedAt(source, i, PROTOCOL.length);
  }
  const transports = [];
  if (framing) {
    for (let i = source.indexOf(STDIO_PREFIX); i >= 0; i = source.indexOf(STDIO_PREFIX, i + STDIO_PREFIX.length)) {
      const name = STDIO_CLASSES.find((n) => hasAt(source, i, n));
      if (name !== undefined && !transports.includes(name) && definedAt(source, i, name.length)) transports.push(name);
    }
  }
  return { protocol, transports };
}

// ---- any module, by shape (bundled and minified copies) ----

// A module that holds all of PROTOCOL_MARKERS may define the SDK's
// Protocol; one that holds all of STDIO_MARKERS, a stdio transport
// (property names bundlers keep). Each list starts with its longest name:
// a module without it (nearly all) costs one scan per list, and a longer
// needle scans faster (measured: bench/rewrite.mjs).
const PROTOCOL_MARKERS = ['_progressHandlers', '_onnotification', '_onrequest'];
const STDIO_MARKERS = ['processReadBuffer', '_readBuffer'];

function holdsAll(source, markers) {
  for (const marker of markers) if (source.indexOf(marker) < 0) return false;
  return true;
}

/**
 * The prefilter every module's source (a string, or its undecoded bytes as
 * a Buffer) takes, before the locate step (lib/shape/rewrite.cjs) is paid
 * for: whether it may define an SDK class at all. Most modules lack the
 * first marker of each set and cost one scan for each.
 */
function mayDefineSdkClass(source, framing = true) {
  return holdsAll(source, PROTOCOL_MARKERS) || (framing && holdsAll(source, STDIO_MARKERS));
}

// ---- CommonJS, by exports ----

// A module's exports are read through their own properties' descriptors,
// never with [[Get]]: while a CommonJS module is still loading (a require
// cycle), Node gives its exports object a prototype that warns on every
// read of a property it lacks ("Accessing non-existent property ... inside
// circular dependency"). An own data property is read as it is; an accessor
// is not called (tsc's re-export getters read another module's exports,
// which may be the one still loading): the module that defines a class
// exports it as a data property, and that is where it is looked for.

const hasOwn = Object.prototype.hasOwnProperty;
const ownDescriptor = Object.getOwnPropertyDescriptor;

/** The value of `exports`' own data property `name`, or undefined (no such own property, an accessor, or a Proxy that throws). */
function ownExport(exports, name) {
  if (exports === null || (typeof exports !== 'object' && typeof exports !== 'function')) return undefined;
  try {
    const descriptor = ownDescriptor(exports, name);
    return descriptor !== undefined && hasOwn.call(descriptor, 'value') ? descriptor.value : undefined;
  } catch {
    return undefined;
  }
}

/** The Protocol class a module's exports carry, where the SDK's protocol modules export it (or undefined). */
function protocolExportOf(exports) {
  return ownExport(exports, 'Protocol');
}

/** Whether a module export looks like an SDK Protocol class (the adapters decide whether it is a supported one). */
function isSdkProtocol(value) {
  return typeof value === 'function' && value.prototype && typeof value.prototype._onnotification === 'function';
}

/** Whether a module's exports include a stdio transport class. */
function exportsStdio(exports) {
  return STDIO_EXPORTS.some((name) => typeof ownExport(exports, name) === 'function');
}

/** The stdio transport classes a module's exports define, as { name: class } (own data properties only, as above). */
function stdioExportsOf(exports) {
  const classes = {};
  for (const name of STDIO_EXPORTS) {
    const value = ownExport(exports, name);
    if (typeof value === 'function') classes[name] = value;
  }
  return classes;
}

module.exports = {
  SDK_SCOPE,
  SDK_PATH,
  SDK_URL_SEGMENT,
  maySdkUrl,
  SDK_PACKAGES,
  STDIO_EXPORTS,
  PROTOCOL_ENTRIES,
  STDIO_ENTRIES,
  STDIO_MODULES,
  generationOfPackage,
  definedClasses,
  PROTOCOL_MARKERS,
  STDIO_MARKERS,
  mayDefineSdkClass,
  protocolExportOf,
  isSdkProtocol,
  exportsStdio,
  stdioExportsOf,
};
