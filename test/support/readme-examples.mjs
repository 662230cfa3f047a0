// README's code examples, compiled as a user would write them: every fenced
// block tagged js / mjs / cjs / ts / mts / cts becomes a file in a temporary
// folder inside the package (so `mcp-ordered-dispatch` resolves to this
// package through its own `exports` map and .d.ts files), and `tsc --strict`
// (checkJs for JavaScript) compiles them all. A block that is deliberately not
// compilable stands right after a line `<!-- example: not compiled (why) -->`.
// Every fence must name its language, so no example slips past untagged.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const COMPILED = { js: '.mjs', mjs: '.mjs', cjs: '.cjs', javascript: '.mjs', ts: '.mts', mts: '.mts', cts: '.cts', typescript: '.mts' };
const NOT_COMPILED = /^<!--\s*example:\s*not compiled\s*\((.+)\)\s*-->\s*$/;
// A first line naming the file the example is (`// vitest.config.mjs ...`) sets its module kind.
const FILE_NAME = /^\s*\/\/\s*[\w.-]+(\.[cm]?[jt]s)\b/;

/**
 * The fenced blocks of a Markdown text: [{ line, lang, code, skip }], where
 * `skip` is the reason given by a not-compiled marker (or undefined). Throws
 * for a fence without a language, and for a marker without a block or a reason.
 */
export function examplesIn(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+|~~~+)(.*)$/.exec(lines[i]);
    if (!open) {
      if (/^\s*<!--\s*example:/.test(lines[i]) && !NOT_COMPILED.test(lines[i])) throw new Error(`line ${i + 1}: an example marker must read <!-- example: not compiled (why) -->`);
      continue;
    }
    const lang = open[3].trim().split(/\s+/)[0].toLowerCase();
    if (lang === '') throw new Error(`line ${i + 1}: a code fence must name its language (\`\`\`text for plain text)`);
    const marker = i > 0 ? NOT_COMPILED.exec(lines[i - 1]) : null;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(open[2])) body.push(lines[j++]);
    blocks.push({ line: i + 1, lang, code: body.join('\n'), skip: marker ? marker[1] : undefined });
    i = j;
  }
  return blocks;
}

/** The blocks tsc compiles, each with the file name it gets. */
export function compiledExamples(markdown, name = 'README') {
  return examplesIn(markdown)
    .filter((b) => b.skip === undefined && Object.hasOwn(COMPILED, b.lang))
    .map((b) => {
      const ext = FILE_NAME.exec(b.code.split('\n')[0])?.[1] ?? COMPILED[b.lang];
      return { ...b, file: `${name}.md-L${b.line}${ext}` };
    });
}

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    allowJs: true,
    checkJs: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
    // The SDK's, zod's and vitest's declarations are not ours to check;
    // test/package/types/tsconfig.dts.json checks this package's.
    skipLibCheck: true,
  },
};

/**
 * Compile `markdown`'s examples with `tsc --strict` in a temporary folder
 * inside the package (removed afterwards): { code, output, files }.
 * `markdown` may be a list of [markdown, name] pages: one tsc for them all,
 * each file named after its page.
 */
export async function compileExamples(markdown, name = 'README') {
  const pages = Array.isArray(markdown) ? markdown : [[markdown, name]];
  const examples = pages.flatMap(([text, page]) => compiledExamples(text, page));
  const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'package', 'types', '.examples-'));
  try {
    for (const example of examples) fs.writeFileSync(path.join(dir, example.file), `${example.code}\n`);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: examples.map((e) => e.file) }, null, 2));
    const result = await tsc(path.join(dir, 'tsconfig.json'));
    return { ...result, files: examples.map((e) => e.file) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `tsc -p project --noEmit --strict`: { code, output }. */
export function tsc(project) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, '-p', project, '--noEmit', '--strict', '--pretty', 'false'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}
