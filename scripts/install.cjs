#!/usr/bin/env node
'use strict';
// npm `install` lifecycle: keep a working prebuilt binary, otherwise build
// from source with cargo (release). Never downloads anything.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { build, prebuildKey, prebuildPath, checkLoads, rustMissingMessage } = require('./build.cjs');

function main() {
  const key = prebuildKey();
  const file = prebuildPath(key);
  if (fs.existsSync(file)) {
    const err = checkLoads(file);
    if (!err) {
      console.log(`[mcp-ordered-dispatch] using prebuilt ${key} binary (${file})`);
      return;
    }
    console.log(`[mcp-ordered-dispatch] prebuilt ${file} does not load (${err.split('\n')[0]}); building from source`);
  } else {
    console.log(`[mcp-ordered-dispatch] no prebuilt binary for ${key}; building from source`);
  }

  const cargo = process.env.CARGO || 'cargo';
  const probe = spawnSync(cargo, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(rustMissingMessage(`\`${cargo}\` was not found or does not run`));
  }
  console.log(`[mcp-ordered-dispatch] found ${probe.stdout.trim()}`);
  build({ debug: false, verify: true });
}

try {
  main();
} catch (err) {
  console.error(err && err.message ? err.message : err);
  process.exit(1);
}
