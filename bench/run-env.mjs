// The environments the start benches compare (bench/agent-sdk.mjs, bench/server-start.mjs):
// stock, and run's for `node` exactly as `mcp-ordered-dispatch run -- node` sets it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The environment without anything of register's or the caller's Node options. */
export function baseEnv() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name === 'NODE_OPTIONS' || name.startsWith('MCP_ORDERED_DISPATCH_')) delete env[name];
  return env;
}

/** run's environment for `node` started in `cwd` (NODE_OPTIONS with register's preload, and the marker). */
export function runEnv(cwd) {
  const { plan } = require('../lib/run/plan.cjs');
  const { childEnv } = plan('node', [], { env: baseEnv(), cwd });
  if (!/--require=\S*register\.cjs/.test(childEnv.NODE_OPTIONS ?? '')) throw new Error(`run's plan for node sets no register preload: ${childEnv.NODE_OPTIONS}`);
  return childEnv;
}
