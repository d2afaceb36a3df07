import type { ClientCall } from "../client/index.js";
import type { ResultKind } from "../dialects/index.js";

/** One answer of an upstream call: a send's result, or one event of a stream, unwrapped from its binding. */
export interface Answer {
  kind: Extract<ResultKind, "send" | "event">;
  result: unknown;
}

/** How one exchange with an upstream agent goes out. */
export interface ExchangeOptions {
  signal: AbortSignal;
  /** Ask for a stream (the call is a streaming one). */
  stream: boolean;
  /** Configured headers for the agent (auth); the call's own (`A2A-Version`) are added by the carriage. */
  headers?: Record<string, string>;
  /** The interface's tenant (v1.0), set in the request when the card names one. */
  tenant?: string;
}

/**
 * How the router's calls reach an upstream agent in one binding family: HTTP (JSON-RPC and HTTP+JSON, with
 * SSE streams; http-carriage.ts) or gRPC (grpc-transport.ts). The dialect's codec says what to send and how to
 * read it; the upstream connector (http-agent.ts) does the rest (ids, retries, idle limits, cancel) the same
 * whichever carriage moves the bytes. Every failure is an Error fit for a client, in the agent's terms; a
 * carriage that never reached the agent throws UpstreamUnreachable (the agent goes offline and is looked
 * up again).
 */
export interface Carriage {
  /** Sends `call` to `endpoint` and yields its answers: one `send` result, or a stream's `event` results. */
  exchange(endpoint: string, call: ClientCall, options: ExchangeOptions): AsyncGenerator<Answer>;
  /** Lets go of connections (router shutdown). */
  close(): void;
}
