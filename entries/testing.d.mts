// Generated from testing.d.ts by scripts/types.cjs (npm run types): do not edit.
// Types of `mcp-ordered-dispatch/testing` (ESM and CJS entries alike).

/** How the raw server groups its messages into `write` calls. */
export type RawServerMode =
  /** Every message in its own write (with a gap, see {@link RawServerOptions.gap}). */
  | 'separate'
  /** Progress 1..N-1 separately, then the last progress AND the response in one write. */
  | 'last-with-response'
  /** Every progress notification and the response in one write. */
  | 'all-in-one'
  /** Progress separately, the response, then one more ("terminal") progress in a later write. */
  | 'terminal-after-result'
  /** Like `separate`, plus a progress notification for a token never issued ({@link FABRICATED_TOKEN}). */
  | 'never-issued';

/**
 * How two separate writes are kept apart: `'ping'` (default) sends a
 * server-to-client ping and waits for its answer, so the next write never
 * lands in the same read (deterministic); `'immediate'` waits a setImmediate
 * (not enough: a client often reads several writes at once); a number waits
 * that many milliseconds.
 */
export type RawServerGap = 'ping' | 'immediate' | number;

export interface RawServerOptions {
  /** Default `'separate'`. */
  mode?: RawServerMode;
  /** Progress notifications per `progress` tool call (default 3; a call's `count` argument overrides it). */
  progress?: number;
  gap?: RawServerGap;
}

/** Spawn parameters for StdioClientTransport (or child_process.spawn). */
export interface RawServerCommand {
  command: string;
  args: string[];
}

/**
 * The command that starts the raw stdio MCP server (no SDK inside; it has one
 * tool, `progress`, that sends progress for the call's progressToken, then the
 * result "done"):
 *
 *     new StdioClientTransport(rawServerCommand({ mode: 'all-in-one' }))
 */
export declare function rawServerCommand(options?: RawServerOptions): RawServerCommand;

/** What startRawServer reads requests from (a Readable such as process.stdin). */
export interface RawServerInput {
  on(event: 'data', listener: (chunk: string | Uint8Array) => void): unknown;
  off(event: 'data', listener: (chunk: string | Uint8Array) => void): unknown;
  once(event: 'end' | 'close', listener: () => void): unknown;
  resume?(): unknown;
}

/** What startRawServer writes to (a Writable such as process.stdout). */
export interface RawServerOutput {
  write(chunk: string): unknown;
}

export interface StartRawServerOptions extends RawServerOptions {
  stdin?: RawServerInput;
  stdout?: RawServerOutput;
  stderr?: RawServerOutput;
}

/** Serve the raw server on streams (default: this process's stdio). Resolves once stdin ends and pending calls are done. */
export declare function startRawServer(options?: StartRawServerOptions): Promise<void>;

/** Absolute path of the raw server script (`node <path> --mode=... --progress=... --gap=...`). */
export declare const RAW_SERVER_PATH: string;
export declare const RAW_SERVER_MODES: readonly RawServerMode[];
/** The progress token the `never-issued` mode uses. */
export declare const FABRICATED_TOKEN: 'fabricated-token';
/** How the SDK's onerror message starts when a progress notification finds no handler. */
export declare const UNKNOWN_PROGRESS_TOKEN: 'Received a progress notification for an unknown token';

export type WireMessageKind = 'request' | 'response' | 'notification' | 'invalid';

/** One message the tapped Client/Server received, in arrival order (`seq` counts from 1). */
export interface InboundEntry {
  seq: number;
  kind: WireMessageKind;
  message: unknown;
  method?: string;
  id?: string | number;
  /** For notifications/progress. */
  progressToken?: string | number;
  /** Whether its callback has run. */
  callbackRan: boolean;
  /** A notification the SDK found a handler for, so a callback is owed. */
  awaitingCallback?: boolean;
}

/**
 * A callback the SDK ran for an inbound message, in the order they ran. For a
 * response: `_onresponse` (which settles the request's promise); a request:
 * `_onrequest`; a notification: its handler; notifications/progress: the
 * SDK's `_onprogress` (which calls the request's `onprogress`).
 */
