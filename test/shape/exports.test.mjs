// How an embedded chunk's SDK classes are reached through its exports
// (lib/shape/exports.cjs), and which imports a chunk's first lines hold
// (lib/register/bun-bytecode.cjs): what decides whether a chunk of a
// Bun-compiled executable may run from its bytecode behind a facade. Each
// doubt must say undefined, so the chunk is patched in its text instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { classExports, exportClauseOf } = require('../../lib/shape/exports.cjs');
const { facadePlanOf, facadeText, validPlan } = require('../../lib/register/bun-bytecode.cjs');

/** `text`'s class bodies as the search reports them: [open (just past `{`), kind, generation], one per `marker` given. */
function atOf(text, ...marks) {
  return marks.map(([marker, kind, generation]) => {
    const at = text.indexOf(marker);
    assert.ok(at >= 0, marker);
    return [at + marker.length, kind, generation];
  });
}

test('exportClauseOf: the clause closing the text, local -> exported; none at all is an empty map; exports written elsewhere are a doubt', () => {
  assert.deepEqual([...exportClauseOf('var a=1,b=2;export{a as x,b};\n')], [['a', 'x'], ['b', 'b']]);
  assert.deepEqual([...exportClauseOf('var a=1;export {\n  a as default\n};')], [['a', 'default']]);
  assert.deepEqual([...exportClauseOf('import "x";var a=1;console.log(a);\n')], []);
  assert.equal(exportClauseOf('export class A{}\nvar b;export{b};'), undefined, 'an export before the closing clause');
  assert.equal(exportClauseOf('var a;export default a;'), undefined);
  assert.equal(exportClauseOf('var a;\nexport * from "./b.js";'), undefined);
  assert.equal(exportClauseOf('var a;export{a as "not a name"};'), undefined, 'a string export name');
});

test('classExports: a class exported by its name, through a subclass (parent), or not at all; an unbound class is a doubt', () => {
  const text = 'class P{x(){}}class C extends P{y(){}}var T=class{z(){}};export{C as Client};';
  const at = atOf(text, ['class P{', 'protocol', 1], ['var T=class{', 'stdio', 1]);
  assert.deepEqual(classExports(text, at), [
    { exportName: 'Client', parent: true, kind: 'protocol', generation: 1 },
    { exportName: undefined, parent: true, kind: 'stdio', generation: 1 },
  ]);
  const direct = 'class P{x(){}}export{P as Protocol};';
  assert.deepEqual(classExports(direct, atOf(direct, ['class P{', 'protocol', 2])), [{ exportName: 'Protocol', parent: false, kind: 'protocol', generation: 2 }]);
  const none = 'import "./a.js";var T=class{z(){}};new T;';
  assert.deepEqual(classExports(none, atOf(none, ['T=class{', 'stdio', 1])), [{ exportName: undefined, parent: true, kind: 'stdio', generation: 1 }]);
  const unbound = 'f(class{x(){}});export{f};';
  assert.equal(classExports(unbound, atOf(unbound, ['f(class{', 'protocol', 1])), undefined);
  const elsewhere = 'export class P{x(){}}';
  assert.equal(classExports(elsewhere, atOf(elsewhere, ['class P{', 'protocol', 1])), undefined);
});

test('a facade imports what the chunk\'s first lines import, in order (embedded paths, built-ins); a package or an embedded import later in the text is a doubt', () => {
  const file = '/$bunfs/root/chunk-a.js';
  // The imports of a facade's plan for a chunk that starts with `head` and then exports a Protocol (undefined: no facade).
  const importsOf = (head) => {
    const source = `${head}class P{x(){}}export{P as Protocol};`;
    return facadePlanOf(file, source, atOf(source, ['class P{', 'protocol', 1]), true, () => {})?.imports;
  };
  const header = '// @bun\nimport{a as b}from"./chunk-b.js";\nimport"node:fs";/* x */import*as c from "/$bunfs/root/chunk-c.js";\nvar x=1;';
  assert.deepEqual(importsOf(header), ['/$bunfs/root/chunk-b.js', 'node:fs', '/$bunfs/root/chunk-c.js']);
  assert.equal(importsOf('import{a}from"zod";var x;'), undefined, 'a package');
  assert.equal(importsOf('import"./chunk-b.js";var x;\nimport"./chunk-d.js";'), undefined, 'an embedded import past the first lines');
  assert.deepEqual(importsOf('import"./chunk-b.js";var x=()=>import("./chunk-d.js"),y=require("./chunk-e.js");'), ['/$bunfs/root/chunk-b.js'], 'dynamic imports and requires run later, seen by onResolve then');
  // Windows' root, in either form Bun names it: resolved in that form, on every platform.
  const source = 'import"./chunk-b.js";import"../x/chunk-c.js";class P{x(){}}export{P as Protocol};';
  for (const [at, expected] of [
    ['B:/~BUN/root/chunk-a.js', ['B:/~BUN/root/chunk-b.js', 'B:/~BUN/x/chunk-c.js']],
    ['B:\\~BUN\\root\\chunk-a.js', ['B:\\~BUN\\root\\chunk-b.js', 'B:\\~BUN\\x\\chunk-c.js']],
  ]) {
    assert.deepEqual(facadePlanOf(at, source, atOf(source, ['class P{', 'protocol', 1]), true, () => {})?.imports, expected, at);
  }
});

test('a facade\'s plan: made from the chunk\'s text, its text in the chunk\'s order; a plan read back from the record is used only where it is one facadePlanOf() could make', () => {
  const file = '/$bunfs/root/chunk-a.js';
  const source = 'import"./chunk-b.js";import"node:fs";class P{x(){}}class C extends P{y(){}}var d=1;export{C as Client,d as default};';
  const walks = [];
  const plan = facadePlanOf(file, source, atOf(source, ['class P{', 'protocol', 1]), true, (allowed) => walks.push(allowed));
  assert.deepEqual(plan, { imports: ['/$bunfs/root/chunk-b.js', 'node:fs'], classes: [['Client', 'protocol', 1, true]], hasDefault: true });
  assert.deepEqual(walks, [], 'a walk the record knows is not walked again');
  assert.equal(facadeText(file, plan), [
    'import "/$bunfs/root/chunk-b.js";',
    'import "node:fs";',
    'import { Client as c0 } from "/$bunfs/root/chunk-a.js";',
    'export * from "/$bunfs/root/chunk-a.js";',
    'export { default } from "/$bunfs/root/chunk-a.js";',
    'globalThis.__mcpOrderedDispatchExports("/$bunfs/root/chunk-a.js", [["protocol", 1, true, c0]]);',
    '',
  ].join('\n'));
  assert.equal(facadePlanOf(file, source, atOf(source, ['class P{', 'protocol', 1]), false, () => {}), undefined, 'a walk that did not allow it');
  const unexported = 'class P{x(){}}export{};';
  assert.equal(facadePlanOf(file, unexported, atOf(unexported, ['class P{', 'protocol', 1]), true, () => {}), undefined, 'a Protocol no export reaches');
  assert.equal(validPlan(plan), true);
  for (const [why, bad] of [
    ['a package import', { ...plan, imports: ['zod'] }],
    ['an export name that is code', { ...plan, classes: [['a}from"x";alert(1);//', 'protocol', 1, true]] }],
    ['an unknown kind', { ...plan, classes: [['Client', 'server', 1, true]] }],
    ['an unknown generation', { ...plan, classes: [['Client', 'protocol', 3, true]] }],
    ['no hasDefault', { imports: plan.imports, classes: plan.classes }],
    ['not an object', 'import "x";'],
  ]) assert.equal(validPlan(bad), false, why);
});
