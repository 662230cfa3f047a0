// Benchmark: what the bundler plugin (mcp-ordered-dispatch/esbuild, /rollup,
// /rolldown, /webpack, /rspack) costs a build, and what it costs the built
// application at start.
//
//   build     the same client app (the 1.x and 2.x SDK clients and their stdio
//             transports, zod and ajv with them: every module a host bundling
//             the SDK carries) bundled for Node by each bundler, with the plugin
//             and without, alternating, median of --rounds (each round's app
//             differs by one line, as a user's edit between two builds: what
//             the plugin caches by content, a changed output misses); the plugin's cost is
//             the difference, per MB of the modules the bundler read (its input),
//             beside the bundler's own time for the same build; the ratio
//             column is plugin ÷ bundler alone.
//   startup   the built app (it imports both clients, constructs a Client of
//             each and exits), run from a directory holding only the build
//             output: stock build against plugin build (which loads the addon
//             and patches both classes as they are defined), interleaved,
//             median of --runs.
//
//   node bench/plugin.mjs [--rounds=5] [--runs=21] [--quick] [--json] [--only=esbuild,rollup]
//
// Bundlers: esbuild, esbuild-process (the same build in a process of its own,
// as a command line runs it), rollup, rolldown, webpack, rspack.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, v ?? true]));
const ROUNDS = Number(args.rounds ?? (args.quick ? 2 : 5));
const RUNS = Number(args.runs ?? (args.quick ? 5 : 21));
// This run's own: no build here has the same output as one of an earlier run (whose cache entries would then be hits).
const RUN = `${process.pid}-${Date.now()}`;

const APP = `import { Client as C1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as T1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as C2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as T2 } from '@modelcontextprotocol/client/stdio';
const made = [new C1({ name: 'bench', version: '1.0.0' }), new C2({ name: 'bench', version: '1.0.0' })];
if (made.length !== 2 || typeof T1 !== 'function' || typeof T2 !== 'function') process.exit(1);
`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Each bundler: build(entry, outDir, plugins) → { file, inputBytes }, and its plugin. */
const BUNDLERS = {
  esbuild: {
    plugin: () => require('mcp-ordered-dispatch/esbuild')(),
    async build(entry, out, plugins) {
      const r = await require('esbuild').build({
        entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', minify: true,
        outfile: path.join(out, 'app.cjs'), metafile: true, logLevel: 'silent', plugins,
      });
      return { file: path.join(out, 'app.cjs'), inputBytes: Object.values(r.metafile.inputs).reduce((n, i) => n + i.bytes, 0) };
    },
  },
  rollup: {
    plugin: () => require('mcp-ordered-dispatch/rollup')(),
    async build(entry, out, plugins) {
      const { rollup } = require('rollup');
      let inputBytes = 0;
      const measure = { name: 'input-bytes', transform(code) { inputBytes += Buffer.byteLength(code); return null; } };
      const bundle = await rollup({
        input: entry,
        onwarn: () => {},
        // The plugin first: it sees each module's own text, as it does in a user's build.
        plugins: [...plugins, require('@rollup/plugin-node-resolve').default({ preferBuiltins: true, exportConditions: ['node'] }), require('@rollup/plugin-commonjs').default(), require('@rollup/plugin-json').default(), measure],
      });
      await bundle.write({ dir: out, format: 'cjs', entryFileNames: 'app.cjs', inlineDynamicImports: true });
      await bundle.close();
      return { file: path.join(out, 'app.cjs'), inputBytes };
    },
  },
  rolldown: {
    plugin: () => require('mcp-ordered-dispatch/rolldown')(),
    async build(entry, out, plugins) {
      const { rolldown } = require('rolldown');
      let inputBytes = 0;
      const bundle = await rolldown({ input: entry, platform: 'node', logLevel: 'silent', plugins });
      const { output } = await bundle.write({ dir: out, format: 'cjs', entryFileNames: 'app.cjs', codeSplitting: false, minify: true });
      await bundle.close();
      for (const chunk of output) if (chunk.type === 'chunk') for (const id of chunk.moduleIds) inputBytes += fs.existsSync(id) ? fs.statSync(id).size : 0;
      return { file: path.join(out, 'app.cjs'), inputBytes };
    },
  },
  webpack: {
    plugin: () => require('mcp-ordered-dispatch/webpack')(),
    build: (entry, out, plugins) => webpackLikeBuild(require('webpack'), entry, out, plugins),
  },
};

// The same esbuild build as a command line runs it: in a process of its own
// (Node, esbuild's service and the plugin's modules started each time; the
// runtime the plugin puts at the output's head is the prebuilt one, read).
BUNDLERS['esbuild-process'] = {
  plugin: () => 'plugin',
  build(entry, out, plugins) {
    const script = `const esbuild = require('esbuild');
const plugins = ${JSON.stringify(plugins)}.map(() => require('mcp-ordered-dispatch/esbuild')());
esbuild.build({ entryPoints: [${JSON.stringify(entry)}], bundle: true, platform: 'node', format: 'cjs', minify: true,
  outfile: ${JSON.stringify(path.join(out, 'app.cjs'))}, metafile: true, logLevel: 'silent', plugins })
  .then((r) => console.log(Object.values(r.metafile.inputs).reduce((n, i) => n + i.bytes, 0)));`;
    const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    if (r.status !== 0) throw new Error(`esbuild in a process of its own exited ${r.status}: ${r.stderr}`);
    return { file: path.join(out, 'app.cjs'), inputBytes: Number(r.stdout.trim()) };
  },
};

