import { randomUUID } from "node:crypto";
import type { ExecuteContext } from "../../core/agent.js";
import type { AgentUpdate, Message } from "../../core/model.js";
import type { StreamPosition } from "./upstream-protocol.js";

/**
 * Rules shared by the v0.3 and v1.0 agent sides (their upstream clients), where the agent (not the router) owns task ids.
 */

/**
 * The message of a turn as a v0.3/v1.0 agent must receive it. Those agents make their own task ids and
 * answer an unknown one with TaskNotFound, so the router's task id never goes upstream: a follow-up turn
 * (input-required) names the agent's own task, from which the agent infers the context; a first turn
 * names only the router's contextId, which keeps one conversation in one upstream context across tasks.
 * Every turn gets its own messageId (agents may use it to drop duplicates).
 */
export function outgoingMessage(ctx: ExecuteContext, upstreamTaskId: string | undefined): Message {
  const { taskId: _taskId, contextId: _contextId, ...message } = ctx.message;
  return {
    ...message,
    role: "user",
    messageId: message.messageId ?? randomUUID(),
    ...(upstreamTaskId ? { taskId: upstreamTaskId } : { contextId: ctx.task.contextId }),
  };
}

const INTERRUPTED: ReadonlySet<string> = new Set(["submitted", "input-required", "auth-required"]);

/**
 * A v0.3/v1.0 stream opens with the agent's Task as it stands (v1.0 always, v0.3 agents often). That
 * snapshot is not an update: on a first turn its `submitted` says nothing the router's own task does not,
 * and on a follow-up it repeats the previous turn (its artifacts, and the input-required that must not end
 * this turn before it starts). So a follow-up's opening snapshot is dropped, and a first turn's keeps its
 * artifacts and any status but `submitted` (a single Task that is already the answer). Without a position
 * (an older caller), a snapshot whose state could be stale (submitted, input-required, auth-required) is
 * dropped.
 */
export function openingSnapshot(updates: AgentUpdate[], at: StreamPosition | undefined): AgentUpdate[] {
  // A follow-up's opening Task repeats what earlier turns already delivered, artifacts included.
  if (at?.index === 0 && at.followUp) return [];
  const stale = (state: string) => (at === undefined ? INTERRUPTED.has(state) : at.index === 0 && state === "submitted");
  return updates.filter((u) => !(u.kind === "status" && stale(u.status.state)));
}
