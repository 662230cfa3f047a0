// check:hosts --newest, beyond the hosts: the newest SDK releases (1.x, 2.x)
// and the newest Bun, a client app of each stock and under register, on this
// Node and on that Bun.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBun } from '../node-lines.mjs';
import { ROOT, RAW_SERVER, TIMEOUT_MS, newestOf } from './common.mjs';

/** A client app of `client`/`stdio` (module specifiers) against the raw server (all in one write): prints { received, expected, onerrors }. */
const CANARY_APP = (client, stdio, generation) => `import { Client } from ${JSON.stringify(client)};
import { StdioClientTransport } from ${JSON.stringify(stdio)};
const c = new Client({ name: 'canary', version: '1.0.0' });
let onerrors = 0;
c.onerror = () => onerrors++;
await c.connect(new StdioClientTransport({ command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(RAW_SERVER)}, '--mode=all-in-one', '--progress=3'] }));
const seen = new Set();
const options = { onprogress: (p) => seen.add(p.progress) };
await (${generation} === 1 ? c.callTool({ name: 'progress', arguments: {} }, undefined, options) : c.callTool({ name: 'progress', arguments: {} }, options));
await c.close();
console.log(JSON.stringify({ received: seen.size, expected: 3, onerrors }));
`;

/**
 * The newest SDK releases (1.x, 2.x) and the newest Bun: the client app
 * stock and under register, on this Node and on that Bun. Lines like
 * [ok, what, version, detail].
 */
export function canarySdkAndBun() {
  const dir = path.join(ROOT, '.cache', 'canary');
  fs.mkdirSync(dir, { recursive: true });
  const sdks = [
    { what: '@modelcontextprotocol/sdk', generation: 1, version: newestOf('@modelcontextprotocol/sdk'), client: '@modelcontextprotocol/sdk/client/index.js', stdio: '@modelcontextprotocol/sdk/client/stdio.js' },
    { what: '@modelcontextprotocol/client', generation: 2, version: newestOf('@modelcontextprotocol/client'), client: '@modelcontextprotocol/client', stdio: '@modelcontextprotocol/client/stdio' },
  ];
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'canary', private: true, type: 'module' }));
  const r = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', ...sdks.map((x) => `${x.what}@${x.version}`)], { cwd: dir, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm install of the newest SDK releases failed');
  const bunVersion = newestOf('@oven/bun-linux-x64');
  const bun = ensureBun(bunVersion);
  const register = path.join(ROOT, 'entries', 'register.mjs');
  const lines = [];
  for (const sdk of sdks) {
    const app = path.join(dir, `app-${sdk.what.replace(/\W/g, '_')}.mjs`);
    fs.writeFileSync(app, CANARY_APP(sdk.client, sdk.stdio, sdk.generation));
    const env = { ...process.env };
    for (const name of ['NODE_OPTIONS', 'BUN_OPTIONS', 'BUN_INSPECT_PRELOAD', 'MCP_ORDERED_DISPATCH_RUN']) delete env[name];
    const runApp = (command, args) => {
      const out = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', timeout: TIMEOUT_MS });
      try {
        return JSON.parse(out.stdout.trim().split('\n').pop());
      } catch {
        return { error: `exit ${out.status}: ${out.stderr.trim().split('\n').slice(-2).join(' | ')}` };
      }
    };
    for (const [runtime, command, stockArgs, patchedArgs] of [
      [`node ${process.version}`, process.execPath, [app], ['--import', register, app]],
      [`bun ${bunVersion}`, bun, [app], [`--preload=${register}`, app]],
    ]) {
      const stock = runApp(command, stockArgs);
      const patched = runApp(command, patchedArgs);
      const ok = stock.received < stock.expected && stock.onerrors > 0 && patched.received === patched.expected && patched.onerrors === 0;
      lines.push([ok, sdk.what, sdk.version, `on ${runtime}: stock received ${stock.received ?? stock.error} of 3 (${stock.onerrors ?? '?'} onerrors), under register ${patched.received ?? patched.error} of 3 (${patched.onerrors ?? '?'} onerrors)`]);
    }
  }
  return lines;
}

