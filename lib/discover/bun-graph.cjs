'use strict';
// The modules embedded in a Bun-compiled executable, read from its bytes
// (nothing is run), and the SDK classes each holds: what `doctor
// <executable>` and doctor's project scan report. The graph is found by
// lib/discover/compiled.cjs; each module record gives its name, contents
// (the source register reads), bytecode, and its encoding, loader, format
// and side bytes (lib/discover/compiled.cjs's header has the layout).
//
// Whether register reaches a module is register's own rule
// (lib/register/bun-embedded.cjs, lib/register/bun-graph.cjs), read here
// through the same parts: the format by Bun's pragma
// (lib/discover/bun-pragma.cjs), the search by shape (lib/shape/rewrite.cjs,
// with every module looked at, the SDK's scope too, as register's Bun path
// asks), and its two places register cannot reach: an entry module named as
// the executable (Bun loads it through no hook) and a `@bun-cjs` chunk
// wrapped otherwise (left alone). Every read is bounded.

const fs = require('node:fs');
const { executableAt, readAt } = require('./compiled.cjs');
const { embeddedFormatOf } = require('./bun-pragma.cjs');
const { mayDefineSdkClass } = require('../adapters/modules.cjs');
const { textHoldsSdk } = require('./holds-sdk.cjs');
const { SERVER_PARAMS } = require('../adapters/stdio.cjs');
const { RECEIVER_GLOBAL } = require('../shape/globals.cjs');

/** Bounds: one module's contents read, all modules' contents read. */
const MAX_MODULE_BYTES = 512 * 1024 * 1024;
const MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024;
/**
 * The entry module names Bun loads through register's hooks: a JavaScript
 * file's (Kilo's `src/index.js`, which Bun 1.3's Bun.build() keeps; an
 * executable built as `tool.js`). One named as the executable, as `bun build
 * --compile` names it, Bun loads through no hook (Bun 1.3.14 and 1.4,
 * test/runtimes/bun-unreached.test.mjs).
 */
const ENTRY_THROUGH_HOOKS = /\.[cm]?js$/;
/** Bun's module_format byte. */
const FORMATS = ['none', 'esm', 'cjs'];
/** Bun's encoding byte: a source is kept as JavaScriptCore keeps strings, in Latin-1 or, with any other character, UTF-16 (Amp's entry). */
const ENCODINGS = ['binary', 'latin1', 'utf16'];

/** The modules of a graph (compiled.cjs's bunStandaloneOf()): [{ name, index, entry, contents: { offset, length }, bytecodeBytes, format, encoding, loader }]. */
function modulesOf(fd, graph) {
  const { table, layout: { moduleBytes }, base } = graph;
  const modules = [];
  for (let at = 0, index = 0; at < table.length; at += moduleBytes, index++) {
    const name = readAt(fd, table.readUInt32LE(at + 4), base + table.readUInt32LE(at)).toString('utf8');
    modules.push({
      name,
      index,
      entry: index === graph.entryPointId,
      contents: { offset: base + table.readUInt32LE(at + 8), length: table.readUInt32LE(at + 12) },
      bytecodeBytes: table.readUInt32LE(at + 28),
      encoding: ENCODINGS[table[at + moduleBytes - 4]],
      loader: table[at + moduleBytes - 3],
      format: FORMATS[table[at + moduleBytes - 2]],
    });
  }
  return modules;
}

/** The SDK classes of `text` by shape, in words: 'Protocol (1.x)', 'stdio client transport', 'stdio server transport'. */
function classWords(text) {
  const found = require('../shape/sdk-classes.cjs').sdkClassesIn(text) ?? [];
  return found.map((c) => (c.kind === 'protocol' ? `Protocol (${c.generation}.x)` : `stdio ${c.sets.has(SERVER_PARAMS) ? 'client' : 'server'} transport`));
}

/**
 * What register does with one embedded module holding the prefilter's
 * markers (`text`, its source): { classes, format, recognised (the search by
 * shape patches it), reached (by register, given a way in), why (when not) }.
 */
