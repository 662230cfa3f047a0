// What a .d.ts declares that exists at run time, read with the TypeScript
// compiler's parser (no type check): the exported values (functions, classes,
// constants) and, for classes and interfaces, the names of their members.
// test/package/types.test.mjs compares it with what the package really exports.
import { createRequire } from 'node:module';
import fs from 'node:fs';

const require = createRequire(import.meta.url);
const ts = require('typescript');

function hasModifier(node, kind) {
  return (ts.getModifiers?.(node) ?? node.modifiers ?? []).some((m) => m.kind === kind);
}

function memberName(member) {
  const name = member.name;
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return undefined;
}

/** { instance: Set, statics: Set } of a class's or interface's declared members (constructors left out). */
function membersOf(node) {
  const instance = new Set();
  const statics = new Set();
  for (const member of node.members) {
    if (ts.isConstructorDeclaration(member) || ts.isConstructSignatureDeclaration(member) || ts.isIndexSignatureDeclaration(member)) continue;
    const name = memberName(member);
    if (name === undefined || hasModifier(member, ts.SyntaxKind.PrivateKeyword)) continue;
    (hasModifier(member, ts.SyntaxKind.StaticKeyword) ? statics : instance).add(name);
  }
  return { instance, statics };
}

/**
 * The runtime surface a declaration file declares:
 * { values: Map<name, 'function' | 'class' | 'const'>, classes: Map<name, members>, interfaces: Map<name, members> }.
 */
export function declaredSurface(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const values = new Map();
  const classes = new Map();
  const interfaces = new Map();
  for (const statement of source.statements) {
    const exported = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
    if (ts.isInterfaceDeclaration(statement)) {
      interfaces.set(statement.name.text, membersOf(statement));
    } else if (!exported) {
      continue;
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      values.set(statement.name.text, 'function');
    } else if (ts.isClassDeclaration(statement) && statement.name) {
      values.set(statement.name.text, 'class');
      classes.set(statement.name.text, membersOf(statement));
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) values.set(d.name.text, 'const');
    }
  }
  return { values, classes, interfaces };
}

const BUILTIN_STATICS = new Set(['length', 'name', 'prototype', 'arguments', 'caller', 'captureStackTrace', 'stackTraceLimit', 'prepareStackTrace']);

/**
 * The public members (names not starting with `_`) of a live instance: its
 * own properties and those of its prototype chain up to Object.prototype or
 * Error.prototype (whose members are Error's own, declared by lib.es5).
 */
export function runtimeMembers(instance) {
  const names = new Set();
  const add = (object) => {
    for (const name of Object.getOwnPropertyNames(object)) {
      if (name === 'constructor' || name.startsWith('_')) continue;
      names.add(name);
    }
  };
  add(instance);
  for (let proto = Object.getPrototypeOf(instance); proto && proto !== Object.prototype && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    add(proto);
  }
  if (instance instanceof Error) {
    names.delete('stack');
    names.delete('message');
  }
  return names;
}

/** The public static members of a class (Function's and Error's own left out). */
export function runtimeStatics(Class) {
  const names = new Set();
  for (let c = Class; c && c !== Function.prototype && c !== Error; c = Object.getPrototypeOf(c)) {
    for (const name of Object.getOwnPropertyNames(c)) {
      if (!BUILTIN_STATICS.has(name) && !name.startsWith('_')) names.add(name);
    }
  }
  return names;
}

/** Names in `a` not in `b`, sorted. */
export function missing(a, b) {
  return [...a].filter((name) => !b.has(name)).sort();
}