export interface CallbackEntry {
  /** The `seq` of the inbound message it was for. */
  seq: number;
  kind: WireMessageKind;
  method?: string;
  id?: string | number;
  progressToken?: string | number;
  /** For notifications/progress: whether the request's `onprogress` received it. */
  progress?: 'delivered' | 'lost';
}

export interface WireTap {
  readonly inbound: InboundEntry[];
  readonly callbacks: CallbackEntry[];
  /** Messages the tapped side sent. */
  readonly outbound: unknown[];
  /** Progress notifications whose `onprogress` was gone when their handler ran. */
  readonly lostProgress: CallbackEntry[];
  /** What is wrong so far, one sentence each; empty when callbacks ran in wire order and nothing was lost. */
  violations(): string[];
  /**
   * Throw an AssertionError unless every callback ran in wire order (and no
   * notification is still waiting for its handler while a later message's
   * callback has run), no progress notification that arrived before its
   * response was lost, and every inbound request and response reached its
   * callback. Progress for a token this side never issued, or that arrives
   * after its response, is listed in {@link lostProgress} but is no violation.
   */
  assertWireOrder(message?: string): void;
  /** Resolves after a macrotask, when handlers the stock SDK deferred have run. */
  settle(): Promise<void>;
  /** Stop recording and restore everything tapWire changed (idempotent). */
  untap(): void;
}

/**
 * Record what a Client, Server or McpServer (SDK 1.x or 2.x, patched or
 * stock) receives and the order its callbacks run in. Call it before
 * `connect` (or after: it then taps the live transport).
 */
export declare function tapWire(clientOrServer: object): WireTap;

// ---- Record and replay (docs/record-replay.md)

/** A coalescing mode of replay: one of {@link COALESCING_MODES}, `random` with a seed (`'random:42'`). */
export type CoalescingMode = 'recorded' | 'separate' | 'all-in-one' | 'last-with-response' | `random:${string}`;

/** The mode names: `recorded`, `separate`, `all-in-one`, `last-with-response`, `random` (used as `random:<seed>`). */
export declare const COALESCING_MODES: readonly ['recorded', 'separate', 'all-in-one', 'last-with-response', 'random'];

/** The JSON-RPC error code replay answers a request with when the cassette has no recorded match for it. */
export declare const NO_RECORDED_MATCH: -32001;

/** Absolute path of the replay server script (`node <path> CASSETTE --coalesce=MODE`). */
export declare const REPLAY_SERVER_PATH: string;

/** A cassette file: a path or a file: URL. */
export type CassetteFile = string | URL;

/** The first line of a cassette. */
export interface CassetteHeader {
  cassette: 'mcp-ordered-dispatch';
  version: 1;
  /** When the recording started (ISO 8601). */
  recorded: string;
  /** `bytes`: chunks as the proxy read them (record); `messages`: messages (recordTransport). */
  level: 'bytes' | 'messages';
  /** The server command and its arguments (record). */
  command?: string;
  args?: string[];
  /** The recorded Transport's class name and which end it was (recordTransport). */
  transport?: string;
  side?: 'client' | 'server';
  /** Set by redactCassette. */
  redacted?: boolean;
  [key: string]: unknown;
}

/** One event of a cassette after the header. */
export interface CassetteEvent {
  /** Milliseconds since the recording started. */
  t: number;
  /** Who sent it (absent on the exit event). */
  from?: 'client' | 'server';
  /** A chunk that is valid UTF-8. */
  utf8?: string;
  /** A chunk that is not. */
  base64?: string;
  /** The chunk's bytes (readCassette adds them for either kind of chunk). */
  bytes?: Uint8Array;
  /** One message (level `messages`). */
  message?: unknown;
  /** How the recorded server exited (record). */
  exit?: { code: number | null; signal: string | null };
}

/** What readCassette returns: replayTransport and forEachCoalescing take it too. */
export interface Cassette {
  /** The file it was read from. */
  name: string;
  header: CassetteHeader;
  events: CassetteEvent[];
}