BUNDLERS.rspack = {
  plugin: () => require('mcp-ordered-dispatch/rspack')(),
  build: (entry, out, plugins) => webpackLikeBuild(require('@rspack/core').rspack, entry, out, plugins),
};

/** A production CommonJS build by webpack or rspack (the same options and stats): { file, inputBytes }. */
function webpackLikeBuild(compile, entry, out, plugins) {
  return new Promise((resolve, reject) => {
    compile({
      mode: 'production', target: 'node', entry, context: path.dirname(entry),
      output: { path: out, filename: 'app.cjs', library: { type: 'commonjs2' } },
      resolve: { modules: [path.join(ROOT, 'node_modules')] },
      plugins, infrastructureLogging: { level: 'error' }, stats: 'none',
    }, (error, stats) => {
      if (error || stats.hasErrors()) return reject(error ?? new Error(stats.toString('errors-only')));
      let inputBytes = 0;
      for (const m of stats.compilation.modules) inputBytes += m.size();
      resolve({ file: path.join(out, 'app.cjs'), inputBytes });
    });
  });
}
const ONLY = args.only ? String(args.only).split(',') : Object.keys(BUNDLERS);

function run(file) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [file], { cwd: path.dirname(file), encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 || r.stderr !== '') throw new Error(`${file} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-od-bench-plugin-'));
const rows = [];
try {
  // The entry resolves the SDK from this checkout's node_modules.
  const home = path.join(dir, 'src');
  fs.mkdirSync(home);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(home, 'node_modules'), 'dir');
  const entry = path.join(home, 'app.mjs');
  fs.writeFileSync(entry, APP);
  for (const [name, bundler] of Object.entries(BUNDLERS).filter(([name]) => ONLY.includes(name))) {
    const times = { stock: [], plugin: [] };
    let input;
    const outs = {};
    for (let round = 0; round < ROUNDS + 1; round++) {
      fs.writeFileSync(entry, `${APP}console.log('${name} round ${round} of run ${RUN}');\n`);
      for (const variant of round % 2 ? ['plugin', 'stock'] : ['stock', 'plugin']) {
        const out = path.join(dir, `${name}-${variant}`);
        fs.rmSync(out, { recursive: true, force: true });
        const t0 = process.hrtime.bigint();
        const built = await bundler.build(entry, out, variant === 'plugin' ? [bundler.plugin()] : []);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (round > 0) times[variant].push(ms); // the first round warms the bundler's own caches
        if (variant === 'stock') input = built.inputBytes;
        outs[variant] = built.file;
      }
    }
    const mb = input / (1024 * 1024);
    const extra = median(times.plugin) - median(times.stock);
    rows.push({
      row: `plugin build cost, ${name}: the SDK client app (${mb.toFixed(1)} MB of input)`,
      stock: median(times.stock),
      patched: median(times.plugin),
      unit: 'ms',
      lowerIsBetter: true,
      note: `the bundler alone ${median(times.stock).toFixed(0)} ms (${(median(times.stock) / mb).toFixed(1)} ms/MB); the plugin adds ${extra.toFixed(0)} ms, ${(extra / mb).toFixed(1)} ms per MB of input; median of ${ROUNDS}`,
    });
    process.stderr.write(`  ${name}: build ${median(times.stock).toFixed(0)} → ${median(times.plugin).toFixed(0)} ms (${mb.toFixed(1)} MB input: plugin ${(extra / mb).toFixed(1)} ms/MB)\n`);
    // Startup: each output alone in a directory of its own.
    const alone = {};
    for (const variant of ['stock', 'plugin']) {
      const at = path.join(dir, `${name}-${variant}-alone`);
      fs.cpSync(path.dirname(outs[variant]), at, { recursive: true });
      alone[variant] = path.join(at, path.basename(outs[variant]));
    }
    const ms = { stock: [], plugin: [] };
    for (const variant of ['stock', 'plugin']) run(alone[variant]);
    for (let i = 0; i < RUNS; i++) for (const variant of i % 2 ? ['plugin', 'stock'] : ['stock', 'plugin']) ms[variant].push(run(alone[variant]));
    rows.push({
      row: `plugin-built app startup, ${name}: imports both SDK clients, constructs each, exits`,
      stock: median(ms.stock),
      patched: median(ms.plugin),
      unit: 'ms',
      lowerIsBetter: true,
      note: `wall time, median of ${RUNS}, interleaved, each output alone in its own directory; the plugin build loads the addon beside it and patches both classes`,
    });
    process.stderr.write(`  ${name}: startup ${median(ms.stock).toFixed(1)} → ${median(ms.plugin).toFixed(1)} ms\n`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

if (args.json) console.log(JSON.stringify({ rows }));
else {
  console.log('| measurement | stock | plugin | ratio | notes |\n|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.row} | ${r.stock.toFixed(1)} ms | ${r.patched.toFixed(1)} ms | ${(r.patched / r.stock).toFixed(3)}× | ${r.note} |`);
}