function sdkFactsOf(module, text) {
  const classes = classWords(text);
  const pragma = embeddedFormatOf(text);
  const format = pragma ?? 'commonjs';
  const { rewriteSdkClasses } = require('../shape/rewrite.cjs');
  const recognised = rewriteSdkClasses(text, module.name, format, { global: RECEIVER_GLOBAL, skipSdkScope: false }) !== undefined;
  let why;
  if (module.entry && !ENTRY_THROUGH_HOOKS.test(module.name)) why = 'it is the entry module, named as the executable, which Bun loads through no hook';
  else if (pragma === undefined) why = 'it is a `@bun-cjs` chunk wrapped otherwise than register knows, so register leaves it alone';
  else if (!recognised) why = 'the search by shape does not recognise its classes, so register leaves it stock';
  return { classes, format: pragma === undefined ? 'commonjs (unknown wrapper)' : format, recognised, reached: why === undefined, why };
}

/**
 * The embedded modules of the Bun-compiled executable at `file` and the SDK
 * classes in them: undefined when it is not one; else { format, bytes,
 * execArgv, layout, modules (how many), entry (the entry module's name),
 * sdk: [{ name, bytes, format, bytecode, classes, recognised, reached, why }]
 * (the modules holding an SDK class), bytecodeOnly: [names] (modules with
 * bytecode and no source to read), truncated }.
 */
function readBunGraph(file) {
  return withGraph(file, (fd, { format, bytes, graph }, modules) => {
    const sdk = [];
    const bytecodeOnly = [];
    const truncated = eachSource(fd, modules, (module, contents) => {
      if (contents === undefined) {
        if (module.bytecodeBytes > 0) bytecodeOnly.push(module.name);
        return;
      }
      const text = sourceText(module, contents);
      if (!mayDefineSdkClass(text)) return;
      const facts = sdkFactsOf(module, text);
      if (facts.classes.length === 0) return;
      sdk.push({ name: module.name, entry: module.entry, bytes: module.contents.length, bytecode: module.bytecodeBytes > 0, ...facts });
    });
    const entry = modules[graph.entryPointId]?.name;
    return { format, bytes, execArgv: graph.execArgv, layout: graph.layout, modules: modules.length, entry, sdk, bytecodeOnly, truncated };
  });
}

/**
 * Whether the Bun-compiled executable at `file` embeds a module that holds
 * an SDK class (a Protocol or a stdio transport, by shape): undefined when
 * it is not one. Stops at the first such module.
 */
function holdsSdkClasses(file) {
  return withGraph(file, (fd, opened, modules) => {
    let found = false;
    eachSource(fd, modules, (module, contents) => {
      if (found || contents === undefined) return;
      const text = sourceText(module, contents);
      found = textHoldsSdk(text);
    });
    return found;
  });
}

/** `read(fd, executableAt()'s result, modules)` on the graph of the Bun-compiled executable at `file`; undefined when it is not one, or unreadable. */
function withGraph(file, read) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
    const opened = executableAt(fd);
    if (opened?.graph === undefined) return undefined;
    return read(fd, opened, modulesOf(fd, opened.graph));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** A module's source text from its bytes, as Bun wrote it (UTF-16, or one byte a character, read as UTF-8 as register reads it). */
function sourceText(module, contents) {
  return module.encoding === 'utf16' ? contents.toString('utf16le') : contents.toString('utf8');
}

/** `visit(module, contents)` for each module, contents undefined where it has none; within the bounds. Returns whether a module was passed over for them. */
function eachSource(fd, modules, visit) {
  let budget = MAX_TOTAL_BYTES;
  let truncated = false;
  for (const module of modules) {
    if (module.contents.length === 0) {
      visit(module, undefined);
      continue;
    }
    if (module.contents.length > Math.min(MAX_MODULE_BYTES, budget)) {
      truncated = true;
      continue;
    }
    const contents = readAt(fd, module.contents.length, module.contents.offset);
    budget -= contents.length;
    visit(module, contents);
  }
  return truncated;
}

module.exports = { readBunGraph, holdsSdkClasses };
