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
