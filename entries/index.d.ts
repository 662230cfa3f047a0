// Public types of mcp-ordered-dispatch (ESM and CJS entries alike).

/** A JSON-RPC message as a transport hands it to `onmessage`. */
export type JSONRPCMessageLike = { jsonrpc: '2.0'; [key: string]: unknown };

/** An SDK generation: 1 is `@modelcontextprotocol/sdk` 1.x, 2 is `@modelcontextprotocol/client` / `server` 2.x. */
export type SdkGeneration = 1 | 2;

/** What a callback of the Dispatcher was running when it failed. */
export type DispatchKind = 'response' | 'request' | 'notification' | 'invalid';

/** The callbacks a {@link Dispatcher} calls, synchronously and in wire order. */
export interface DispatcherCallbacks<Extra = unknown> {
  /** A JSON-RPC result response (`isError` false) or error response (`isError` true). */
  onResponse(message: JSONRPCMessageLike, isError: boolean): unknown;
  onRequest(message: JSONRPCMessageLike, extra: Extra | undefined): unknown;
  /**
   * `plainProgress` is true for a `notifications/progress` whose params are
   * exactly what the SDK's progress schema accepts (checked in Rust).
   */
  onNotification(message: JSONRPCMessageLike, extra: Extra | undefined, plainProgress: boolean): unknown;
  /** Not a JSON-RPC 2.0 message; `reason` says what is wrong with it. */
  onInvalid(message: unknown, reason: string): unknown;
  /**
   * A callback above threw, or returned a promise that rejected. Dispatch
   * goes on with the next message either way. An exception thrown here is
   * swallowed (and counted in `onErrorFailures`).
   */
  onError(error: unknown, kind: DispatchKind): unknown;
}

/** What `new Dispatcher(options)` takes: the callbacks, and which SDK generation's schemas classify. */
export interface DispatcherOptions<Extra = unknown> extends DispatcherCallbacks<Extra> {
  /** Classify as SDK 1.x (default) or 2.x does. */
  sdk?: SdkGeneration;
}

export interface DispatcherStats {
  dispatched: number;
  responses: number;
  requests: number;
  notifications: number;
  invalid: number;
  /** Callbacks that threw or whose promise rejected. */
  handlerErrors: number;
  onErrorFailures: number;
  /** The most messages ever waiting behind a running callback (re-entrant delivery). */
  maxQueued: number;
  /** napi references taken for queued messages, and released; equal whenever the queue is empty. */
  refsCreated: number;
  refsReleased: number;
}

/**
 * The native dispatcher: classifies each inbound message (in Rust) and calls
 * the matching callback synchronously, in the order `dispatch` was called.
 * A message dispatched while a callback of the same Dispatcher is running
 * (re-entrant delivery) waits until that callback returns: callbacks run to
 * completion, in wire order, and nothing is dropped.
 *
 * For custom transports and frameworks; `patchProtocol`/`install` create one
 * per connection for the MCP SDK.
 */
export declare class Dispatcher<Extra = unknown> {
  constructor(options: DispatcherOptions<Extra>);
  dispatch(message: unknown, extra?: Extra): void;
  /** Messages queued behind the running callback. */
  readonly pending: number;
  stats(): DispatcherStats;
}

export type Classification = 'result' | 'error' | 'request' | 'notification' | { invalid: string };

/** The Rust classifier on its own: what `dispatch` would do with `message`, classified as SDK generation `sdk` (default 1) does. */
export declare function classify(message: unknown, sdk?: SdkGeneration): Classification;

/** Names an SDK build in results and error messages. */
export interface SdkSource {
  name: string;
  version?: string;
  build?: 'esm' | 'cjs';
  file?: string;
}

export interface PatchedSdk extends SdkSource {
  version: string;
  build: 'esm' | 'cjs';
  file: string;
  generation: SdkGeneration;
}

