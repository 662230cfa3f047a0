'use strict';
// A project whose MCP SDK copies carry the fix proposed upstream: the real
// @modelcontextprotocol/sdk, client, server and core packages from this
// repository's node_modules, copied into a temporary project, with
// Protocol._onnotification changed to run the notification handler
// synchronously instead of a microtask later (a synchronous throw and a
// rejected promise still reach onerror with the SDK's own wording). Every
// other dependency is a symlink to this repository's node_modules.
//
//   const { dir, rewritten } = makeFixedUpstreamProject();   // rm -r dir after
//
// makeStockCopyProject() makes the same project with the copies unchanged:
// a stock SDK that no install() in the test's process patches, to run beside
// the patched one and the fixed one (test/patch/support/sdk-copies.mjs).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..', '..');
const NODE_MODULES = path.join(ROOT, 'node_modules');
const SDK_PACKAGES = ['sdk', 'client', 'server', 'core'];

// The stock deferral, in every build of 1.x and 2.x:
//   Promise.resolve().then(() => <call the handler>).catch(<report to onerror>);
const DEFERRAL = /Promise\.resolve\(\)\s*\.then\(\(\) => ([^\n]*?handler\(notification[^\n]*?|[^\n]*?fallback\(notification\)[^\n]*?)\)\s*\.catch\(([\s\S]*?Uncaught error in notification handler[\s\S]*?)\);/g;

/** The proposed upstream change, applied to one module's source text. */
function runHandlerSynchronously(source) {
  let count = 0;
  const text = source.replace(DEFERRAL, (_, call, report) => {
    count++;
    return `((run, report) => { let result; try { result = run(); } catch (error) { report(error); return; } Promise.resolve(result).catch(report); })(() => ${call}, ${report});`;
  });
  return { text, count };
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function walk(dir, visit) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file, visit);
    else visit(file);
  }
}

/**
 * Build the project. Returns { dir, rewritten: { [package]: files changed } };
 * throws if a package's Protocol was not found and changed (the fixture would
 * silently be stock).
 */
function makeFixedUpstreamProject(prefix = 'mcp-od-upstream-fixed-', { fixed = true } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    return build(dir, fixed);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The same project with the SDK copies left as they are (stock). */
function makeStockCopyProject(prefix = 'mcp-od-stock-copy-') {
  return makeFixedUpstreamProject(prefix, { fixed: false });
}

function build(dir, fixed) {
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@modelcontextprotocol'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'upstream-fixed-fixture', private: true }));
  for (const entry of fs.readdirSync(NODE_MODULES)) {
    if (entry.startsWith('.') || entry === '@modelcontextprotocol') continue;
    // The SDK copies installed under npm aliases stay out: this project has only the fixed ones.
    if (readJson(path.join(NODE_MODULES, entry, 'package.json'))?.name?.startsWith('@modelcontextprotocol/')) continue;
    // So does mcp-remote, which bundles a stock 2.0.0 client in its dist/ (doctor would list it as a bundled copy),
    // and the SDK fork published under another name (@mcp-use/modelcontextprotocol-sdk: an installed copy too).
    if (entry === 'mcp-remote' || entry === '@mcp-use') continue;
    // A junction on Windows: it needs no symbolic-link privilege (a 'dir' link there does).
    fs.symlinkSync(path.join(NODE_MODULES, entry), path.join(modules, entry), 'junction');
  }
  const rewritten = {};
  for (const name of SDK_PACKAGES) {
    const target = path.join(modules, '@modelcontextprotocol', name);
    fs.cpSync(path.join(NODE_MODULES, '@modelcontextprotocol', name), target, {
      recursive: true,
      dereference: true,
      filter: (src) => !/\.(map|d\.ts|d\.mts|d\.cts)$/.test(src) && !src.endsWith(`${path.sep}src`),
    });
    rewritten[name] = 0;
    if (!fixed) continue;
    walk(target, (file) => {
      if (!/\.(js|mjs|cjs)$/.test(file) || path.relative(target, file).split(path.sep).includes('node_modules')) return;
      const source = fs.readFileSync(file, 'utf8');
      if (!source.includes('_onnotification(')) return;
      const { text, count } = runHandlerSynchronously(source);
      if (count === 0) return;
      fs.writeFileSync(file, text);
      rewritten[name] += count;
    });
  }
  for (const name of fixed ? ['sdk', 'client', 'server'] : []) {
    // ESM and CJS builds: two Protocol classes per package.
    if (rewritten[name] !== 2) throw new Error(`upstream-fixed fixture: expected 2 rewrites in @modelcontextprotocol/${name}, made ${rewritten[name]}`);
  }
  // The application the tests run there (bare specifiers resolve to the fixed copies).
  fs.copyFileSync(path.join(__dirname, 'upstream-fixed-app.mjs'), path.join(dir, 'app.mjs'));
  return { dir, rewritten };
}

module.exports = { makeFixedUpstreamProject, makeStockCopyProject, runHandlerSynchronously };
