import type { ExecuteContext } from "../core/agent.js";
import type { AgentUpdate, DialectName } from "../core/model.js";

/** A JSON-RPC request to send upstream. */
export interface UpstreamCall {
  method: string;
  params: unknown;
  /** Extra headers this dialect needs (v1.0: `A2A-Version`). */
  headers?: Record<string, string>;
}

/**
 * How the router talks to an upstream agent of one dialect, as its client. One implementation per
 * dialect under protocols/; the HTTP transport (http-agent.ts) is shared.
 */
export interface UpstreamProtocol {
  readonly dialect: DialectName;
  /** The request that runs one turn; `streaming` picks the streaming method. */
  turn(ctx: ExecuteContext, streaming: boolean, upstreamTaskId: string | undefined): UpstreamCall;
  /**
   * Internal updates from one streamed result (SSE event `result`). `at` says where it sits: v0.3/v1.0
   * streams open with a Task snapshot that is not an update (and is stale on a follow-up turn).
   */
  fromStreamResult(result: unknown, at?: { index: number; followUp: boolean }): AgentUpdate[];
  /** Internal updates from a non-streaming send's result (a Task, or a Message). */
  fromSendResult(result: unknown): AgentUpdate[];
  /** The upstream's id for the task, when a result carries one (v0.3/v1.0 agents choose their own). */
  upstreamTaskId?(result: unknown): string | undefined;
  cancel(upstreamTaskId: string): UpstreamCall;
}
