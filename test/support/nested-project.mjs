// Test helper: a project whose dependencies carry their own SDK copies,
// made of the SDK releases this repository installs (symlinked, so each
// copy's own dependencies resolve from the repository):
//   node_modules/@modelcontextprotocol/sdk                      1.32.2 (top level)
//   node_modules/dep/node_modules/@modelcontextprotocol/sdk     1.23.0 (npm/yarn nesting)
//   node_modules/dep/node_modules/inner/node_modules/@modelcontextprotocol/client   2.0.0 (two deep)
//   node_modules/.pnpm/other@1.0.0/node_modules/@modelcontextprotocol/sdk          1.2.0 (pnpm's store)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function link(target, at) {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules', target), at, 'junction');
}

function pkg(dir, name) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
}

/** Make the project in a new temp dir; returns { dir, copies: { where: installed path } }. */
export function makeNestedProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-nested-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'nested-fixture', private: true }));
  const nm = path.join(dir, 'node_modules');
  const copies = {
    top: path.join(nm, '@modelcontextprotocol', 'sdk'),
    nested: path.join(nm, 'dep', 'node_modules', '@modelcontextprotocol', 'sdk'),
    deep: path.join(nm, 'dep', 'node_modules', 'inner', 'node_modules', '@modelcontextprotocol', 'client'),
    pnpm: path.join(nm, '.pnpm', 'other@1.0.0', 'node_modules', '@modelcontextprotocol', 'sdk'),
  };
  link(path.join('@modelcontextprotocol', 'sdk'), copies.top);
  pkg(path.join(nm, 'dep'), 'dep');
  link('sdk-1-middle', copies.nested);
  pkg(path.join(nm, 'dep', 'node_modules', 'inner'), 'inner');
  link('client-2-oldest', copies.deep);
  pkg(path.join(nm, '.pnpm', 'other@1.0.0', 'node_modules', 'other'), 'other');
  link('sdk-1-oldest-cjs', copies.pnpm);
  return { dir, copies };
}
