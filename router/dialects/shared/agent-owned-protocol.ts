import type { AgentUpdate, Message, Metadata } from "../../core/model.js";
import { isRecord } from "./translate-helpers.js";
import { openingSnapshot, outgoingMessage } from "./agent-turn.js";
import type { StreamPosition, UpstreamIds, UpstreamProtocol } from "./upstream-protocol.js";

/** What sets one agent-owned dialect's client apart; agentOwnedProtocol supplies the rest. */
export interface AgentOwnedDialect {
  dialect: "v0.3" | "v1.0";
  /** Sent as `A2A-Version` on every call, turns and cancels alike. */
  version: string;
  methods: { send: string; stream: string; cancel: string };
  /** A turn's send params around its outgoing message (see outgoingMessage). */
  sendParams(message: Message, metadata: Metadata): unknown;
  /** A send result or stream event as internal updates. */
  updates(result: unknown): AgentUpdate[];
  /** Whether a result is the agent's whole Task (how a stream opens). */
  isTask(result: Record<string, unknown>): boolean;
  /** The task and context ids a result names (unchecked: whatever the agent sent). */
  idsOf(result: Record<string, unknown>): { taskId?: unknown; contextId?: unknown };
}

/**
 * The upstream client for a dialect whose agents choose their own task ids (v0.3, v1.0): the router
 * learns the id from the first result and uses it for follow-up turns and cancel; a stream's opening
 * Task is filtered by openingSnapshot.
 */
export function agentOwnedProtocol(d: AgentOwnedDialect): UpstreamProtocol {
  // A fresh object per call: callers may add to a call's headers.
  const headers = () => ({ "A2A-Version": d.version });
  const upstreamIds = (result: unknown): UpstreamIds => {
    if (!isRecord(result)) return {};
    const { taskId, contextId } = d.idsOf(result);
    return { ...(isId(taskId) && { taskId }), ...(isId(contextId) && { contextId }) };
  };
  return {
    dialect: d.dialect,
    // A v0.3/v1.0 agent's `working` message is a status line beside its answer (CONTRACT 9).
    workingTextKind: "progress",

    turn: (ctx, streaming, upstreamTaskId) => ({
      method: streaming ? d.methods.stream : d.methods.send,
      params: d.sendParams(outgoingMessage(ctx, upstreamTaskId), ctx.metadata),
      headers: headers(),
    }),

    fromStreamResult: (result: unknown, at?: StreamPosition) =>
      isRecord(result) && d.isTask(result) ? openingSnapshot(d.updates(result), at) : d.updates(result),

    fromSendResult: (result) => d.updates(result),

    upstreamTaskId: (result) => upstreamIds(result).taskId,
    upstreamIds,

    cancel: (taskId) => ({ method: d.methods.cancel, params: { id: taskId }, headers: headers() }),
  };
}

function isId(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
