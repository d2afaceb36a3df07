import type { AgentUpdate, Message, Metadata } from "../../core/model.js";
import { isRecord } from "../../dialects/parts.js";
import type { UpstreamProtocol } from "../protocol.js";
import { openingSnapshot, outgoingMessage, type StreamPosition } from "./outgoing.js";

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
  /** The task id a result names, if any. */
  taskIdOf(result: Record<string, unknown>): unknown;
}

/**
 * The upstream client for a dialect whose agents choose their own task ids (v0.3, v1.0): the router
 * learns the id from the first result and uses it for follow-up turns and cancel; a stream's opening
 * Task is filtered by openingSnapshot.
 */
export function agentOwnedProtocol(d: AgentOwnedDialect): UpstreamProtocol {
  // A fresh object per call: callers may add to a call's headers.
  const headers = () => ({ "A2A-Version": d.version });
  return {
    dialect: d.dialect,

    turn: (ctx, streaming, upstreamTaskId) => ({
      method: streaming ? d.methods.stream : d.methods.send,
      params: d.sendParams(outgoingMessage(ctx, upstreamTaskId), ctx.metadata),
      headers: headers(),
    }),

    fromStreamResult: (result: unknown, at?: StreamPosition) =>
      isRecord(result) && d.isTask(result) ? openingSnapshot(d.updates(result), at) : d.updates(result),

    fromSendResult: (result) => d.updates(result),

    upstreamTaskId(result) {
      if (!isRecord(result)) return undefined;
      const id = d.taskIdOf(result);
      return typeof id === "string" && id !== "" ? id : undefined;
    },

    cancel: (taskId) => ({ method: d.methods.cancel, params: { id: taskId }, headers: headers() }),
  };
}
