#!/usr/bin/env node
'use strict';
// The ES module declarations (`X.d.mts`) are generated from the CommonJS
// ones (`X.d.ts`), so that the two cannot drift: under `node16`/`nodenext`
// resolution an `import` of the package must find ES module types (a `.d.ts`
// beside `"type": "commonjs"` declares a CommonJS module). The declarations
// import nothing, so the ES module copy is the same text.
//
//   node scripts/types.cjs           write the .d.mts files
//   node scripts/types.cjs --check   exit 1 when one is missing or stale
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
/** The package's declaration files, each with its generated ES module twin. */
const ENTRIES = ['index', 'register', 'testing'];
const HEADER = (name) => `// Generated from ${name}.d.ts by scripts/types.cjs (npm run types): do not edit.\n`;

function expected(name) {
  const source = fs.readFileSync(path.join(ROOT, `${name}.d.ts`), 'utf8');
  if (/^\s*(import|export)\s[^;\n]*\bfrom\s+['"]|\bimport\(/m.test(source)) {
    throw new Error(`${name}.d.ts imports from another file: the .d.mts copy would need its specifiers rewritten`);
  }
  return HEADER(name) + source;
}

function main(argv) {
  const check = argv.includes('--check');
  const stale = [];
  for (const name of ENTRIES) {
    const file = path.join(ROOT, `${name}.d.mts`);
    const want = expected(name);
    if (check) {
      if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== want) stale.push(`${name}.d.mts`);
    } else {
      fs.writeFileSync(file, want);
    }
  }
  if (stale.length > 0) {
    console.error(`${stale.join(', ')}: stale or missing; run \`npm run types\``);
    return 1;
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
module.exports = { ENTRIES, expected };
