// setup's PowerShell functions (lib/run/shells.cjs) parsed with a real
// PowerShell grammar (the pinned tree-sitter-powershell, through
// web-tree-sitter: no pwsh can be installed from the package registries
// here): the block parses with no error, a broken one is caught, and every
// string literal, read back by PowerShell's rules for single-quoted strings,
// is what setup meant: paths with $, a backtick, ', ", a space, non-ASCII
// letters and the typographic quotes PowerShell also takes as quotes.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Parser, Language } = require('web-tree-sitter');
const shells = require('../../lib/run/shells.cjs');

const PS = shells.shellNamed('powershell');
const QUOTES = /(['\u2018\u2019\u201a\u201b])\1/g;
const LAUNCH = ["C:\\Users\\O'Brien $HOME `n \"x\" é\\AppData\\mcp-ordered-dispatch-launcher.exe", 'D:\\tools\\ünï ‘curly’ $(Get-Date)\\lib\\run.cjs', '--'];
const GUARD = "C:\\Users\\O'Brien $HOME `n \"x\" é\\node_modules\\mcp-ordered-dispatch\\package.json";
const GONE = 'mcp-ordered-dispatch: the package is gone, so "demo" starts without the fix; run `npx mcp-ordered-dispatch setup demo` again';
const HOSTS = ['claude', 'demo-host', 'my.host+1'];

let parser;
before(async () => {
  await Parser.init();
  parser = new Parser();
  parser.setLanguage(await Language.load(require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm')));
});

const block = (hosts) => hosts.map((host) => shells.hostFunction(PS, host, { launch: LAUNCH, guard: GUARD, gone: GONE })).join('\n');

/** Every string literal's value, as PowerShell reads a single-quoted (verbatim) string; an expandable one fails the test. */
function literals(node, out = []) {
  if (node.type === 'string_literal') {
    const text = node.text;
    assert.match(text, /^['\u2018-\u201b][\s\S]*['\u2018-\u201b]$/, `only verbatim strings: ${text}`);
    out.push(text.slice(1, -1).replace(QUOTES, '$1'));
    return out;
  }
  for (const child of node.children) literals(child, out);
  return out;
}

test("setup's PowerShell functions parse with no error, and each string literal reads back as what setup meant", () => {
  const tree = parser.parse(block(HOSTS));
  assert.equal(tree.rootNode.hasError, false, tree.rootNode.toString());
  const read = literals(tree.rootNode);
  const meant = new Set([...LAUNCH, GUARD, GONE, ...HOSTS]);
  for (const value of read) assert.ok(meant.has(value), `a literal setup did not mean: ${JSON.stringify(value)}`);
  for (const value of meant) assert.ok(read.includes(value), `no literal reads back as ${JSON.stringify(value)}`);
  // Per function: the program twice, the guard, the launch's other words, the host and the gone line.
  assert.equal(read.length, HOSTS.length * (2 + 1 + (LAUNCH.length - 1) + 1 + 1));
  const functions = tree.rootNode.descendantsOfType('function_statement');
  assert.equal(functions.length, HOSTS.length);
});

test('the grammar catches a broken block: a brace gone, a quote not doubled', () => {
  const good = block(['demo']);
  assert.equal(parser.parse(good).rootNode.hasError, false);
  assert.equal(parser.parse(good.replace(/\}\s*$/, '')).rootNode.hasError, true, 'a missing closing brace');
  assert.equal(parser.parse(good.replace("O''Brien", "O'Brien")).rootNode.hasError, true, 'a quote not doubled');
});
