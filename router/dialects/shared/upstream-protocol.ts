import type { ClientCall } from "../../client/call.js";
import type { ExecuteContext } from "../../core/agent.js";
import type { AgentUpdate, DialectName, TextKind } from "../../core/model.js";

/** Where a result sits in an upstream stream (see UpstreamProtocol.fromStreamResult). */
export interface StreamPosition {
  /** 0 for the stream's first result. */
  index: number;
  /** Whether this turn continues a task the agent already has (the call named its task id). */
  followUp: boolean;
}

/** The ids an upstream agent gave a task, as one of its results names them. */
export interface UpstreamIds {
  taskId?: string;
  contextId?: string;
}

/**
 * The agent side of one dialect: how the router talks to an upstream agent of that dialect, as its
 * client. One implementation per dialect folder and binding (v01/agent.ts, v03/agent.ts, v10/agent.ts,
 * which also holds v1.0's HTTP+JSON one), each building its calls with its dialect's codec (codec.ts,
 * v10/rest-codec.ts); the HTTP and SSE transport (router/client/) is shared.
 */
export interface UpstreamProtocol {
  readonly dialect: DialectName;
  /**
   * What the text of this dialect's non-final status messages is to the answer (CONTRACT 9): a v0.1
   * agent streams its answer as status chunks ("delta"); a v0.3/v1.0 agent's `working` messages are
   * status lines ("progress"). A turn-ending status is always the answer itself ("snapshot").
   */
  readonly workingTextKind: TextKind;
  /** The request that runs one turn; `streaming` picks the streaming method. */
  turn(ctx: ExecuteContext, streaming: boolean, upstreamTaskId: string | undefined): ClientCall;
  /**
   * Internal updates from one streamed result (SSE event `result`). `at` says where it sits: v0.3/v1.0
   * streams open with a Task snapshot that is not an update (and is stale on a follow-up turn).
   */
  fromStreamResult(result: unknown, at?: StreamPosition): AgentUpdate[];
  /** Internal updates from a non-streaming send's result (a Task, or a Message). */
  fromSendResult(result: unknown): AgentUpdate[];
  /** The upstream's id for the task, when a result carries one (v0.3/v1.0 agents choose their own). */
  upstreamTaskId?(result: unknown): string | undefined;
  /** The upstream's ids for the task and its context, as far as a result names them. */
  upstreamIds?(result: unknown): UpstreamIds;
  cancel(upstreamTaskId: string): ClientCall;
}
