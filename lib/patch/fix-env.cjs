'use strict';
// The fix goes where MCP goes, and nowhere else. A process `run` started
// (or any process those inherit from) carries register in NODE_OPTIONS,
// BUN_OPTIONS or BUN_INSPECT_PRELOAD, with the marker that says which values
// are ours (lib/rule/marker.cjs). Once register has patched an SDK class here,
// this process is an MCP host or server: it takes ours out of its own
// environment, so the commands it runs for its user (an agent's shell tool,
// their builds and tests) get the environment the user had; a patched
// stdio client transport puts them back for the MCP server it spawns, and
// the per-child rule (./children.cjs) for the other children that do MCP
// work. A process that never loads the SDK
// (a wrapper: npx, a Node bin shim, a shell script's node) passes the
// environment on as it got it, so the fix still reaches the host behind it.

const rule = require('../rule/marker.cjs');
// The SDK's stdio knowledge, loaded when a transport starts.
let stdio;

// undefined: not taken out (yet, or there was no marker); else the marker's vars.
let taken;
let checked = false;
// What the per-child rule (./children.cjs, armed by register under `run`) asks to be told: the vars taken out.
let onTakenOut;
// > 0 while a patched stdio transport starts its server, with the fix it gave it.
let serving = 0;
// > 0 while a patched Protocol's connect() starts its transport (up to the transport's first await).
let connecting = 0;

/** Take the fix's variables out of process.env, once, if `run` put them there. */
function takeOutOnce() {
  if (checked) return;
  checked = true;
  if (process.env[rule.MARKER] === undefined) return;
  try {
    taken = rule.takeFixOut(process.env);
  } catch {
    taken = undefined; // an environment that refuses changes: left as it is
  }
  if (taken !== undefined) onTakenOut?.(taken);
}

/** `listener(vars)` once this thread has taken the fix's variables out (now, if it has). */
function whenTakenOut(listener) {
  onTakenOut = listener;
  if (taken !== undefined) listener(taken);
}

/** Whether a patched stdio transport is starting its server now (its children have the fix as it gave it). */
function startingServer() {
  return serving > 0;
}

/**
 * Run `connect` (a patched Protocol's original connect(), which starts its
 * transport in the same turn) with this thread marked as starting a
 * transport: a child started meanwhile is the transport's MCP server, even
 * where the transport's class was not patched before it started (a host's
 * own transport that wraps the SDK's, a copy that runs from bytecode).
 */
function whileConnecting(connect) {
  if (taken === undefined) return connect();
  connecting++;
  try {
    return connect();
  } finally {
    connecting--;
  }
}

/** Whether this thread took run's variables out (its transports put them back for their servers). */
function tookOut() {
  return taken !== undefined;
}

/** Whether a patched Protocol is starting its transport now (a child started is its server). */
function startingTransport() {
  return connecting > 0;
}

/**
 * Run `start` (the transport's original start(), which spawns its server in
 * the same turn) with the fix's variables added to the environment the
 * server gets: the host's `env` for it, or the SDK's default one. The
 * transport's own parameters object is put back as soon as start() returns.
 */
function withFixForServer(transport, start) {
  if (taken === undefined) return start();
  let params;
  try {
    stdio ??= require('../adapters/stdio.cjs');
    const own = Object.getOwnPropertyDescriptor(transport, stdio.SERVER_PARAMS);
    params = own !== undefined && 'value' in own && own.writable ? own.value : undefined;
  } catch {
    params = undefined;
  }
  if (params === null || typeof params !== 'object') return start(); // a server transport, or one the host keeps its own way
  const given = params.env !== null && typeof params.env === 'object' ? params.env : stdio.defaultEnvironment(process.env);
  transport[stdio.SERVER_PARAMS] = { ...params, env: rule.envWithMarked(given, taken) };
  serving++;
  try {
    return start();
  } finally {
    serving--;
    transport[stdio.SERVER_PARAMS] = params;
  }
}

module.exports = { takeOutOnce, whenTakenOut, tookOut, startingServer, startingTransport, whileConnecting, withFixForServer };
