import type { AgentUpdate } from "../../core/model.js";
import type { ClientCodec } from "./client-codec.js";
import { isRecord } from "./translate-helpers.js";
import { openingSnapshot, outgoingMessage } from "./agent-turn.js";
import type { StreamPosition, UpstreamIds, UpstreamProtocol } from "./upstream-protocol.js";

/** What sets one agent-owned dialect's client apart; agentOwnedProtocol supplies the rest. */
export interface AgentOwnedDialect {
  /** Builds the turns and cancels (methods or paths, params, the `A2A-Version` header on every call). */
  codec: ClientCodec;
  /** A send result or stream event as internal updates. */
  updates(result: unknown): AgentUpdate[];
  /** Whether a result is the agent's whole Task (how a stream opens). */
  isTask(result: Record<string, unknown>): boolean;
  /** The task and context ids a result names. */
  ids(result: unknown): UpstreamIds;
}

/**
 * The upstream client for a dialect whose agents choose their own task ids (v0.3, v1.0): the router
 * learns the id from the first result and uses it for follow-up turns and cancel; a stream's opening
 * Task is filtered by openingSnapshot.
 */
export function agentOwnedProtocol(d: AgentOwnedDialect): UpstreamProtocol {
  return {
    dialect: d.codec.dialect,
    // A v0.3/v1.0 agent's `working` message is a status line beside its answer (CONTRACT 9).
    workingTextKind: "progress",

    turn: (ctx, streaming, upstreamTaskId) => d.codec.send(outgoingMessage(ctx, upstreamTaskId), ctx.metadata, streaming),

    fromStreamResult: (result: unknown, at?: StreamPosition) =>
      isRecord(result) && d.isTask(result) ? openingSnapshot(d.updates(result), at) : d.updates(result),

    fromSendResult: (result) => d.updates(result),

    upstreamTaskId: (result) => d.ids(result).taskId,
    upstreamIds: d.ids,

    cancel: (taskId) => d.codec.cancel(taskId),
  };
}