/** Thrown by readCassette for a file that is not a cassette (or of another version). */
export declare class CassetteError extends Error {
  constructor(message: string);
}

/** Read a cassette file. */
export declare function readCassette(file: CassetteFile): Cassette;

/**
 * Write a copy of `input` with every message passed through `fn`, which
 * returns the message to keep (or `undefined` to keep the one it was given,
 * changed in place or not). Resolves nothing: it is synchronous; returns how
 * many messages changed.
 */
export declare function redactCassette(
  input: CassetteFile | Cassette,
  output: CassetteFile,
  fn: (message: any, context: { from: 'client' | 'server'; t: number }) => unknown,
): { changed: number };

/** The part of an MCP SDK Transport that recordTransport and replayTransport use (1.x and 2.x alike). */
export interface ReplayableTransport {
  start(): Promise<void>;
  send(message: any, options?: any): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
}

export interface RecordTransportOptions {
  /** Which end the transport is: `client` (default; what it sends is from the client) or `server`. */
  side?: 'client' | 'server';
  /** More fields for the header line. */
  header?: Record<string, unknown>;
}

/**
 * Record an SDK Transport's messages (Streamable HTTP, SSE, WebSocket,
 * in-memory, stdio) into a cassette at `file`. Wraps `transport` in place and
 * returns it: `client.connect(recordTransport(transport, 'session.ndjson'))`.
 */
export declare function recordTransport<T extends ReplayableTransport>(transport: T, file: CassetteFile, options?: RecordTransportOptions): T;

export interface ReplayOptions {
  /** Default `'separate'`. */
  coalesce?: CoalescingMode;
  /**
   * How two separate writes are kept apart: over stdio `'ping'` (default: a
   * server-to-client ping whose answer proves the client read what came
   * before), `'immediate'` (a macrotask) or milliseconds. In process, always
   * a macrotask (or the milliseconds).
   */
  gap?: 'ping' | 'immediate' | number;
  /** In `recorded` mode, wait the recorded time between chunks (`true`), or that time scaled by this factor. */
  timing?: boolean | number;
}

/**
 * The command that serves a replay of `cassette` on stdio, for
 * StdioClientTransport: `new StdioClientTransport(replayServerCommand('session.ndjson', { coalesce: 'all-in-one' }))`.
 */
export declare function replayServerCommand(cassette: CassetteFile, options?: ReplayOptions): RawServerCommand;

/** An in-process Transport replaying `cassette`: `client.connect(replayTransport('session.ndjson'))`. */
export declare function replayTransport(cassette: CassetteFile | Cassette, options?: ReplayOptions): ReplayableTransport;

/** What forEachCoalescing hands the test for each mode. */
export interface ReplayServerParams extends RawServerCommand {
  /** The same replay in process (non-enumerable). */
  transport(): ReplayableTransport;
}

export interface ForEachCoalescingOptions {
  /** The modes to run (default: separate, all-in-one, last-with-response, recorded, random:1, random:2, random:3); `separate` always runs, first. */
  modes?: CoalescingMode[];
  gap?: ReplayOptions['gap'];
  timing?: ReplayOptions['timing'];
  /** Throws when `actual` differs from `expected` (default: node:assert's deepStrictEqual). */
  compare?: (actual: unknown, expected: unknown) => void;
}

/** The Error forEachCoalescing rejects with. */
export interface CoalescingMismatch extends Error {
  /** The first mode whose result differs from `separate`'s (or that threw). */
  mode: string;
  /** Every mode that differs. */
  modes: string[];
  /** The results of the modes that ran to the end. */
  results: Record<string, unknown>;
}

/**
 * Run `test` once per coalescing mode against a replay of `cassette`, and
 * resolve with every mode's result when each deep-equals the result of
 * `separate`; otherwise reject with a {@link CoalescingMismatch} naming the
 * first mode that differs and how.
 */
export declare function forEachCoalescing<R>(
  cassette: CassetteFile,
  test: (serverParams: ReplayServerParams, mode: CoalescingMode) => R | Promise<R>,
  options?: ForEachCoalescingOptions,
): Promise<Record<string, R>>;