/** A progress notification as the SDK's progress handler receives it. */
export interface ProgressNotificationLike {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; total?: number; message?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ProgressOptions {
  /**
   * Progress that arrives after its request finished (response, cancellation,
   * timeout, maxTotalTimeout, failed send, terminal task cleanup) is dropped
   * without `onerror`, counted, and handed here. A throw or rejection reaches
   * `onerror` as a notification-handler error.
   */
  onLateProgress?: (notification: ProgressNotificationLike) => unknown;
  /**
   * How many finished requests' tokens each connection remembers (default
   * 1024). Past the bound the oldest is forgotten, and progress for it is
   * reported as an unknown token again. 0 remembers none (stock behaviour).
   */
  maxTombstones?: number;
}

export interface InstallOptions extends ProgressOptions {
  /** Search from this directory instead of the working directory and the main module's. */
  cwd?: string;
  /** More directories to resolve SDK copies from (e.g. a dependency's own folder). */
  paths?: string[];
  /** Frame the SDK's stdio transports natively (default true). */
  framing?: boolean;
  /**
   * Stricter stdio framing than the SDK's (default false: exactly the SDK's
   * behaviour): invalid UTF-8 is an error instead of U+FFFD, and under 2.x
   * blank lines and lines that are not JSON are reported instead of dropped.
   * Errors are StdioFramingErrors naming the byte offset.
   */
  strict?: boolean;
  /**
   * Frame stdio off the main thread (default true; false: the main-thread
   * reader): see {@link StdioOffThreadOptions} and README "Reading a child's
   * stdout off the main thread".
   */
  offThread?: boolean | StdioOffThreadOptions;
}

/**
 * The off-main-thread stdio reader: one pool of threads, shared by every
 * transport, frames, validates and classifies the chunks; the main thread
 * takes bounded pieces, one per ready transport in turn, within one budget
 * per event-loop turn. Same messages, errors, order and closes as the
 * main-thread reader.
 */
export interface StdioOffThreadOptions {
  /** Bytes of message text handed over per turn at most (default 65536; a larger message goes alone). */
  maxBatchBytes?: number;
  /** Lines handed over per turn at most (default 512). */
  maxBatchMessages?: number;
  /** A chunk of at most this many bytes is framed on the main thread when nothing of the transport is queued (default 16384; 0: never). */
  inlineMax?: number;
  /** The stream is paused while more than this many bytes wait to be delivered (default 262144). */
  highWater?: number;
}

export interface Installation {
  /** Every SDK build whose Protocol is now patched. */
  patched: PatchedSdk[];
  /**
   * Every SDK build left stock because its Protocol already dispatches
   * notifications in wire order (an SDK release with the upstream fix).
   */
  fixedUpstream: PatchedSdk[];
  /** Every SDK stdio transport class now framed natively. */
  framing: Array<SdkSource & { transport: 'StdioClientTransport' | 'StdioServerTransport'; generation: SdkGeneration }>;
  /**
   * The directories whose node_modules (and every package beneath them) were
   * searched. When no SDK copy was found there, install() also emits one
   * `NoSdkWarning` (code `MCP_ORDERED_DISPATCH_NO_SDK`) saying so.
   */
  searched: string[];
  /** Restore the original methods (idempotent). */
  uninstall(): void;
}

/**
 * Patch every MCP SDK build (1.x `@modelcontextprotocol/sdk`, 2.x
 * `@modelcontextprotocol/client` and `@modelcontextprotocol/server`; ESM and
 * CJS) resolvable from the working directory and the main module, found by
 * the `name` in its package.json (so npm alias installs too). Idempotent.
 * A build that already dispatches in wire order is left stock and listed in
 * `fixedUpstream`. Throws {@link UnsupportedSdkError}, patching nothing, if a
 * copy found is neither patchable nor fixed upstream, and {@link NativeAddonError}
 * if no native addon loads on this machine.
 */
export declare function install(options?: InstallOptions): Installation;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyClass = abstract new (...args: any[]) => unknown;

/**
 * Patch one SDK `Protocol` class (for copies `install` cannot reach, e.g. a
 * bundled or nested one). Idempotent; returns a function that restores the
 * original methods. A class that already dispatches notifications in wire
 * order (fixed upstream) is left stock (the function returned does nothing).
 * Throws {@link UnsupportedSdkError} if the class is neither, patching nothing,
 * and {@link NativeAddonError} if no native addon loads on this machine.
 */
export declare function patchProtocol(Protocol: AnyClass, options?: { source?: SdkSource }): () => void;

export declare function isPatched(Protocol: AnyClass): boolean;

/** Per-instance settings for a Client or Server, overriding install()'s. */
export declare function configure(clientOrServer: object, options: ProgressOptions): void;

export interface DispatchStats {
  /** Messages delivered to the SDK, by kind. */
  delivered: number;
  responses: number;
  requests: number;
  notifications: number;
  invalid: number;
  /** Progress after its request finished: dropped quietly. */
  late: number;
  /** Progress for a token never issued (or whose tombstone was evicted): reported through onerror. */
  unknownToken: number;
  /** Responses to requests already rejected by maxTotalTimeout, dropped quietly. */
  lateResponses: number;
  /** Notification handlers (and onLateProgress) that threw or rejected. */
  handlerErrors: number;
  /** Plain progress notifications validated in Rust that skipped the SDK's zod parse. */
  fastProgress: number;
  tokens: { issued: number; retired: number; active: number; tombstones: number; evicted: number; maxTombstones: number };
}

/** Figures for a patched Client or Server; undefined before it first connects patched. */
export declare function dispatchStats(clientOrServer: object): DispatchStats | undefined;

/** The native progress-token table (one per Client/Server; exposed for custom frameworks). */
export declare class ProgressTokens {
  constructor(maxTombstones?: number);
  maxTombstones: number;
  issue(token: number): void;
  /** False if the token was not active. */
  retire(token: number): boolean;
  /** Where a progress notification's `Number(progressToken)` stands; counts late and unknown ones. */
  onProgress(token: number): 'active' | 'late' | 'unknown';
  expectLateResponse(id: number): void;
  takeLateResponse(id: number): boolean;
  readonly expectsLateResponses: boolean;
  clear(): void;
  stats(): { issued: number; retired: number; late: number; unknown: number; evicted: number; lateResponses: number; active: number; tombstones: number };
}

/** The Dispatcher a connected Client or Server routes its inbound messages through, if it is patched. */
export declare function dispatcherOf(protocol: object): Dispatcher | undefined;

export interface NativeReadBufferOptions {
  /**
   * The SDK's ReadBuffer limit, applied as the SDK applies it (default 10 MiB;
   * Infinity: none): when the incomplete line held plus a new chunk exceed it,
   * append() drops both and throws `Error('ReadBuffer exceeded maximum size of N bytes')`,
   * and the SDK's transport reports that and closes itself.
   */
  maxBufferSize?: number;
  /** Validate as SDK 1.x (default) or 2.x does. */
  sdk?: SdkGeneration;
  /** Blank lines: 1.x reports them, 2.x skips them (the SDK's behaviour). */
  blankLines?: 'report' | 'skip';
  /**
   * Stricter than the SDK (default false): invalid UTF-8 is an error instead
   * of U+FFFD, and under 2.x blank lines and lines that are not JSON are
   * reported instead of dropped.
   */
  strict?: boolean;
}

/** The SDK ReadBuffer's interface (append / readMessage / clear), backed by the Rust framer. */
export declare class NativeReadBuffer {
  constructor(options?: NativeReadBufferOptions);
  append(chunk: Uint8Array): void;
  /**
   * The next message, or null; throws for a bad line (the next call goes on
   * after it): a StdioFramingError, or in a patched transport (not strict)
   * the error the SDK's own parse gives for that line (SyntaxError, ZodError).
   */
  readMessage(): JSONRPCMessageLike | null;
  clear(): void;
}

/** What a bad stdio line becomes under `strict`, or from a NativeReadBuffer used on its own (through the transport's onerror). */
export declare class StdioFramingError extends Error {
  name: 'StdioFramingError';
  code: 'ERR_MCP_STDIO_FRAMING';
  reason: 'malformed-json' | 'invalid-utf8' | 'not-json-rpc' | 'blank-line' | 'too-large';
  /** Byte offset of the line in the stream. */
  offset: number;
  /** 1-based line number. */
  line: number;
}

/**
 * Frame one SDK stdio transport class natively (its instances from their
 * start() on). Idempotent; returns the unpatch function. Throws
 * UnsupportedSdkError, patching nothing, for a class of another shape.
 */
export declare function patchStdioTransport(
  Transport: AnyClass,
  options?: { sdk?: SdkGeneration; blankLines?: 'report' | 'skip'; strict?: boolean; offThread?: boolean | StdioOffThreadOptions; source?: SdkSource },
): () => void;

export declare function isStdioPatched(Transport: AnyClass): boolean;

export declare class UnsupportedSdkError extends Error {
  name: 'UnsupportedSdkError';
}

/**
 * No native addon loads on this machine: its platform package
 * (`mcp-ordered-dispatch-<platform>`) is not installed or does not load, there
 * is no local build, or `MCP_ORDERED_DISPATCH_NATIVE` names a file that does
 * not load. The message names the platform, what was looked for, the likely
 * cause and the fix; `cause` holds the underlying load error(s). Requiring or
 * importing the package never throws it; `install()`, `patchProtocol()` and
 * the native classes do, on first use.
 */
export declare class NativeAddonError extends Error {
  name: 'NativeAddonError';
  code: 'MCP_ORDERED_DISPATCH_LOAD_FAILED';
}
